/** A new entry's row prepared off the event loop (the importers' worker task), for EntriesService.insertPrepared. */
export interface PreparedRow {
  id: string;
  syncId: string;
  /** The slug base; the write picks a free one (base, then base-<n>). */
  slug: string;
  status: string;
  /** Column values in the order of the collection's fields (checked, rich text sanitised: toColumn). */
  columns: unknown[];
  /** The entry's field values as it reads back (every field in order, null when unset: fromColumn). */
  entry: Record<string, unknown>;
}
