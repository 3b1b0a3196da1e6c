// An entry's values as the entry form edits them (toForm) and back as the API takes them (toBody), field by
// field and recursively through component and blocks fields (components hold components, three levels deep).
// Form values: dates as datetime-local text, JSON as text, numbers as typed; a component as an object of its
// fields' form values; a repeatable component or blocks as a list of items (`FormItem`) the list editor orders.
import { isListField, toLocalInput, type ComponentDef, type Field } from './content';

/** One item of a repeatable component or blocks field in the form: `kind` is its component. */
export interface FormItem {
  key: number;
  open: boolean;
  kind: string;
  value: Record<string, any>;
}
export type ComponentMap = ReadonlyMap<string, ComponentDef>;
let nextKey = 1;

/** A component object's fields as form values (a value whose component is unknown is kept as it is). */
export function toFormObject(def: ComponentDef | undefined, v: unknown, comps: ComponentMap): Record<string, any> {
  const obj = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  if (!def) return { ...obj };
  const out: Record<string, any> = {};
  for (const f of def.fields) out[f.name] = toForm(f, obj ? obj[f.name] : (f.default ?? null), comps);
  return out;
}

/** A new item of the list editor: its component's defaults, open. */
export const newItem = (kind: string, comps: ComponentMap, v: unknown = null, open = true): FormItem => ({
  key: nextKey++,
  open,
  kind,
  value: toFormObject(comps.get(kind), v, comps),
});

export function toForm(f: Field, v: unknown, comps: ComponentMap): unknown {
  if (f.type === 'component' && !f.repeatable) return toFormObject(comps.get(f.component ?? ''), v, comps);
  if (f.type === 'component' || f.type === 'blocks') {
    const list = Array.isArray(v) ? (v as Record<string, unknown>[]) : [];
    // Stored items start collapsed when there are many, so a long page stays readable.
    return list.map((item) => newItem(f.type === 'blocks' ? String(item?.__component ?? '') : f.component!, comps, item, list.length <= 3));
  }
  if (f.type === 'date') return toLocalInput(v);
  if (f.type === 'json') return v === null || v === undefined ? '' : JSON.stringify(v, null, 2);
  if (f.type === 'boolean') return Boolean(v);
  if (isListField(f)) return Array.isArray(v) ? [...v] : [];
  if (v === null || v === undefined) return f.type === 'number' ? null : '';
  return v;
}

/** Problems found before sending (a JSON text that does not parse), by path as the API names issues. */
export type LocalIssues = Record<string, string>;

/** A component's form values back to the API's object; every value empty -> null (an optional component left blank). */
export function toBodyObject(def: ComponentDef | undefined, v: Record<string, any>, comps: ComponentMap, path: string, local: LocalIssues) {
  if (!def) return v;
  const out: Record<string, unknown> = {};
  for (const f of def.fields) out[f.name] = toBody(f, v[f.name], comps, `${path}.${f.name}`, local);
  return out;
}
const blank = (o: Record<string, unknown>) => Object.values(o).every((x) => x === null || (Array.isArray(x) && !x.length));

/** Form value back to the API's: empty -> null, dates to ISO, numbers, JSON parsed (a parse error goes to `local`). */
export function toBody(f: Field, v: any, comps: ComponentMap, path: string, local: LocalIssues): unknown {
  if (f.type === 'component' && !f.repeatable) {
    const obj = toBodyObject(comps.get(f.component ?? ''), v ?? {}, comps, path, local);
    return blank(obj) ? null : obj;
  }
  if (f.type === 'component' || f.type === 'blocks')
    return ((v ?? []) as FormItem[]).map((item, i) => {
      const obj = toBodyObject(comps.get(item.kind), item.value, comps, `${path}.${i}`, local);
      return f.type === 'blocks' ? { __component: item.kind, ...obj } : obj;
    });
  if (f.type === 'boolean') return Boolean(v);
  if (f.type === 'number') return v === '' || v === null || v === undefined ? null : Number(v);
  if (f.type === 'date') return v ? new Date(v).toISOString() : null;
  if (f.type === 'select' && f.multiple) return Array.isArray(v) && v.length ? v : null;
  if (isListField(f)) return Array.isArray(v) ? v : []; // a many-relation: its entries in order
  if (f.type === 'json') {
    if (typeof v !== 'string' || !v.trim()) return null;
    try {
      return JSON.parse(v);
    } catch (err) {
      local[path] = `not valid JSON: ${(err as Error).message}`;
      return undefined;
    }
  }
  return v === '' || v === undefined ? null : v;
}
