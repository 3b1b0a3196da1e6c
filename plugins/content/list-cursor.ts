/**
 * Cursor pagination of entry lists (issue 40, "pagination that stays fast"; docs/features/content.md): `after=<cursor>`
 * reads the entries that follow the cursor's entry in the list's order, `before=<cursor>` those before it, with a
 * keyset condition on the order's columns (the sort's columns, then the id that breaks ties), so a page costs the same
 * at the millionth entry as at the first (an OFFSET walks every row before the page), and a page is stable under
 * concurrent writes (an entry written or deleted meanwhile moves no other entry to another page). `after=` (empty)
 * starts at the first entry.
 *
 * A cursor is the order's values of one entry and the sort it was made for, as base64url JSON: opaque to clients (it
 * names no more than the entry's sort values, which the caller has read), checked when it comes back (a cursor of
 * another sort, a mangled one: 400 naming the parameter). NULLs sort first ascending and last descending on SQLite and
 * MariaDB alike; the condition says so explicitly, since a comparison with NULL matches nothing.
 */
import { Op, type Order, type WhereOptions } from 'sequelize';
import { defineError } from '../../kernel/sdk.js';
import { invalidQuery } from './list-filter.js';

/** The deepest entry a list reaches by page number unless plugins.options.content.maxListOffset says otherwise. */
export const DEFAULT_MAX_LIST_OFFSET = 10_000;

export class PageTooDeepError extends defineError(
  'PAGE_TOO_DEEP',
  400,
  "A list page by number starts past the deepest entry pages reach (plugins.options.content.maxListOffset, 10,000 by default): walk further with cursors (after=, a list answer's nextCursor).",
  (maxOffset: number) => ({
    message: `Pages by number reach the first ${maxOffset} entries of a list; go further with cursors: ask with after= (empty for the first page) and follow each answer's nextCursor`,
    extra: { maxOffset },
  }),
) {}

/** Refuses a page by number that starts past `maxOffset` entries (an OFFSET reads every row before the page). */
export function assertPageDepth(query: { after?: string; before?: string; page: number; limit: number }, maxOffset: number): void {
  if (query.after !== undefined || query.before !== undefined) return;
  if ((query.page - 1) * query.limit > maxOffset) throw new PageTooDeepError(maxOffset);
}

/** A cursor's values: what the stored columns hold (text, numbers, null). */
type Value = string | number | null;
type Column = [string, 'ASC' | 'DESC'];

/** The order's columns, when each is a column (a sort by a localized field in another locale is an expression). */
function columnsOf(order: Order, param: string): Column[] {
  return (order as Array<[unknown, string]>).map(([col, dir]) => {
    if (typeof col !== 'string')
      invalidQuery(param, 'cursors do not work with a sort on a localized field in a non-default locale; use page');
    return [col, dir === 'DESC' ? 'DESC' : 'ASC'];
  });
}

/** The cursor of a row (a plain stored row of the list) in this order and sort. */
export function cursorOf(order: Order, sort: string, row: Record<string, unknown>): string {
  const values = columnsOf(order, 'after').map(([col]) => {
    const v = row[col];
    return typeof v === 'bigint' ? Number(v) : v === undefined ? null : (v as Value);
  });
  return Buffer.from(JSON.stringify({ s: sort, v: values })).toString('base64url');
}

/** The values of a cursor made for this sort; 400 naming `param` for anything else. */
export function decodeCursor(text: string, order: Order, sort: string, param: 'after' | 'before'): Value[] {
  const columns = columnsOf(order, param);
  let parsed: { s?: unknown; v?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    invalidQuery(param, 'not a cursor of this list (use the nextCursor or prevCursor of a list answer)');
  }
  const values = parsed?.v;
  if (
    !Array.isArray(values) ||
    values.length !== columns.length ||
    !values.every((v) => v === null || ['string', 'number'].includes(typeof v))
  )
    invalidQuery(param, 'not a cursor of this list (use the nextCursor or prevCursor of a list answer)');
  if (parsed.s !== sort) invalidQuery(param, 'the cursor was made for another sort: use the same sort as the list it came from');
  return values as Value[];
}

/** System columns that are never NULL (the entry table's own): their conditions need no NULL branch. */
const NOT_NULL = new Set(['id', 'created_at', 'updated_at']);

/** The column compared with a value, the direction the walk goes in: the rows strictly past it, NULLs placed as stored. */
function past(col: string, value: Value, descending: boolean): WhereOptions {
  // NULL is the smallest value: first ascending, last descending.
  if (value === null) return descending ? { [Op.and]: [{ [col]: null }, { [col]: { [Op.ne]: null } }] } : { [col]: { [Op.ne]: null } };
  if (NOT_NULL.has(col)) return { [col]: { [descending ? Op.lt : Op.gt]: value } };
  return descending ? { [Op.or]: [{ [col]: { [Op.lt]: value } }, { [col]: null }] } : { [col]: { [Op.gt]: value } };
}

/**
 * The keyset condition: the rows after (forward) or before (backward) the cursor's row in `order`:
 * (c1 past v1) OR (c1 = v1 AND c2 past v2) OR ..., led by `c1` at or past `v1` when the first column is never NULL,
 * so the database seeks the list's index (tenant_id, created_at, id) from the cursor instead of reading it from the
 * start (an OR alone is not a range it can seek).
 */
export function keysetWhere(order: Order, values: Value[], forward: boolean, param: 'after' | 'before'): WhereOptions {
  const columns = columnsOf(order, param);
  const or: WhereOptions[] = [];
  for (let i = 0; i < columns.length; i++) {
    const [col, dir] = columns[i]!;
    const same = columns.slice(0, i).map(([c], j) => ({ [c]: values[j] ?? null }));
    or.push({ [Op.and]: [...same, past(col, values[i] ?? null, (dir === 'DESC') === forward)] });
  }
  const [first, dir] = columns[0]!;
  const v = values[0] ?? null;
  if (!NOT_NULL.has(first) || v === null || columns.length < 2) return { [Op.or]: or };
  const lead = { [first]: { [(dir === 'DESC') === forward ? Op.lte : Op.gte]: v } };
  return { [Op.and]: [lead, { [Op.or]: or }] };
}

/** The order walked backwards (a `before` page is read in reverse, then turned around). */
export function reversed(order: Order): Order {
  return (order as Array<[unknown, string]>).map(([col, dir]) => [col, dir === 'DESC' ? 'ASC' : 'DESC']) as Order;
}

/** How a list with `after` or `before` is read: the keyset on the page, the order it is read in, one row more. */
export interface CursorRead {
  forward: boolean;
  /** The cursor as given ('' for `after=`: from the first entry). */
  text: string;
  keyset?: WhereOptions;
  order: Order;
}

/** The cursor read of a list query (null: page numbers); 400 for a cursor with page, or after with before. */
export function cursorRead(query: { after?: string; before?: string; page: number; sort?: string }, order: Order): CursorRead | null {
  if (query.after === undefined && query.before === undefined) return null;
  if (query.after !== undefined && query.before !== undefined) invalidQuery('before', 'give after or before, not both');
  if (query.page > 1) invalidQuery('page', 'page numbers and cursors (after, before) do not go together: leave page out');
  const forward = query.before === undefined;
  const param = forward ? 'after' : 'before';
  const text = (forward ? query.after : query.before) ?? '';
  const sort = query.sort ?? '';
  columnsOf(order, param);
  const keyset = text ? keysetWhere(order, decodeCursor(text, order, sort, param), forward, param) : undefined;
  return { forward, text, keyset, order: forward ? order : reversed(order) };
}

/** The page of a cursor read (read with one row more than `limit`, in its own order): its rows in the list's order and the cursors on. */
export function cursorPage<R extends Record<string, unknown>>(
  read: CursorRead,
  order: Order,
  sort: string | undefined,
  fetched: R[],
  limit: number,
): { rows: R[]; nextCursor: string | null; prevCursor: string | null } {
  const more = fetched.length > limit;
  const rows = fetched.slice(0, limit);
  if (!read.forward) rows.reverse();
  const at = (row: R | undefined) => (row ? cursorOf(order, sort ?? '', row) : null);
  return read.forward
    ? { rows, nextCursor: more ? at(rows[rows.length - 1]) : null, prevCursor: read.text ? at(rows[0]) : null }
    : { rows, nextCursor: at(rows[rows.length - 1]), prevCursor: more ? at(rows[0]) : null };
}
