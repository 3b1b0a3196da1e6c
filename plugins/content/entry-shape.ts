import { Model, QueryTypes, type Transaction } from 'sequelize';
import type { LoadedCollection } from './collections-service.js';
import { EntryNotFoundError } from './errors.js';
import { columnName, fromColumn } from './field-types.js';
import type { EntryStatus } from './list-query.js';

export type Entry = Record<string, unknown> & {
  _id: string;
  slug: string;
  status: EntryStatus;
  version: number;
  createdAt: string;
  updatedAt: string;
};

/** A page of a list, as the list route's `data`. */
export interface EntryList {
  items: Entry[];
  total: number;
  /** null for a cursor page (`after` / `before`, list-cursor.ts). */
  page: number | null;
  limit: number;
  /** Cursor pages: the cursor of the next page (null at the end) and of the previous one (null at the start). */
  nextCursor?: string | null;
  prevCursor?: string | null;
}

/** Content events on the event bus (the spec's planned names); GraphQL subscriptions and the audit log listen. */
export interface ContentEvent {
  tenantId: string;
  collection: string;
  entry: Entry;
  userId: string | null;
  previousStatus?: EntryStatus;
  /**
   * The locale whose own version a write changed (a locale other than the default, of a collection with localized
   * fields: API decisions, "Editorial", a delivery's `locale`); `entry` is then the entry as answered there and
   * `previousStatus` that version's. Absent: a write of the entry's row (the default locale's values and status).
   */
  locale?: string;
  /**
   * On a delete of an entry of a collection with localized fields: its versions in other locales as they were (GraphQL
   * subscriptions in a locale answer the deleted entry there from them). Not part of a webhook delivery.
   */
  versions?: Record<string, { data: Record<string, unknown>; status: string }>;
}

/** One change of an entry made outside this service (a data migration), announced after its commit. */
export interface EntryChange {
  event: 'create' | 'update' | 'delete';
  collection: string;
  /** The entry as written (for a delete: as it was before). */
  entry: Entry;
}

/** Ids per query (IN list) and revisions per insert, for writers of many entries. */
export const BULK_CHUNK = 500;

/** An entry as callers see it, from a model instance or a plain row of the collection's table. */
export function toEntry(c: LoadedCollection, row: Model | Record<string, unknown>): Entry {
  const r = (row instanceof Model ? row.get({ plain: true }) : row) as Record<string, unknown>;
  const out: Record<string, unknown> = { _id: r.id };
  for (const f of c.fields) out[f.name] = fromColumn(f, r[columnName(f)]);
  return Object.assign(out, {
    slug: r.slug,
    status: r.status,
    syncId: r.sync_id,
    version: Number(r.version),
    createdAt: new Date(Number(r.created_at)).toISOString(),
    updatedAt: new Date(Number(r.updated_at)).toISOString(),
    createdBy: r.created_by ?? null,
    updatedBy: r.updated_by ?? null,
  }) as unknown as Entry;
}

/**
 * The row of an entry in the tenant, as a plain row (as lists read them; toEntry makes it an entry); a missing one is a
 * 404. Not a model instance: through a model, Sequelize's SQLite SELECT first reads the table's column types (PRAGMA
 * table_info, a statement more on every entry write and read) to parse values that toEntry parses from the plain row
 * anyway.
 */
export async function entryRow(
  c: LoadedCollection,
  id: string,
  tenantId: string,
  transaction?: Transaction,
): Promise<Record<string, unknown>> {
  const sequelize = c.model.sequelize!;
  const table = sequelize.getQueryInterface().quoteIdentifier(c.table);
  // tableNames: none, so no column types are read first (dialects/sqlite/query.js reads them for the tables named).
  const [row] = await sequelize.query<Record<string, unknown>>(`SELECT * FROM ${table} WHERE id = ? AND tenant_id = ?`, {
    replacements: [id, tenantId],
    type: QueryTypes.SELECT,
    transaction,
    ...({ tableNames: [] } as object),
  });
  if (!row) throw new EntryNotFoundError(c.name, id);
  return row;
}
