/**
 * Entries' versions in other locales in a backup (issue 36): every row of content_entry_locales (the content
 * plugin's shared table of localized values, one row per entry and non-default locale, with that version's status
 * and timestamps) goes into `content-locales/entries.ndjson`, read through the backup's snapshot page by page
 * (keyset on the table's primary key) and checksummed like a collection's file; the manifest names it in
 * `entryLocales` (only the versions of the backed-up collections; absent in a backup made before, which restores as before and leaves the versions here as they are).
 *
 * A restore replaces the versions of the backup's collections (delete those here, insert the backup's rows as they
 * were: values, status, updated_by and timestamps, bound parameters), inside the restore's transaction after the
 * collections' rows; versions of a collection that is not in the backup are left, as its rows are.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import type { BackupManifest, TableInfo } from './format.js';
import type { Payload } from './restore-types.js';
import type { Snapshot } from './snapshot.js';
import { quote, tableExists, TableChecksum, type Row } from './tables.js';

export const ENTRY_LOCALES_TABLE = 'content_entry_locales';
export const ENTRY_LOCALES_FILE = 'content-locales/entries.ndjson';
const KEY = ['tenant_id', 'collection', 'entry_id', 'locale'] as const;

/**
 * Every row of content_entry_locales of these collections, page by page in primary key order (keyset on the four key
 * columns), through `select` (the backup's snapshot, or the database for a restore's snapshot hash and verify).
 */
export async function* entryLocalePages(
  select: Snapshot['select'],
  sequelize: Sequelize,
  collections: string[],
  pageSize: number,
  /** Another table with the same key (entry-drafts.ts: content_entry_drafts). */
  sideTable = ENTRY_LOCALES_TABLE,
): AsyncGenerator<Row[]> {
  if (!collections.length) return;
  const table = quote(sequelize, sideTable);
  const cols = KEY.map((k) => quote(sequelize, k)).join(', ');
  const mine = `${quote(sequelize, 'collection')} IN (${collections.map(() => '?').join(', ')})`;
  let after: unknown[] | null = null;
  for (;;) {
    const rows: Row[] =
      after === null
        ? await select(`SELECT * FROM ${table} WHERE ${mine} ORDER BY ${cols} LIMIT ${pageSize}`, collections)
        : await select(`SELECT * FROM ${table} WHERE ${mine} AND (${cols}) > (?, ?, ?, ?) ORDER BY ${cols} LIMIT ${pageSize}`, [
            ...collections,
            ...after,
          ]);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = KEY.map((k) => last[k]);
  }
}

/** The row count and order-independent checksum of the versions of these collections here (restore snapshot, verify). */
export async function entryLocalesChecksum(
  sequelize: Sequelize,
  collections: string[],
  pageSize: number,
  sideTable = ENTRY_LOCALES_TABLE,
): Promise<{ rows: number; checksum: string }> {
  const sum = new TableChecksum();
  const select = (sql: string, params: unknown[] = []) =>
    sequelize.query<Row>(sql, { type: QueryTypes.SELECT, replacements: params }) as Promise<Row[]>;
  if (await tableExists(sequelize, sideTable))
    for await (const page of entryLocalePages(select, sequelize, collections, pageSize, sideTable)) for (const row of page) sum.add(row);
  return { rows: sum.rows, checksum: sum.hex };
}

/** How many versions the backup's collections have here (what a restore deletes). */
export async function countEntryLocales(
  sequelize: Sequelize,
  collections: string[],
  transaction?: Transaction,
  sideTable = ENTRY_LOCALES_TABLE,
): Promise<number> {
  if (!collections.length || !(await tableExists(sequelize, sideTable))) return 0;
  const [r] = await sequelize.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${quote(sequelize, sideTable)} WHERE ${quote(sequelize, 'collection')} IN (:collections)`,
    { type: QueryTypes.SELECT, replacements: { collections }, transaction },
  );
  return Number(r?.n ?? 0);
}

/** Deletes the versions of these collections (inside the restore's transaction); answers the tenants they belonged to. */
export async function clearEntryLocales(
  sequelize: Sequelize,
  collections: string[],
  transaction?: Transaction,
  sideTable = ENTRY_LOCALES_TABLE,
): Promise<string[]> {
  if (!collections.length) return [];
  const table = quote(sequelize, sideTable);
  const where = `${quote(sequelize, 'collection')} IN (:collections)`;
  const tenants = await sequelize.query<{ t: string }>(
    `SELECT DISTINCT ${quote(sequelize, 'tenant_id')} AS t FROM ${table} WHERE ${where}`,
    {
      type: QueryTypes.SELECT,
      replacements: { collections },
      transaction,
    },
  );
  await sequelize.query(`DELETE FROM ${table} WHERE ${where}`, { replacements: { collections }, transaction });
  return tenants.map((r) => r.t);
}

/** The manifest's record of the file, when the backup carries one (made after issue 36's backups of versions). */
export function entryLocalesOf(m: BackupManifest): TableInfo | null {
  const info = m.entryLocales;
  return info && typeof info.file === 'string' ? info : null;
}

/**
 * The restore's operations for the versions: delete those of the backup's collections here, then insert the
 * backup's. A backup made before versions were carried leaves them as they are (with a warning when there are some).
 */
export async function planEntryLocales(
  sequelize: Sequelize,
  m: BackupManifest,
  draft: { operations: DataOperation[]; warnings: PlanDraft['warnings'] },
): Promise<void> {
  const collections = m.collections.map((c) => c.name);
  const now = await countEntryLocales(sequelize, collections);
  const info = entryLocalesOf(m);
  if (!info) {
    if (now > 0)
      draft.warnings.push({
        message: `The backup carries no versions of entries in other locales (made before they were backed up): the ${now} here are left as they are`,
      });
    return;
  }
  if (!(await tableExists(sequelize, ENTRY_LOCALES_TABLE))) {
    if (info.rows > 0)
      draft.warnings.push({
        message: "The backup holds entries' versions in other locales but this instance has no table for them: they are left out",
      });
    return;
  }
  const target = 'entry versions in other locales';
  if (now > 0)
    draft.operations.push({
      action: 'delete',
      type: 'entry-locale',
      target,
      count: now,
      payload: { kind: 'entry-locales-clear', collections } satisfies Payload,
    });
  if (info.rows > 0)
    draft.operations.push({
      action: 'create',
      type: 'entry-locale',
      target,
      count: info.rows,
      payload: { kind: 'entry-locales', file: info.file } satisfies Payload,
    });
}
