/**
 * The first steps of an import run (runner.ts), before any record: the collections the plan scaffolds are
 * created, then each mapped entity's target is resolved into what the pool's prepare task needs.
 */
import { SOURCE_FIELD } from './field-names.js';
import type { ImportPlan } from './planner.js';
import type { CollectionInfo, LocalClient } from '../content/public.js';
import { portableFields } from '../content/public-values.js';
import type { PrepareTarget } from './prepare-batch.js';

/**
 * The plan's new collections in an order that creates every relation's target first (a collection may relate to
 * itself); a cycle between new collections keeps the plan's order for the rest (scaffoldMissing adds such a field later).
 */
function creationOrder(plan: ImportPlan, existing: Set<string>): ImportPlan['scaffoldCollections'] {
  const left = plan.scaffoldCollections.filter((s) => !existing.has(s.name));
  const out: ImportPlan['scaffoldCollections'] = [];
  const made = new Set(existing);
  while (left.length) {
    const ready = left.findIndex((s) => s.fields.every((f) => !f.collection || f.collection === s.name || made.has(f.collection)));
    const [next] = left.splice(Math.max(0, ready), 1);
    out.push(next!);
    made.add(next!.name);
  }
  return out;
}

/**
 * Creates the plan's missing collections, named in `scaffolded` as they are made (a failed run removes them). In a
 * cycle between new collections (products <-> variants) a relation to one not made yet is added once it is.
 */
export async function scaffoldMissing(content: LocalClient, plan: ImportPlan, scaffolded: string[]): Promise<void> {
  const existing = new Set((await content.collections.list()).map((c) => c.name));
  const deferred: ImportPlan['scaffoldCollections'] = [];
  // Each field carries its default editing widget (the admin UI's entry editor follows it).
  const withWidgets = (s: ImportPlan['scaffoldCollections'][number]) =>
    s.fields.map((f) => (s.widgets[f.name] ? { ...f, widget: s.widgets[f.name] } : f));
  for (const s of creationOrder(plan, existing)) {
    if (existing.has(s.name)) continue;
    const later = (f: { collection?: string }) => !!f.collection && f.collection !== s.name && !existing.has(f.collection);
    const fields = withWidgets(s);
    await content.collections.create({ name: s.name, fields: fields.filter((f) => !later(f)) });
    existing.add(s.name);
    scaffolded.push(s.name);
    if (fields.some(later)) deferred.push(s);
  }
  for (const s of deferred) await content.collections.update(s.name, { fields: withWidgets(s) });
}

/** The target collections' schemas (read once) and, per mapped entity, its prepare target. */
export async function resolveTargets(
  content: LocalClient,
  plan: ImportPlan,
  targets: Map<string, string>,
): Promise<{ infos: Map<string, CollectionInfo>; prepareTargets: Record<string, PrepareTarget> }> {
  const infos = new Map<string, CollectionInfo>();
  for (const name of new Set(targets.values())) infos.set(name, await content.collections.get(name));
  const mappings = new Map<string, Map<string, string>>();
  // A relation link's field is filled after the records are written (resolve-links.ts), never from the source value.
  const linked = new Set((plan.links ?? []).filter((l) => l.as === 'relation').map((l) => `${l.entity}\n${l.into}`));
  for (const m of plan.fieldMappings)
    if (m.targetField && !linked.has(`${m.entity}\n${m.targetField}`))
      (mappings.get(m.entity) ?? mappings.set(m.entity, new Map()).get(m.entity)!).set(m.sourceField, m.targetField);
  const prepareTargets: Record<string, PrepareTarget> = {};
  for (const [entity, collection] of targets) {
    const info = infos.get(collection)!;
    const map = Object.fromEntries(mappings.get(entity) ?? []);
    const media = map.file && info.fields.find((f) => f.name === map.file)?.type === 'media' ? map.file : undefined;
    prepareTargets[entity] = {
      collection,
      version: info.version,
      // Component fields carry their components' definitions across to the worker thread.
      fields: portableFields(info.fields as PrepareTarget['fields']),
      map,
      ...(media ? { mediaField: media } : {}),
      source: info.fields.some((f) => f.name === SOURCE_FIELD),
      ...(plan.operations.find((o) => o.sourceType === entity)?.statuses === 'draft' ? { draft: true } : {}),
    };
  }
  return { infos, prepareTargets };
}
