import { QueryTypes, Sequelize, type Transaction } from 'sequelize';
import type { LoadedCollection } from './collections-service.js';
import type { CollectionDefinition } from './collection-schema.js';
import type { Entry } from './entry-shape.js';
import { columnName, isList, toColumn, type FieldDefinition } from './field-types.js';
import type { LocalesService } from './locales-service.js';
import { localeTimes, viewInLocale } from './entry-locale-view.js';

/** The side table of localized values (content migration 0009): one row per entry and locale other than the default. */
const TABLE = 'content_entry_locales';
/**
 * When the default locale's localized values of an entry last changed (content migration 0013), keyed by the default's
 * code (none: the entry's `createdAt`). A version's time is its own `values_at` (null: its `updated_at`).
 */
const TIMES = 'content_entry_locale_times';
/** Entry ids per query when a page's versions are read (a page has at most 100 entries). */
const IDS_PER_QUERY = 500;

/** A collection with its table and model (a loaded collection, or a relation path's target: list-filter.ts). */
export type TableCollection = Omit<LoadedCollection, 'uid'>;

/** An entry's version in a locale other than the default: its localized values (as reads answer them) and its status. */
export interface LocaleVersion {
  data: Record<string, unknown>;
  status: string;
  /** When its localized values last changed (`values_at`, else `updated_at`). */
  valuesAt?: number;
}
/** Entry id -> locale -> when that locale's localized values last changed (content_entry_locale_times: the default's). */
export type LocaleTimes = Map<string, Map<string, number>>;
/** Entry id -> locale -> version. */
export type LocaleVersions = Map<string, Map<string, LocaleVersion>>;

/** The fields of a collection that hold one value per locale. */
export const localizedFields = (c: CollectionDefinition): FieldDefinition[] => c.fields.filter((f) => f.localized === true);

/** `?locale=`: a locale's code, `*` (every locale's own values), or absent (the default locale). */
export type LocaleChoice = string | '*' | undefined;

const parse = (text: unknown): Record<string, unknown> => {
  try {
    const v: unknown = typeof text === 'string' ? JSON.parse(text) : text;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/**
 * The status condition of a list in a non-default locale of a collection with localized fields: the entries whose
 * version there has `status` (an entry without a version there is a draft in it), or null when the list's own status
 * column decides (the default locale, `*`, no localized fields, no status asked).
 */
export function localeStatusWhere(
  c: TableCollection,
  tenantId: string,
  locale: LocaleChoice,
  defaultCode: string,
  status: string | undefined,
) {
  if (!status || locale === undefined || locale === '*' || locale === defaultCode || !localizedFields(c).length) return null;
  const q = (v: string) => c.model.sequelize!.escape(v);
  const versions = `SELECT entry_id FROM ${TABLE} WHERE tenant_id = ${q(tenantId)} AND collection = ${q(c.name)} AND locale = ${q(locale)}`;
  return status === 'draft'
    ? Sequelize.literal(`id NOT IN (${versions} AND status <> ${q('draft')})`)
    : Sequelize.literal(`id IN (${versions} AND status = ${q(status)})`);
}

/** What a list's SQL compares for a field: an expression, and an operand (checked by the field's schema) as it answers it. */
export interface LocalizedSubject {
  field: FieldDefinition;
  lhs: ReturnType<typeof Sequelize.literal>;
  stored: (value: unknown) => unknown;
}

/**
 * A list's view of localized fields in one locale: per localized field, the SQL of its value there (the subject of
 * filters, `search` and `sort`), `null` for a localized field whose value SQL cannot compare there (json, components,
 * blocks, lists), undefined for a shared field.
 */
export type LocalizedColumns = (f: FieldDefinition) => LocalizedSubject | null | undefined;

/** Field types whose value in a locale's JSON a list compares (the others are refused in a non-default locale). */
const COMPARED = new Set([
  'text',
  'richtext',
  'markdown',
  'select',
  'email',
  'url',
  'color',
  'number',
  'boolean',
  'date',
  'media',
  'relation',
]);

/**
 * The SQL of localized fields' values in a list in `chain[0]` (a non-default locale): per field, the value of the first
 * locale of the chain whose version holds the field (as reads fall back; a version that is not published counts only
 * for callers who see every entry), else the row's own column (the default's). Each locale of the chain reads its
 * version through a correlated subquery on content_entry_locales' primary key (tenant, collection, entry, locale), so
 * pages and totals are counted in SQL; the chain is at most as long as the locales (at most 100). Values stored in a
 * version as reads answer them are brought to the column's form: dates (ISO text) to milliseconds, booleans to 1/0.
 */
export function localizedColumns(
  c: TableCollection,
  /** `alias`: the name the query gives the collection's table (a relation path's subquery: its model's name). */
  scope: { tenantId: string; chain: string[]; publishedOnly: boolean; alias?: string },
): LocalizedColumns | undefined {
  if (!scope.chain.length || !localizedFields(c).length) return undefined;
  const sequelize = c.model.sequelize!;
  const qi = sequelize.getQueryInterface();
  const sqlite = sequelize.getDialect() === 'sqlite';
  const q = (v: string) => sequelize.escape(v);
  const table = qi.quoteIdentifier(scope.alias ?? c.table);
  const published = scope.publishedOnly ? ` AND l.status = ${q('published')}` : '';
  const data = (code: string) =>
    `(SELECT l.data FROM ${TABLE} l WHERE l.tenant_id = ${q(scope.tenantId)} AND l.collection = ${q(c.name)} AND l.entry_id = ${table}.id AND l.locale = ${q(code)}${published})`;
  return (f) => {
    if (f.localized !== true) return undefined;
    if (!COMPARED.has(f.type) || isList(f) || !/^[a-z][a-z0-9_]*$/.test(f.name)) return null;
    const path = `'$.${f.name}'`;
    const value = (d: string): string => {
      if (sqlite) {
        const v = `json_extract(${d}, ${path})`;
        return f.type === 'date' ? `CAST(ROUND((julianday(${v}) - 2440587.5) * 86400000) AS INTEGER)` : v;
      }
      const v = `JSON_VALUE(${d}, ${path})`;
      if (f.type === 'number') return `CAST(${v} AS DOUBLE)`;
      if (f.type === 'boolean') return `CAST(${v} AS SIGNED)`;
      if (f.type === 'date') return `ROUND(UNIX_TIMESTAMP(STR_TO_DATE(${v}, '%Y-%m-%dT%H:%i:%s.%fZ')) * 1000)`;
      return v;
    };
    const has = (d: string) => (sqlite ? `json_type(${d}, ${path}) IS NOT NULL` : `JSON_CONTAINS_PATH(${d}, 'one', ${path}) = 1`);
    const branches = scope.chain.map((code) => `WHEN ${has(data(code))} THEN ${value(data(code))}`).join(' ');
    const lhs = Sequelize.literal(`(CASE ${branches} ELSE ${table}.${qi.quoteIdentifier(columnName(f))} END)`);
    return { field: f, lhs, stored: (v) => (typeof v === 'boolean' ? Number(v) : toColumn(f, v)) };
  };
}

/**
 * Localized values (API decisions, "Locales"). The default locale's values are the entry's own (its row in the
 * collection's table), so nothing changes for collections without localized fields; every other locale's values of
 * the localized fields live in content_entry_locales, one row per entry and locale, with that version's status.
 * A read in a locale takes each localized field from the locale, then its fallback chain, then the default, and names
 * the fields that fell back in `_fallbackFields`; a page of entries costs one query more, whatever its size.
 */
export class EntryLocales {
  constructor(
    private readonly sequelize: Sequelize,
    readonly locales: () => LocalesService | undefined,
  ) {}

  /**
   * What a list's answer depends on beyond its query (the list cache's key): the locale configuration for a collection
   * with localized fields (fallbacks and the default change values), else only the default's code (`_locales`).
   */
  cacheKey(c: CollectionDefinition): unknown {
    return localizedFields(c).length ? this.locales()?.list() : this.defaultCode();
  }

  /** The asked locale in canonical form (`*` kept); 400 VALIDATION_ERROR naming `locale` when it is not one. */
  resolve(choice: string | undefined): LocaleChoice {
    if (choice === undefined || choice === '') return undefined;
    if (choice === '*') return '*';
    const service = this.locales();
    return service ? service.resolve(choice) : choice;
  }

  defaultCode(): string {
    return this.locales()?.defaultCode() ?? 'en';
  }

  /**
   * The SQL of a list's localized fields in `choice` (filters, search and sort compare their values there), or
   * undefined in the default locale, in `*` (the default's values) and for collections without localized fields.
   */
  columns(
    c: TableCollection,
    tenantId: string,
    choice: LocaleChoice,
    publishedOnly: boolean,
    alias?: string,
  ): LocalizedColumns | undefined {
    const fallbackDefault = this.defaultCode();
    if (choice === undefined || choice === '*' || choice === fallbackDefault) return undefined;
    const chain = (this.locales()?.chain(choice) ?? [choice]).filter((code) => code !== fallbackDefault);
    return localizedColumns(c, { tenantId, chain, publishedOnly, alias });
  }

  /** Whether an entry's `status` answered in `choice` is its version's there (not the row's): see localise. */
  statusInLocale(c: CollectionDefinition, choice: LocaleChoice): boolean {
    return choice !== undefined && choice !== '*' && choice !== this.defaultCode() && localizedFields(c).length > 0;
  }

  /** The versions of these entries in every non-default locale: one query per IDS_PER_QUERY ids. */
  async versions(c: CollectionDefinition, tenantId: string, ids: string[], transaction?: Transaction): Promise<LocaleVersions> {
    return (await this.versionsAndTimes(c, tenantId, ids, false, transaction)).versions;
  }

  /**
   * The versions of these entries and, with `withTimes`, when the default locale's localized values last changed (the
   * same statement: the times' rows joined with UNION ALL), one query per IDS_PER_QUERY ids.
   */
  async versionsAndTimes(
    c: CollectionDefinition,
    tenantId: string,
    ids: string[],
    withTimes: boolean,
    transaction?: Transaction,
  ): Promise<{ versions: LocaleVersions; times: LocaleTimes }> {
    const versions: LocaleVersions = new Map();
    const times: LocaleTimes = new Map();
    const where = 'tenant_id = :tenantId AND collection = :collection AND entry_id IN (:ids)';
    const sql = withTimes
      ? `SELECT entry_id, locale, data, status, COALESCE(values_at, updated_at) AS at, 0 AS kind FROM ${TABLE} WHERE ${where} UNION ALL SELECT entry_id, locale, '', '', values_at AS at, 1 AS kind FROM ${TIMES} WHERE ${where}`
      : `SELECT entry_id, locale, data, status, COALESCE(values_at, updated_at) AS at, 0 AS kind FROM ${TABLE} WHERE ${where}`;
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const rows = await this.sequelize.query<{
        entry_id: string;
        locale: string;
        data: string;
        status: string;
        at: unknown;
        kind: unknown;
      }>(sql, {
        replacements: { tenantId, collection: c.name, ids: ids.slice(i, i + IDS_PER_QUERY) },
        type: QueryTypes.SELECT,
        transaction,
      });
      for (const r of rows) {
        if (Number(r.kind) === 1) {
          const byLocale = times.get(r.entry_id) ?? new Map<string, number>();
          byLocale.set(r.locale, Number(r.at));
          times.set(r.entry_id, byLocale);
          continue;
        }
        const byLocale = versions.get(r.entry_id) ?? new Map<string, LocaleVersion>();
        byLocale.set(r.locale, { data: parse(r.data), status: r.status, valuesAt: Number(r.at) });
        versions.set(r.entry_id, byLocale);
      }
    }
    return { versions, times };
  }

  /** Records that an entry's localized values in the default `locale` changed at `at` (inside the writing transaction). */
  async touch(
    c: CollectionDefinition,
    target: { tenantId: string; entryId: string; locale: string },
    at: number,
    transaction?: Transaction,
  ): Promise<void> {
    const key = { tenantId: target.tenantId, collection: c.name, entryId: target.entryId, locale: target.locale, at };
    await this.sequelize.query(
      `DELETE FROM ${TIMES} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId AND locale = :locale`,
      { replacements: key, transaction },
    );
    await this.sequelize.query(
      `INSERT INTO ${TIMES} (tenant_id, collection, entry_id, locale, values_at) VALUES (:tenantId, :collection, :entryId, :locale, :at)`,
      { replacements: key, transaction },
    );
  }

  /** Gives each entry its values in `choice` (fallbacks named in `_fallbackFields`), `_locale` and `_locales`. */
  async localise(
    c: CollectionDefinition,
    entries: Entry[],
    tenantId: string,
    choice: LocaleChoice,
    publishedOnly = false,
    transaction?: Transaction,
  ): Promise<void> {
    if (!entries.length) return;
    const fields = localizedFields(c);
    const fallbackDefault = this.defaultCode();
    if (!fields.length) {
      // Every entry answer carries _locale and _locales (API decisions, "Locales"). Without localized fields an entry
      // has one version, the default's, shared by every locale: no query, its own status, nothing falls back.
      const answered = choice === undefined || choice === '*' ? fallbackDefault : choice;
      for (const entry of entries) Object.assign(entry, { _locale: answered, _locales: [fallbackDefault] });
      return;
    }
    // Callers who may write (and `*` reads) learn when each locale's values last changed: `_localeUpdatedAt`.
    const withTimes = !publishedOnly || choice === '*';
    const { versions, times } = await this.versionsAndTimes(
      c,
      tenantId,
      entries.map((e) => e._id),
      withTimes,
      transaction,
    );
    const chain = this.chainOf(choice);
    for (const entry of entries) {
      const own = new Map([...(versions.get(entry._id) ?? [])].filter(([, v]) => !publishedOnly || v.status === 'published'));
      viewInLocale(entry, fields, own, { choice, chain, fallbackDefault });
      if (withTimes) localeTimes(entry, own, times.get(entry._id), fallbackDefault);
    }
  }

  /** The locales a read in `choice` takes values from, in order (`*` and none: the default). */
  chainOf(choice: LocaleChoice): string[] {
    const fallbackDefault = this.defaultCode();
    return choice === undefined || choice === '*' ? [fallbackDefault] : (this.locales()?.chain(choice) ?? [choice]);
  }

  /**
   * An entry (its row's values) in `choice` from versions read earlier (a deleted entry's, carried by its delete event:
   * GraphQL subscriptions in a locale), as localise answers it; no query.
   */
  viewFrom(
    c: CollectionDefinition,
    entry: Entry,
    versions: Record<string, LocaleVersion>,
    choice: LocaleChoice,
    publishedOnly: boolean,
  ): Entry {
    const copy = { ...entry };
    const fallbackDefault = this.defaultCode();
    const fields = localizedFields(c);
    if (!fields.length)
      return Object.assign(copy, {
        _locale: choice === undefined || choice === '*' ? fallbackDefault : choice,
        _locales: [fallbackDefault],
      });
    const own = new Map(Object.entries(versions).filter(([, v]) => !publishedOnly || v.status === 'published'));
    viewInLocale(copy, fields, own, { choice, chain: this.chainOf(choice), fallbackDefault });
    return copy;
  }

  /**
   * Sets an entry's values of localized fields in a non-default locale (merged over the version's values there), inside
   * the caller's transaction; a version written the first time is a draft (or `status` when given). Answers the
   * version's status before the write (a version written the first time was a draft).
   */
  async write(
    c: CollectionDefinition,
    target: { tenantId: string; entryId: string; locale: string; userId: string | null },
    values: Record<string, unknown>,
    status: string | undefined,
    transaction: Transaction,
    /** Fields to drop from the version (they then fall back again): a restored revision's fallbacks. */
    unset: string[] = [],
  ): Promise<string> {
    const key = { tenantId: target.tenantId, collection: c.name, entryId: target.entryId, locale: target.locale };
    const where = 'tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId AND locale = :locale';
    const [found] = await this.sequelize.query<{ data: string; status: string; values_at: unknown; updated_at: unknown }>(
      `SELECT data, status, values_at, updated_at FROM ${TABLE} WHERE ${where}`,
      {
        replacements: key,
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    const now = Date.now();
    const merged: Record<string, unknown> = { ...(found ? parse(found.data) : {}), ...values };
    for (const name of unset) delete merged[name];
    const data = JSON.stringify(merged);
    // The values' own time (`_localeUpdatedAt`) moves only when they changed: a status change alone leaves a translation
    // as current as it was (a version from before migration 0013 keeps the time it answered, its updated_at).
    const changed = !found || data !== JSON.stringify(parse(found.data));
    const valuesAt = changed ? now : Number(found.values_at ?? found.updated_at);
    const row = { ...key, data, status: status ?? found?.status ?? 'draft', updatedBy: target.userId, now, valuesAt };
    if (found)
      await this.sequelize.query(
        `UPDATE ${TABLE} SET data = :data, status = :status, updated_by = :updatedBy, updated_at = :now, values_at = :valuesAt WHERE ${where}`,
        {
          replacements: row,
          transaction,
        },
      );
    else
      await this.sequelize.query(
        `INSERT INTO ${TABLE} (tenant_id, collection, entry_id, locale, data, status, updated_by, created_at, updated_at, values_at) VALUES (:tenantId, :collection, :entryId, :locale, :data, :status, :updatedBy, :now, :now, :valuesAt)`,
        { replacements: row, transaction },
      );
    return found?.status ?? 'draft';
  }

  /** Drops the versions (and their values' times) of deleted entries (inside the deleting transaction). */
  async removeFor(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void> {
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY)
      for (const table of [TABLE, TIMES])
        await this.sequelize.query(`DELETE FROM ${table} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id IN (:ids)`, {
          replacements: { tenantId, collection, ids: ids.slice(i, i + IDS_PER_QUERY) },
          transaction,
        });
  }
}
