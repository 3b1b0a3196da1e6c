/**
 * What happens to entries' values when a locale is deleted or another locale becomes the default (issue 36).
 *
 * - **Deleting a locale** deletes its versions in content_entry_locales (every collection, every tenant) in batches of
 *   BATCH rows, each its own statement: first while the locale still exists, then once more after it is gone (a
 *   version written in between is not left behind). The number deleted is answered (the route audits it).
 * - **Changing the default** keeps every value under its locale: the entry's row holds the default locale's values,
 *   so for each entry of a collection with localized fields (BATCH entries per transaction, which awaits nothing but
 *   the database) the row's localized values and status become the old default's version in content_entry_locales
 *   (its status, writer and timestamps the row's), and the row takes, per localized field, what a read in the new
 *   default answered before (its own value, else its fallback chain's, else the old default's) and the status of its
 *   version there (`draft` without one); its version there is deleted. Then the locale list changes. So reads in the
 *   old and the new default answer what they answered before, and every other locale keeps its own values and
 *   statuses; what a locale took from the end of its chain (the default) it now takes from the new default, as
 *   changing the default means (fallbacks are not changed: a chain never changes without the administrator's word).
 *   Between the first batch and the list's change (the move is not one transaction), a read may see a moved entry
 *   under the old default's code. The batches and their progress are run by locale-default-move.ts (crash-safe).
 */
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { LoadedCollection } from './collections-service.js';
import { localizedFields } from './entry-locales.js';
import { columnName, fromColumn, toColumn } from './field-types.js';
import type { LocaleDefinition } from './locales-service.js';

const TABLE = 'content_entry_locales';
/** Rows (versions, or entries) per statement or transaction. */
export const BATCH = 200;

type VersionRow = { tenant_id: string; entry_id: string; locale: string; data: string; status: string; at: unknown };
/** When the default locale's localized values last changed (entry-locales.ts); a version's time is its values_at. */
const TIMES = 'content_entry_locale_times';

const parse = (text: unknown): Record<string, unknown> => {
  try {
    const v: unknown = typeof text === 'string' ? JSON.parse(text) : text;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** The chain a read in `code` walked with these locales: the locale, its fallbacks, then the default (each once). */
export function chainOf(locales: ReadonlyArray<LocaleDefinition>, code: string): string[] {
  const byCode = new Map(locales.map((l) => [l.code, l]));
  const out = [code];
  for (let at = byCode.get(code)?.fallback; at && !out.includes(at); at = byCode.get(at)?.fallback) out.push(at);
  const def = locales.find((l) => l.isDefault)?.code;
  if (def && !out.includes(def)) out.push(def);
  return out;
}

export class LocaleLifecycle {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly invalidate: (tenantId: string, collection: string) => Promise<void>,
  ) {}

  /** Deletes every version in `code`, BATCH rows per statement; answers how many and which lists changed. */
  async dropVersions(code: string): Promise<number> {
    let n = 0;
    const touched = new Set<string>();
    for (;;) {
      const keys = await this.sequelize.query<{ tenant_id: string; collection: string; entry_id: string }>(
        `SELECT tenant_id, collection, entry_id FROM ${TABLE} WHERE locale = :code LIMIT ${BATCH}`,
        { replacements: { code }, type: QueryTypes.SELECT },
      );
      if (!keys.length) break;
      const groups = new Map<string, { tenantId: string; collection: string; ids: string[] }>();
      for (const k of keys) {
        const g = groups.get(`${k.tenant_id}\0${k.collection}`) ?? { tenantId: k.tenant_id, collection: k.collection, ids: [] };
        g.ids.push(k.entry_id);
        groups.set(`${k.tenant_id}\0${k.collection}`, g);
      }
      for (const g of groups.values()) {
        await this.sequelize.query(
          `DELETE FROM ${TABLE} WHERE locale = :code AND tenant_id = :tenantId AND collection = :collection AND entry_id IN (:ids)`,
          { replacements: { code, ...g } },
        );
        touched.add(`${g.tenantId}\0${g.collection}`);
      }
      n += keys.length;
    }
    // The times its values last changed (entry-locales.ts) go too: a locale made again with the code starts afresh.
    await this.sequelize.query('DELETE FROM content_entry_locale_times WHERE locale = :code', { replacements: { code } });
    for (const key of touched) {
      const [tenantId, collection] = key.split('\0') as [string, string];
      await this.invalidate(tenantId, collection).catch(() => undefined);
    }
    return n;
  }

  /**
   * Moves the values of these entries of `c` so each stays under its locale when `m.to` becomes the default instead of
   * `m.from` (`m.chain`: `m.to`'s chain with the locale list before the change), inside the caller's transaction
   * (locale-default-move.ts runs the batches and records how far they got); `m.tenants` hears the tenants touched.
   */
  async moveBatch(
    c: LoadedCollection,
    ids: string[],
    m: { from: string; to: string; chain: string[]; tenants: Set<string> },
    transaction: Transaction,
  ): Promise<number> {
    const fields = localizedFields(c);
    const rows = (await c.model.findAll({ where: { id: { [Op.in]: ids } }, raw: true, transaction })) as unknown as Array<
      Record<string, unknown>
    >;
    const versions = await this.sequelize.query<VersionRow>(
      `SELECT tenant_id, entry_id, locale, data, status, COALESCE(values_at, updated_at) AS at FROM ${TABLE} WHERE collection = :collection AND entry_id IN (:ids) AND locale IN (:locales)`,
      { replacements: { collection: c.name, ids, locales: m.chain }, type: QueryTypes.SELECT, transaction },
    );
    const own = new Map<string, { data: Record<string, unknown>; status: string; at: number }>();
    for (const v of versions)
      own.set(`${v.tenant_id}\0${v.entry_id}\0${v.locale}`, { data: parse(v.data), status: v.status, at: Number(v.at) });
    // The times each locale's values last changed stay with the locale: the old default's becomes its version's
    // values_at, the new default's version's becomes the default's time (`_localeUpdatedAt`).
    const times = await this.sequelize.query<{ tenant_id: string; entry_id: string; values_at: unknown }>(
      `SELECT tenant_id, entry_id, values_at FROM ${TIMES} WHERE collection = :collection AND entry_id IN (:ids) AND locale = :from`,
      { replacements: { collection: c.name, ids, from: m.from }, type: QueryTypes.SELECT, transaction },
    );
    const fromTime = new Map(times.map((t) => [`${t.tenant_id}\0${t.entry_id}`, Number(t.values_at)]));
    for (const r of rows) {
      const tenantId = String(r.tenant_id);
      const id = String(r.id);
      const version = (code: string) => own.get(`${tenantId}\0${id}\0${code}`);
      const old: Record<string, unknown> = {};
      const changes: Record<string, unknown> = { status: version(m.to)?.status ?? 'draft' };
      for (const f of fields) {
        old[f.name] = fromColumn(f, r[columnName(f)]);
        const source = m.chain.find((code) => code === m.from || Object.hasOwn(version(code)?.data ?? {}, f.name));
        const value = source === m.from || source === undefined ? old[f.name] : version(source)!.data[f.name];
        changes[columnName(f)] = value === null || value === undefined ? null : toColumn(f, value);
      }
      await c.model.update(changes, { where: { id, tenant_id: tenantId }, transaction });
      const key = { tenantId, collection: c.name, entryId: id };
      await this.sequelize.query(
        `DELETE FROM ${TABLE} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId AND locale IN (:locales)`,
        { replacements: { ...key, locales: [m.from, m.to] }, transaction },
      );
      await this.sequelize.query(
        `INSERT INTO ${TABLE} (tenant_id, collection, entry_id, locale, data, status, updated_by, created_at, updated_at, values_at) VALUES (:tenantId, :collection, :entryId, :locale, :data, :status, :updatedBy, :createdAt, :updatedAt, :valuesAt)`,
        {
          replacements: {
            ...key,
            locale: m.from,
            data: JSON.stringify(old),
            status: String(r.status),
            updatedBy: r.updated_by ?? null,
            createdAt: r.created_at,
            updatedAt: r.updated_at,
            // What a read answered as the old default's time: its own, else the entry's creation.
            valuesAt: fromTime.get(`${tenantId}\0${id}`) ?? r.created_at,
          },
          transaction,
        },
      );
      await this.sequelize.query(
        `DELETE FROM ${TIMES} WHERE tenant_id = :tenantId AND collection = :collection AND entry_id = :entryId AND locale IN (:locales)`,
        { replacements: { ...key, locales: [m.from, m.to] }, transaction },
      );
      const newDefault = version(m.to);
      if (newDefault && Number.isFinite(newDefault.at))
        await this.sequelize.query(
          `INSERT INTO ${TIMES} (tenant_id, collection, entry_id, locale, values_at) VALUES (:tenantId, :collection, :entryId, :locale, :at)`,
          { replacements: { ...key, locale: m.to, at: newDefault.at }, transaction },
        );
      m.tenants.add(tenantId);
    }
    return rows.length;
  }
}
