/**
 * Is a text one JSON document per line (NDJSON)? Yes when there are at least two non-empty lines and
 * most of them (more than half) parse as JSON objects on their own: a few malformed lines do not turn
 * an NDJSON file into "plain JSON", and a pretty-printed JSON document (whose lines are fragments) is
 * never taken for NDJSON. Worker-side only: no kernel imports.
 */

/** How many lines are judged. */
const SAMPLE_LINES = 50;

export function looksLikeNdjsonLines(lines: string[]): boolean {
  const sample = lines.filter((l) => l.trim() !== '').slice(0, SAMPLE_LINES);
  if (sample.length < 2) return false;
  let objects = 0;
  for (const line of sample) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      const value = JSON.parse(text) as unknown;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) objects++;
    } catch {
      /* a malformed line: counted against */
    }
  }
  return objects * 2 > sample.length;
}

/** The same judgement on the head of a file; `truncated`: the head is not the whole file (its last line may be cut). */
export function looksLikeNdjson(head: string, truncated = false): boolean {
  const lines = head.split(/\r\n|\r|\n/);
  if (truncated && lines.length > 1) lines.pop();
  return looksLikeNdjsonLines(lines);
}
