/**
 * Schemas step of an import plan: existing collections must agree on field types (fields only in the
 * package are dropped, with a warning); missing ones are created first (relation targets first, and
 * only by someone with collections:manage).
 */
import { hasPermission } from '../../kernel/sdk.js';
import { creationOrder, relationTargets, resolveFields, type FieldDefinition, type LoadedCollection } from '../content/public.js';
import type { DataOperation } from '../data-ops/public.js';
import type { ImportPayload } from './import-staging.js';
import { incompatibilities, readSchema, type PackageSchema } from './import-schemas.js';
import type { PlanScope } from './plan-types.js';

/** The collections a package schema's relation fields target. */
const schemaTargets = (s: PackageSchema) => relationTargets(s.fields);

/** The package's collections against this instance's. */
export class PlanSchemas {
  /** This instance's collections, by name. */
  readonly here: Map<string, LoadedCollection>;
  /** The package's schemas (those that could be read), by name. */
  readonly schemas = new Map<string, PackageSchema>();
  /** The package's collections missing here. */
  readonly missing = new Map<string, PackageSchema>();

  constructor(collections: LoadedCollection[]) {
    this.here = new Map(collections.map((c) => [c.name, c]));
  }

  /** The fields values are imported into (the target's, or the created collection's). */
  targetFields(name: string): FieldDefinition[] {
    return this.here.get(name)?.fields ?? this.schemas.get(name)?.fields ?? [];
  }

  /** The target's fields the package brings. */
  commonFields(name: string): FieldDefinition[] {
    const brought = new Set((this.schemas.get(name)?.fields ?? []).map((f) => f.name));
    return this.targetFields(name).filter((f) => brought.has(f.name));
  }

  /** Every collection of the package, relation targets first. */
  order(s: PlanScope): string[] {
    return creationOrder(new Map(s.m.collections.map((c) => [c.name, schemaTargets(this.schemas.get(c.name)!)])));
  }
}

/** Reads the package's schemas, blocks on incompatible ones, and plans the creation of the missing collections. */
export async function planSchemas(
  s: PlanScope,
  components: ReadonlyMap<string, { readonly fields: readonly FieldDefinition[] }>,
): Promise<{ schemas: PlanSchemas; operations: Array<DataOperation<ImportPayload>> }> {
  const { notes, m } = s;
  const p = new PlanSchemas(s.d.collections.list());
  for (const c of m.collections) {
    const read = await readSchema(s.root, c.name, c.schemaFile);
    if (typeof read === 'string') notes.block(read);
    else p.schemas.set(c.name, { ...read, fields: resolveFields(read.fields, components) });
  }
  for (const [name, schema] of p.schemas) {
    const target = p.here.get(name);
    if (target) {
      for (const problem of incompatibilities(name, target.fields, schema.fields)) notes.block(problem);
      const names = new Set(target.fields.map((f) => f.name));
      const dropped = schema.fields.filter((f) => !names.has(f.name)).map((f) => f.name);
      if (dropped.length)
        notes.warn(`collection '${name}': fields ${dropped.join(', ')} are not in this instance's schema; their values are dropped`, name);
    } else p.missing.set(name, schema);
  }
  for (const [name, schema] of p.missing)
    for (const t of schemaTargets(schema))
      if (t !== name && !p.here.has(t) && !p.missing.has(t))
        notes.block(`collection '${name}' relates to '${t}', which exists neither here nor in the package`);
  if (p.missing.size && !hasPermission(s.identity, 'collections:manage'))
    notes.block(`collections ${[...p.missing.keys()].join(', ')} do not exist here: creating them needs the permission collections:manage`);
  const operations: Array<DataOperation<ImportPayload>> = [];
  for (const name of creationOrder(new Map([...p.missing].map(([n, x]) => [n, schemaTargets(x)])))) {
    const x = p.missing.get(name)!;
    operations.push({
      action: 'create',
      type: 'collection',
      target: name,
      count: 1,
      outsideTransaction: true,
      payload: { kind: 'collection', name, label: x.label, singular: x.singular, fields: x.fields },
    });
  }
  return { schemas: p, operations };
}
