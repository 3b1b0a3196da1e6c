/**
 * How component and blocks fields find their components' field lists (no database: the services pass the
 * definitions they hold). Components may use components three levels deep (a collection's component field
 * is the first level); a deeper chain, a cycle or an unknown name is refused where it would be written.
 */
import { withResolvedComponents, type ResolvedComponents } from './component-values.js';
import type { FieldDefinition } from './field-types.js';

/** Components nest at most this many levels (API decisions, "Content model v2"). */
export const COMPONENT_DEPTH = 3;

export type ComponentDefs = ReadonlyMap<string, { readonly fields: readonly FieldDefinition[] }>;

export interface NestingIssue {
  path: string;
  message: string;
}

/** The component names a field uses, and the key that names them. */
function usedBy(f: FieldDefinition): { key: 'component' | 'components'; names: string[] } | undefined {
  if (f.type === 'component' && f.component) return { key: 'component', names: [f.component] };
  if (f.type === 'blocks' && f.components) return { key: 'components', names: f.components };
  return undefined;
}

/**
 * Copies of the fields whose component and blocks fields carry their components' definitions, resolved in
 * turn down to COMPONENT_DEPTH levels (a component missing, or deeper, is left out: its values are refused).
 * A list without such fields is answered as it is.
 */
export function resolveFields(fields: readonly FieldDefinition[], defs: ComponentDefs, level = 1): FieldDefinition[] {
  if (!fields.some((f) => usedBy(f))) return fields as FieldDefinition[];
  return fields.map((f) => {
    const used = usedBy(f);
    if (!used) return f;
    const resolved: Record<string, readonly FieldDefinition[]> = {};
    if (level <= COMPONENT_DEPTH)
      for (const n of used.names) {
        const d = defs.get(n);
        if (d) resolved[n] = resolveFields(d.fields, defs, level + 1);
      }
    return withResolvedComponents(f, resolved as ResolvedComponents);
  });
}

/** Whether the field list uses any component. */
export const usesComponents = (fields: readonly FieldDefinition[]) => fields.some((f) => usedBy(f) !== undefined);

/** Unknown component names in a collection's (or component's) field list, naming each field. */
export function unknownComponentIssues(fields: readonly FieldDefinition[], defs: ComponentDefs, self?: string): NestingIssue[] {
  const out: NestingIssue[] = [];
  fields.forEach((f, i) => {
    const used = usedBy(f);
    for (const n of used?.names ?? [])
      if (n !== self && !defs.has(n))
        out.push({ path: `body.fields.${i}.${used!.key}`, message: `'${f.name}' uses an unknown component '${n}'` });
  });
  return out;
}

const isCycle = (chain: string[]) => new Set(chain).size !== chain.length;

/** The longest chain of components that continues `chain` (a cycle is answered as soon as it is found). */
function deepest(chain: string[], defs: ComponentDefs): string[] {
  const here = chain[chain.length - 1]!;
  if (isCycle(chain) || chain.length > COMPONENT_DEPTH + 1) return chain;
  let best = chain;
  for (const f of defs.get(here)?.fields ?? [])
    for (const n of usedBy(f)?.names ?? []) {
      const c = deepest([...chain, n], defs);
      if (isCycle(c)) return c;
      if (c.length > best.length) best = c;
    }
  return best;
}

/**
 * What is wrong with component `name` taking `fields`, next to the other definitions: unknown components,
 * and chains through it that nest deeper than COMPONENT_DEPTH or come back to a component (each issue names
 * the field of `name` that leads there, and the chain).
 */
export function componentNestingIssues(name: string, fields: readonly FieldDefinition[], defs: ComponentDefs): NestingIssue[] {
  const unknown = unknownComponentIssues(fields, defs, name);
  if (unknown.length) return unknown;
  const all = new Map(defs);
  all.set(name, { fields });
  const out: NestingIssue[] = [];
  for (const start of all.keys()) {
    const chain = deepest([start], all);
    const at = chain.indexOf(name);
    if (at < 0 || at === chain.length - 1 || (!isCycle(chain) && chain.length <= COMPONENT_DEPTH)) continue;
    const next = chain[at + 1]!;
    const i = fields.findIndex((f) => usedBy(f)?.names.includes(next));
    const key = usedBy(fields[i]!)?.key ?? 'component';
    const message = isCycle(chain)
      ? `components may not use themselves: ${chain.join(' > ')}`
      : `components nest at most ${COMPONENT_DEPTH} levels deep: ${chain.join(' > ')}`;
    out.push({ path: `body.fields.${i}.${key}`, message });
    break;
  }
  return out;
}
