/**
 * What the import plan knows of the target: per collection the entries of the tenant (id, syncId, slug,
 * the package-form checksum the target's own exporter would write, and the hash of the imported fields
 * in target form), read page by page, and the lookups of identity matching.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { EntriesService, Entry, FieldDefinition, LoadedCollection } from '../content/public.js';
import { encodeFields, encodeLocales, entryChecksum, pageVersions, referencedIds } from './entry-codec.js';

const PAGE = 500;

export interface TargetRow {
  id: string;
  syncId: string;
  slug: string;
  /** The entry in package form, as this instance's exporter would write it. */
  pkgChecksum: string;
  /** Hash of {slug, status, imported fields} in target form (see formHash). */
  formHash: string;
  /** Whether the entry has versions in other locales here (pkgChecksum then covers them). */
  hasLocales?: boolean;
}

export interface TargetIndex {
  rows: Map<string, TargetRow>;
  bySyncId: Map<string, string>;
  bySlug: Map<string, string>;
  /** unique field -> value key -> id. */
  byUnique: Map<string, Map<string, string>>;
}

/** The comparison of an incoming entry with a target entry: the imported fields' values in target form. */
export function formHash(slug: string, status: string, values: Record<string, unknown>): string {
  return createHash('sha256')
    .update(stringify({ slug, status, values }) ?? '')
    .digest('hex');
}

/** A field value as a map key (dates normalised to ISO). */
export function valueKey(field: FieldDefinition, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (field.type === 'date') {
    const t = new Date(value as string);
    return Number.isNaN(t.getTime()) ? null : JSON.stringify(t.toISOString());
  }
  return JSON.stringify(value);
}

/** The values of `fields` of a target entry (API form). */
export function valuesOf(entry: Entry, fields: FieldDefinition[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.name] = entry[f.name] ?? null;
  return out;
}

/** id -> sync_id of these ids in a collection (missing ids are left out). */
export async function syncIdsOf(
  c: LoadedCollection,
  tenantId: string,
  ids: string[],
  transaction?: Transaction,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += PAGE) {
    // By primary key alone, the tenant checked on the rows (as EntriesService.readEntries: SQLite would scan the tenant's index).
    const rows = (await c.model.findAll({
      attributes: ['id', 'sync_id', 'tenant_id'],
      where: { id: { [Op.in]: ids.slice(i, i + PAGE) } },
      raw: true,
      transaction,
    })) as unknown as Array<{ id: string; sync_id: string; tenant_id: string }>;
    for (const r of rows) if (r.tenant_id === tenantId) out.set(r.id, r.sync_id);
  }
  return out;
}

/**
 * Reads the tenant's entries of `c` (keyset pages of PAGE) into an index. `common` are the fields the
 * package brings (compared); `collection(name)` resolves relation targets for the package-form checksum.
 */
export async function loadTargetIndex(
  c: LoadedCollection,
  tenantId: string,
  common: FieldDefinition[],
  entries: EntriesService,
  collection: (name: string) => LoadedCollection | undefined,
): Promise<TargetIndex> {
  const index: TargetIndex = { rows: new Map(), bySyncId: new Map(), bySlug: new Map(), byUnique: new Map() };
  const unique = c.fields.filter((f) => f.unique);
  for (const f of unique) index.byUnique.set(f.name, new Map());
  let last = '';
  for (;;) {
    const page = await c.model.findAll({
      where: { tenant_id: tenantId, id: { [Op.gt]: last } },
      order: [['id', 'ASC']],
      limit: PAGE,
    });
    if (!page.length) break;
    last = String(page[page.length - 1]!.get('id'));
    const list = page.map((r) => entries.toEntry(c, r));
    const { versions, values: versionValues } = await pageVersions(c.model.sequelize!, c, tenantId, list);
    const related = new Map<string, Map<string, string>>();
    for (const [name, ids] of referencedIds(c.fields, [...list, ...versionValues])) {
      const rc = collection(name);
      related.set(name, rc ? await syncIdsOf(rc, tenantId, [...ids]) : new Map());
    }
    for (const e of list) {
      const id = String(e._id);
      const syncId = String(e.syncId);
      const syncIdOf = (name: string, rid: string) => related.get(name)?.get(rid) ?? null;
      const fields = encodeFields(c.fields, e, syncIdOf);
      const locales = encodeLocales(c.fields, versions.get(id), syncIdOf);
      index.rows.set(id, {
        id,
        syncId,
        slug: e.slug,
        hasLocales: locales !== undefined,
        pkgChecksum: entryChecksum(e.slug, e.status, fields, locales),
        formHash: formHash(e.slug, e.status, valuesOf(e, common)),
      });
      if (!index.bySyncId.has(syncId)) index.bySyncId.set(syncId, id);
      index.bySlug.set(e.slug, id);
      for (const f of unique) {
        const k = valueKey(f, e[f.name]);
        if (k !== null) index.byUnique.get(f.name)!.set(k, id);
      }
    }
    if (page.length < PAGE) break;
  }
  return index;
}

/** Entries of the importers' links (table import_links, when the importers plugin made it) for these external ids. */
export async function importerLinks(
  sequelize: Sequelize,
  tenantId: string,
  collection: string,
  externalIds: string[],
): Promise<Array<{ format: string; entity: string; external_id: string; entry_id: string }>> {
  const out: Array<{ format: string; entity: string; external_id: string; entry_id: string }> = [];
  for (let i = 0; i < externalIds.length; i += PAGE) {
    try {
      out.push(
        ...(await sequelize.query<{ format: string; entity: string; external_id: string; entry_id: string }>(
          'SELECT format, entity, external_id, entry_id FROM import_links WHERE tenant_id = :tenantId AND collection = :collection AND external_id IN (:ids)',
          { type: QueryTypes.SELECT, replacements: { tenantId, collection, ids: externalIds.slice(i, i + PAGE) } },
        )),
      );
    } catch {
      return out; // no importers plugin (no table)
    }
  }
  return out;
}
