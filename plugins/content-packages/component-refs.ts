/**
 * Relation and media values inside component and blocks values. Components take the same field types
 * as collections, so a `cta` component may point at a page and a `hero` block at an image: in a package
 * those ids travel in the same form as top-level ones (`{$ref}`, `{$media}`), so they point at the
 * right entry and media record on the target. The walk follows the definitions each component or blocks
 * field carries (content's component resolution); a value it cannot place (an unknown block type, a
 * definition too deep) is left as it is.
 */
import { resolvedComponents, type FieldDefinition } from '../content/public.js';

/** A relation or media field inside a component, with its value (never null). */
export type NestedVisit = (field: FieldDefinition, value: unknown) => unknown;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export const holdsComponents = (f: FieldDefinition) => f.type === 'component' || f.type === 'blocks';

/** One component object with its relation and media values replaced by `visit`'s answers (a copy). */
function mapObject(fields: readonly FieldDefinition[] | undefined, value: unknown, visit: NestedVisit): unknown {
  if (!fields || !isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const g of fields) {
    const inner = value[g.name];
    if (inner === null || inner === undefined) continue;
    if (g.type === 'relation' || g.type === 'media') out[g.name] = visit(g, inner);
    else if (holdsComponents(g)) out[g.name] = mapComponentValue(g, inner, visit);
  }
  return out;
}

/**
 * The value of a component or blocks field with every relation and media value inside it (at any depth)
 * replaced by `visit(field, value)`. Other values are kept exactly; the input is not changed.
 */
export function mapComponentValue(f: FieldDefinition, value: unknown, visit: NestedVisit): unknown {
  const defs = resolvedComponents(f);
  if (!defs) return value;
  if (f.type === 'component') {
    const fields = defs[f.component!];
    return Array.isArray(value) ? value.map((item) => mapObject(fields, item, visit)) : mapObject(fields, value, visit);
  }
  if (!Array.isArray(value)) return value;
  return value.map((block) =>
    isObject(block) && typeof block.__component === 'string' ? mapObject(defs[block.__component], block, visit) : block,
  );
}

/** Calls `visit` for every relation and media value inside the component or blocks value (nothing is replaced). */
export function eachNested(f: FieldDefinition, value: unknown, visit: (field: FieldDefinition, value: unknown) => void): void {
  mapComponentValue(f, value, (g, v) => {
    visit(g, v);
    return v;
  });
}
