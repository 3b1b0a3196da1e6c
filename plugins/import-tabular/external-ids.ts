/**
 * Worker side: stable external ids for records: the record's own id field when it has one and it is not
 * repeated in the file, else its position (`record-<n>`). Repeats are reported once each.
 */
const ID_KEYS = ['id', '_id', 'uuid', 'ID', 'Id', 'slug'];

export class ExternalIds {
  private readonly seen = new Set<string>();

  constructor(private readonly prefix = 'record') {}

  /** The id for a record at 1-based `position`; `duplicate` is set when its own id was already used. */
  of(record: Record<string, unknown>, position: number, preferred?: string): { id: string; duplicate?: string } {
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
    const fallback = `${this.prefix}-${position}`;
    this.seen.add(fallback);
    return own !== undefined ? { id: fallback, duplicate: own } : { id: fallback };
  }
}
