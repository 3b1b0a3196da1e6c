/**
 * Entries' versions in other locales (content_entry_locales, entry-locales.ts) for plugins that move entries between
 * installations (content packages, content sync): read them for a page of entries, and replace an entry's versions
 * inside the caller's transaction. Values are as reads answer them (API form), only the fields a version has.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

const TABLE = 'content_entry_locales';
/** When each locale's values of an entry last changed (entry-locales.ts, `_localeUpdatedAt`). */
const TIMES = 'content_entry_locale_times';
const IDS_PER_QUERY = 500;

/** One version: its values (API form, only the fields it has), its status, and when its values last changed (epoch ms). */
export interface EntryLocaleVersion {
  fields: Record<string, unknown>;
  status: string;
  /** `_localeUpdatedAt` of its locale (values_at, else updated_at); written as given, else the writing time. */
  valuesAt?: number;
}

/** A stored JSON object (text, or already parsed by the driver); {} for anything else. */
export const parseObject = (text: unknown): Record<string, unknown> => {
  try {
    const v: unknown = typeof text === 'string' ? JSON.parse(text) : text;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** The default locale's code (`en` when the table is missing or empty). */
export async function defaultLocaleCode(sequelize: Sequelize, transaction?: Transaction): Promise<string> {
  try {
    const [row] = await sequelize.query<{ code: string }>('SELECT code FROM content_locales WHERE is_default = :yes', {
      replacements: { yes: true },
      type: QueryTypes.SELECT,
      transaction,
    });
    return row?.code ?? 'en';
  } catch {
    return 'en';
  }
}

/** Entry id -> locale -> version, for these entries of a collection in a tenant (one query per 500 ids). */
export async function readEntryLocaleVersions(
  sequelize: Sequelize,
  collection: string,
  tenantId: string,
  ids: string[],
  transaction?: Transaction,
): Promise<Map<string, Record<string, EntryLocaleVersion>>> {
  const out = new Map<string, Record<string, EntryLocaleVersion>>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const rows = await sequelize.query<{ entry_id: string; locale: string; data: string; status: string; at: unknown }>(
      `SELECT entry_id, locale, data, status, COALESCE(values_at, updated_at) AS at FROM ${TABLE} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id IN (:ids) ORDER BY locale`,
      { replacements: { tenantId, collection, ids: ids.slice(i, i + IDS_PER_QUERY) }, type: QueryTypes.SELECT, transaction },
    );
    for (const r of rows) {
      const own = out.get(r.entry_id) ?? {};
      own[r.locale] = { fields: parseObject(r.data), status: r.status, valuesAt: Number(r.at) };
      out.set(r.entry_id, own);
    }
  }
  return out;
}

/**
 * Entry id -> when its localized values in the default locale `code` last changed (content_entry_locale_times), for
 * these entries (those without a row answer their createdAt: entry-locales.ts); one query per 500 ids.
 */
export async function readDefaultLocaleTimes(
  sequelize: Sequelize,
  target: { collection: string; tenantId: string; code: string },
  ids: string[],
  transaction?: Transaction,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const rows = await sequelize.query<{ entry_id: string; values_at: unknown }>(
      `SELECT entry_id, values_at FROM ${TIMES} WHERE tenant_id = :tenantId AND collection = :collection AND locale = :code AND entry_id IN (:ids)`,
      { replacements: { ...target, ids: ids.slice(i, i + IDS_PER_QUERY) }, type: QueryTypes.SELECT, transaction },
    );
    for (const r of rows) out.set(r.entry_id, Number(r.values_at));
  }
  return out;
}

/** Sets when an entry's localized values in the default locale `code` last changed (`at`: epoch ms), inside the caller's transaction. */
export async function writeDefaultLocaleTime(
  sequelize: Sequelize,
  target: { collection: string; tenantId: string; entryId: string },
  code: string,
  at: number,
  transaction: Transaction,
): Promise<void> {
  const key = { tenantId: target.tenantId, collection: target.collection, entryId: target.entryId, code, at };
  const where = 'tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId AND locale = :code';
  await sequelize.query(`DELETE FROM ${TIMES} WHERE ${where}`, { replacements: key, transaction });
  await sequelize.query(
    `INSERT INTO ${TIMES} (tenant_id, collection, entry_id, locale, values_at) VALUES (:tenantId, :collection, :entryId, :code, :at)`,
    { replacements: key, transaction },
  );
}

/** Replaces an entry's versions with `versions` (none: all deleted), inside the caller's transaction. */
export async function replaceEntryLocaleVersions(
  sequelize: Sequelize,
  target: { collection: string; tenantId: string; entryId: string; userId: string | null },
  versions: Record<string, EntryLocaleVersion>,
  transaction: Transaction,
): Promise<void> {
  const key = { tenantId: target.tenantId, collection: target.collection, entryId: target.entryId };
  // The times its locales' values last changed (`_localeUpdatedAt`) go too: a version given its valuesAt keeps it (else
  // it answers its updated_at: this import), the default answers its createdAt until writeDefaultLocaleTime.
  for (const table of [TABLE, TIMES])
    await sequelize.query(`DELETE FROM ${table} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId`, {
      replacements: key,
      transaction,
    });
  const now = Date.now();
  for (const [locale, v] of Object.entries(versions))
    await sequelize.query(
      `INSERT INTO ${TABLE} (tenant_id, collection, entry_id, locale, data, status, updated_by, created_at, updated_at, values_at) VALUES (:tenantId, :collection, :entryId, :locale, :data, :status, :updatedBy, :now, :now, :valuesAt)`,
      {
        replacements: {
          ...key,
          locale,
          data: JSON.stringify(v.fields),
          status: v.status,
          updatedBy: target.userId,
          now,
          valuesAt: v.valuesAt !== undefined && Number.isFinite(v.valuesAt) ? v.valuesAt : null,
        },
        transaction,
      },
    );
}

/** Deletes the versions of these entries (a mirror import's deletes), inside the caller's transaction. */
export async function removeEntryLocaleVersions(
  sequelize: Sequelize,
  collection: string,
  tenantId: string,
  ids: string[],
  transaction?: Transaction,
): Promise<void> {
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY)
    for (const table of [TABLE, TIMES])
      await sequelize.query(`DELETE FROM ${table} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id IN (:ids)`, {
        replacements: { tenantId, collection, ids: ids.slice(i, i + IDS_PER_QUERY) },
        transaction,
      });
}
