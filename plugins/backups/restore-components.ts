/**
 * Components in a backup (issue 35): the rows of content_components are in config.json (`components`; a
 * backup made before components has none). A restore puts the backup's components back before it creates
 * missing collections (whose component and blocks fields need them): one operation per component that is
 * missing here or defined differently, outside the transaction (through the content plugin's components
 * service, so every instance reloads them), used components first; each has an undo that puts back what was
 * here. Components only here are left as they are (with a warning), as collections are.
 */
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import { componentsUsedBy, creationOrder, type ComponentsService, type FieldDefinition } from '../content/public.js';
import type { Row } from './tables.js';

export interface SavedComponent {
  name: string;
  label: string;
  fields: FieldDefinition[];
}

type Draft = { operations: DataOperation[]; warnings: PlanDraft['warnings'] };

/** The components config.json holds (rows of content_components), read leniently: a row it cannot read is left out. */
export function savedComponents(rows: Row[] | undefined): SavedComponent[] {
  const out: SavedComponent[] = [];
  for (const r of rows ?? []) {
    try {
      const fields: unknown = typeof r.fields === 'string' ? JSON.parse(r.fields) : r.fields;
      if (typeof r.name === 'string' && Array.isArray(fields))
        out.push({ name: r.name, label: typeof r.label === 'string' ? r.label : r.name, fields: fields as FieldDefinition[] });
    } catch {
      // Not JSON: not a component this restore can put back.
    }
  }
  return out;
}

/** One operation per component of the backup that is missing here or differs, in the order they use each other. */
export function planComponents(saved: SavedComponent[], here: ComponentsService | undefined, draft: Draft): void {
  if (!saved.length) return;
  if (!here) {
    draft.warnings.push({ message: 'The backup holds components but the content plugin has none here: they are left out' });
    return;
  }
  const current = here.definitions();
  const byName = new Map(saved.map((c) => [c.name, c]));
  const order = creationOrder(new Map(saved.map((c) => [c.name, [...componentsUsedBy(c.fields)].filter((n) => byName.has(n))])));
  for (const name of order) {
    const c = byName.get(name)!;
    const now = current.get(name);
    if (now && now.label === c.label && JSON.stringify(now.fields) === JSON.stringify(c.fields)) continue;
    draft.operations.push({
      action: now ? 'update' : 'create',
      type: 'component',
      target: name,
      count: 1,
      outsideTransaction: true,
      payload: { kind: 'component', name, label: c.label, fields: c.fields },
    });
  }
  for (const c of current.values())
    if (!byName.has(c.name)) draft.warnings.push({ message: `Component '${c.name}' is not in the backup: left as it is`, item: c.name });
}

/** Puts one component back; the undo restores what was here (or removes the one it created). */
export async function restoreComponent(components: ComponentsService | undefined, p: SavedComponent): Promise<() => Promise<void>> {
  if (!components) throw new Error('The content plugin has no components service here');
  const before = components.definitions().get(p.name);
  // The restore puts the backup's entries back as well: its field list is taken as it is (no rewrite of today's entries).
  if (before) await components.update(p.name, { label: p.label, fields: p.fields }, undefined, true);
  else await components.create({ name: p.name, label: p.label, fields: p.fields });
  return async () => {
    if (before) await components.update(p.name, { label: before.label, fields: before.fields }, undefined, true);
    else await components.remove(p.name);
  };
}
