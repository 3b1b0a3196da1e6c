/**
 * Components in a package (issue 35: components are configuration that content needs). The export writes
 * `components.json`, the definitions of every component the exported collections use (directly, inside
 * other components or as block types), and names it in the manifest (`components`). The import plan puts
 * them first: a component missing here is created (needs collections:manage), used components first; one
 * that exists here must hold every field the package's has, with the same type and target, or the plan is
 * blocked (component values are stored whole, so a field missing here would be lost, not dropped with a
 * warning as a collection's column is). Fields only here are fine. Components are never changed by an
 * import: promoting a changed component is configuration promotion's work.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hasPermission } from '../../kernel/sdk.js';
import { COLLECTION_NAME, componentsUsedBy, creationOrder, type ComponentDefinition, type FieldDefinition } from '../content/public.js';
import type { DataOperation } from '../data-ops/public.js';
import { incompatibilities } from './import-schemas.js';
import type { ImportPayload } from './import-staging.js';
import { safeRelativePath } from './package-reader.js';
import type { PlanScope } from './plan-types.js';

/** The file the export writes, at the package's top. */
export const COMPONENTS_FILE = 'components.json';
const COMPONENTS_MAX_BYTES = 4 * 1024 * 1024;
const MAX_COMPONENTS = 500;

const componentsFileSchema = z
  .array(
    z.object({
      name: z.string().regex(COLLECTION_NAME),
      label: z.string().max(200),
      fields: z.array(z.object({ name: z.string().max(64), type: z.string().max(32) }).passthrough()).max(200),
    }),
  )
  .max(MAX_COMPONENTS);
export type PackageComponent = Pick<ComponentDefinition, 'name' | 'label' | 'fields'>;

/** The components `fields` use, with the components those use in turn, from `definitions` (unknown names left out). */
export function componentsFor(
  fieldLists: ReadonlyArray<ReadonlyArray<FieldDefinition>>,
  definitions: ReadonlyMap<string, ComponentDefinition>,
): PackageComponent[] {
  const seen = new Map<string, PackageComponent>();
  const visit = (fields: ReadonlyArray<FieldDefinition>) => {
    for (const name of componentsUsedBy(fields)) {
      const c = definitions.get(name);
      if (!c || seen.has(name)) continue;
      seen.set(name, { name: c.name, label: c.label, fields: c.fields });
      visit(c.fields);
    }
  };
  for (const fields of fieldLists) visit(fields);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The package's components file, or a problem naming it. */
async function readComponents(root: string, file: string): Promise<PackageComponent[] | string> {
  if (!safeRelativePath(file)) return 'manifest.json: unusable components path';
  const path = join(root, file);
  const s = await stat(path).catch(() => null);
  if (!s?.isFile()) return `'${file}' (the components) is missing`;
  if (s.size > COMPONENTS_MAX_BYTES) return `'${file}' (the components) is too large`;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return `'${file}' (the components) is not valid JSON`;
  }
  const parsed = componentsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `'${file}' (the components): ${issue.path.join('.') || '(root)'}: ${issue.message}`;
  }
  return parsed.data as unknown as PackageComponent[];
}

/** Why the package's component cannot be imported into the one here (empty: it can). */
function componentProblems(incoming: PackageComponent, here: ComponentDefinition): string[] {
  const names = new Set(here.fields.map((f) => f.name));
  const missing = incoming.fields.filter((f) => !names.has(f.name)).map((f) => f.name);
  const out = incompatibilities(incoming.name, here.fields, incoming.fields).map(
    (p) => `${p.replace(/^collection /, 'component ')} (promote the component first)`,
  );
  if (missing.length)
    out.push(
      `component '${incoming.name}': fields ${missing.join(', ')} are in the package but not here; their values would be lost (promote the component first)`,
    );
  return out;
}

export interface PlannedComponents {
  operations: Array<DataOperation<ImportPayload>>;
  /** The components here and those the plan creates: what the package's collections resolve their fields against. */
  definitions: ReadonlyMap<string, Pick<ComponentDefinition, 'fields'>>;
}

/** Blocks on components that differ here, plans the creation of the missing ones (used ones first). */
export async function planComponents(s: PlanScope, definitions: ReadonlyMap<string, ComponentDefinition>): Promise<PlannedComponents> {
  const file = s.m.components?.file;
  if (!file) return { operations: [], definitions };
  const read = await readComponents(s.root, file);
  if (typeof read === 'string') {
    s.notes.block(read);
    return { operations: [], definitions };
  }
  const missing = new Map<string, PackageComponent>();
  for (const c of read) {
    const here = definitions.get(c.name);
    if (here) for (const problem of componentProblems(c, here)) s.notes.block(problem);
    else missing.set(c.name, c);
  }
  if (!missing.size) return { operations: [], definitions };
  if (!hasPermission(s.identity, 'collections:manage'))
    s.notes.block(`components ${[...missing.keys()].join(', ')} do not exist here: creating them needs the permission collections:manage`);
  for (const c of missing.values())
    for (const used of componentsUsedBy(c.fields))
      if (!missing.has(used) && !definitions.has(used))
        s.notes.block(`component '${c.name}' uses '${used}', which exists neither here nor in the package`);
  const order = creationOrder(new Map([...missing].map(([n, c]) => [n, [...componentsUsedBy(c.fields)].filter((u) => missing.has(u))])));
  const operations = order.map((name): DataOperation<ImportPayload> => {
    const c = missing.get(name)!;
    return {
      action: 'create',
      type: 'component',
      target: name,
      count: 1,
      outsideTransaction: true,
      payload: { kind: 'component', name, label: c.label, fields: c.fields },
    };
  });
  return { operations, definitions: new Map([...definitions, ...missing]) };
}
