/**
 * References an upload cannot place itself (ImportParseSummary.earlierRefs: a single Directus item file naming ids
 * of another collection), looked up among the records earlier imports of the same format wrote (the import_links
 * ledger): a field whose every value is a record of one source entity in one existing collection, each entry still
 * there, becomes a relation to that collection (plan-links.ts, planEarlierLinks). Anything else keeps its value.
 */
import { Op } from 'sequelize';
import type { ImportParseSummary } from './format-contract.js';
import { externalKey } from './prepare-batch.js';
import type { ImportStore } from './store.js';
import type { CollectionInfo, LocalClient } from '../content/public.js';

/** A field of `entity` whose values are the records of the earlier import's `to` entity in `toCollection`. */
export interface EarlierLink {
  entity: string;
  field: string;
  to: string;
  toCollection: string;
  many?: boolean;
}

type Refs = NonNullable<ImportParseSummary['earlierRefs']>;

export async function earlierLinks(
  store: ImportStore,
  content: LocalClient,
  tenantId: string,
  format: string,
  refs: Refs,
  collections: CollectionInfo[],
): Promise<EarlierLink[]> {
  const out: EarlierLink[] = [];
  for (const ref of refs.slice(0, 50)) {
    const keys = [...new Set((Array.isArray(ref.values) ? ref.values : []).slice(0, 1000).map((v) => externalKey(String(v))))];
    if (!keys.length) continue;
    const rows = await store.links.findAll({
      where: { tenant_id: tenantId, format, external_id: { [Op.in]: keys } },
      attributes: ['entity', 'collection', 'external_id', 'entry_id'],
    });
    const holders = new Set(rows.map((r) => `${r.entity}\n${r.collection}`));
    if (holders.size !== 1 || new Set(rows.map((r) => r.external_id)).size !== keys.length || rows.length !== keys.length) continue;
    const [to, toCollection] = [...holders][0]!.split('\n') as [string, string];
    if (!collections.some((c) => c.name === toCollection)) continue;
    const alive = await content.entries(toCollection).existing(rows.map((r) => r.entry_id));
    if (rows.some((r) => !alive.has(r.entry_id))) continue;
    out.push({ entity: ref.entity, field: ref.field, to, toCollection, ...(ref.many ? { many: true } : {}) });
  }
  return out;
}
