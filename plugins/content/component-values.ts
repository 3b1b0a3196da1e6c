/**
 * The values of `component` and `blocks` fields (API decisions, "Content model v2"): a component's value is
 * an object of its fields (an array of them when repeatable), a blocks value an ordered array of
 * `{__component, ...fields}`. Checking them needs the components' field lists, which live in the database:
 * the collections service gives every component or blocks field a copy that carries them, resolved
 * (collections-service.ts, component-resolution.ts), so this stays pure (worker tasks load it too).
 * The resolution is a non-enumerable key: it is never answered, stored or exported with the schema.
 */
import { z } from 'zod';
import type { FieldDefinition } from './field-types.js';

/** Per component name: its fields, each of them resolved in turn when it is a component or blocks field. */
export type ResolvedComponents = Readonly<Record<string, readonly FieldDefinition[]>>;

const RESOLVED = '__resolvedComponents';

/** Longest JSON text of one component or blocks value. */
const VALUE_MAX = 1_000_000;

/** The component definitions resolved for this field (undefined when it has none: it is then refused). */
export function resolvedComponents(field: object): ResolvedComponents | undefined {
  return (field as Record<string, unknown>)[RESOLVED] as ResolvedComponents | undefined;
}

/** A copy of the field that carries its resolved component definitions (a key JSON never writes). */
export function withResolvedComponents<T extends object>(field: T, resolved: ResolvedComponents): T {
  const copy = { ...field };
  Object.defineProperty(copy, RESOLVED, { value: resolved, enumerable: false });
  return copy;
}

/**
 * The fields with their resolutions as plain keys, for a worker thread (a structured clone drops
 * non-enumerable keys): the importers' prepare task checks component values as the API does.
 */
export function portableFields(fields: readonly FieldDefinition[]): FieldDefinition[] {
  return fields.map((f) => {
    const resolved = resolvedComponents(f);
    if (!resolved) return f;
    return { ...f, [RESOLVED]: Object.fromEntries(Object.entries(resolved).map(([n, list]) => [n, portableFields(list)])) };
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object of one component: its fields' own rules, `required` and defaults (applied when the key is absent). */
function componentObject(
  name: string,
  fields: readonly FieldDefinition[] | undefined,
  valueOf: (f: FieldDefinition) => z.ZodType,
  tagged: boolean,
): z.ZodType {
  if (!fields) return z.unknown().refine(() => false, `the component '${name}' is not available`);
  const shape: Record<string, z.ZodType> = {};
  for (const f of fields) shape[f.name] = valueOf(f).nullable().optional();
  if (tagged) shape.__component = z.literal(name);
  const defaults = fields.filter((f) => f.default !== undefined && f.default !== null);
  const object = z.strictObject(shape).superRefine((v: Record<string, unknown>, ctx) => {
    for (const f of fields)
      if (f.required && (v[f.name] === undefined || v[f.name] === null))
        ctx.addIssue({ code: 'custom', path: [f.name], message: 'required' });
  });
  if (!defaults.length) return object;
  return z.preprocess((v) => {
    if (!isObject(v)) return v;
    const out = { ...v };
    for (const f of defaults) if (!(f.name in out)) out[f.name] = f.default;
    return out;
  }, object);
}

/** The schema of a component or blocks field's value; `valueOf` is field-values.ts valueSchema (for the fields inside). */
export function componentValueSchema(field: FieldDefinition, valueOf: (f: FieldDefinition) => z.ZodType): z.ZodType {
  const resolved = resolvedComponents(field) ?? {};
  const sized = (s: z.ZodType) => s.refine((v) => JSON.stringify(v).length <= VALUE_MAX, 'a value of at most 1 MB as JSON');
  if (field.type === 'component') {
    const one = componentObject(field.component!, resolved[field.component!], valueOf, false);
    return sized(field.repeatable ? z.array(one) : one);
  }
  const names = field.components ?? [];
  const byName = new Map(names.map((n) => [n, componentObject(n, resolved[n], valueOf, true)]));
  const block = z.unknown().transform((v, ctx) => {
    const name = isObject(v) ? v.__component : undefined;
    const schema = typeof name === 'string' ? byName.get(name) : undefined;
    if (!schema) {
      const message = isObject(v) ? `__component is one of ${names.join(', ')}` : 'expected an object with __component';
      ctx.addIssue({ code: 'custom', path: isObject(v) ? ['__component'] : [], message, input: v });
      return z.NEVER;
    }
    const parsed = schema.safeParse(v);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    for (const issue of parsed.error.issues) {
      if (issue.code !== 'unrecognized_keys') ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: v });
      else
        for (const k of issue.keys)
          ctx.addIssue({ code: 'custom', path: [...issue.path, k], message: `'${k}' is not a field of '${name}'`, input: v });
    }
    return z.NEVER;
  });
  return sized(z.array(block));
}
