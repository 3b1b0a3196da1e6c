/**
 * MariaDB GTID positions (`@@gtid_binlog_pos`, `@@gtid_slave_pos`): a comma-separated list of
 * `domain-server-sequence`, one per replication domain. A position has reached another when, in every
 * domain of the other, its sequence number is at least as high.
 */
export function parseGtidPosition(text: string): Map<string, bigint> {
  const domains = new Map<string, bigint>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)-(\d+)-(\d+)\s*$/.exec(part);
    if (!m) continue;
    const seq = BigInt(m[3]!);
    const known = domains.get(m[1]!);
    if (known === undefined || seq > known) domains.set(m[1]!, seq);
  }
  return domains;
}

/** Whether position `have` includes everything of position `want` (an empty `want` is always reached). */
export function gtidReached(have: string, want: string): boolean {
  const wanted = parseGtidPosition(want);
  if (wanted.size === 0) return true;
  const had = parseGtidPosition(have);
  for (const [domain, seq] of wanted) if ((had.get(domain) ?? -1n) < seq) return false;
  return true;
}

/** A well-formed position (what may be stored in a cache token and compared later). */
export function isGtidPosition(text: string): boolean {
  return text.length <= 512 && /^\d+-\d+-\d+(,\d+-\d+-\d+)*$/.test(text);
}
