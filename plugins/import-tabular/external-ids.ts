/**
 * Worker side: stable external ids for records. A record's own id field when it has one and it is not
 * repeated in the file; else a key derived from its content: `sha256:` + the hex SHA-256 of a stable
 * serialisation of its values (keys sorted, at every depth), plus `#<k>` for the k-th identical record
 * of the same file (k >= 2). So identical records of one file are all imported, a re-import of the
 * same file finds each record again in the import ledger, and an unrelated file never collides with
 * it (a position such as `row-1` would). At most 71 characters plus the repeat suffix.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';

const ID_KEYS = ['id', '_id', 'uuid', 'ID', 'Id', 'slug'];

/** Content-derived keys of the records of one file, counting identical ones. */
export class ContentKeys {
  /** First 32 hex digits of each key seen -> how many times. */
  private readonly seen = new Map<string, number>();

  of(values: Record<string, unknown>): string {
    const hex = createHash('sha256')
      .update(stringify(values) ?? '')
      .digest('hex');
    const short = hex.slice(0, 32);
    const n = (this.seen.get(short) ?? 0) + 1;
    this.seen.set(short, n);
    return n === 1 ? `sha256:${hex}` : `sha256:${hex}#${n}`;
  }
}

export class ExternalIds {
  private readonly seen = new Set<string>();
  private readonly content = new ContentKeys();

  /** The id for a record; `duplicate` is set when its own id was already used (it is then keyed by content). */
  of(record: Record<string, unknown>, preferred?: string): { id: string; duplicate?: string } {
    let own = preferred;
    if (own === undefined) {
      for (const key of ID_KEYS) {
        const v = record[key];
        if ((typeof v === 'string' && v.trim() !== '') || (typeof v === 'number' && Number.isFinite(v))) {
          own = String(v).trim();
          break;
        }
      }
    }
    if (own !== undefined && !this.seen.has(own)) {
      this.seen.add(own);
      return { id: own };
    }
    const fallback = this.content.of(record);
    this.seen.add(fallback);
    return own !== undefined ? { id: fallback, duplicate: own } : { id: fallback };
  }
}
