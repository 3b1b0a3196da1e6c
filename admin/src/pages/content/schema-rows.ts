// The schema editor's rows (CollectionSchema.svelte): a field as the form edits it, and back.
import { measureOf, takesMultiple, takesPattern } from '../../../../plugins/content/field-rules';
import { FIELD_WIDGETS, type Field, type FieldType, type Widget } from './content';

/** `orig` keeps what the editor does not show (indexed, default), so saving a schema never drops it. */
export interface Row {
  key: number;
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  unique: boolean;
  options: string;
  collection: string;
  widget: string;
  /** The value rules (FieldRules.svelte); kept only where the type takes them. */
  multiple: boolean;
  /** relation: several entries (`cardinality: 'many'`), and the name of the inverse field on the target. */
  many: boolean;
  inverseName: string;
  min: number | null;
  max: number | null;
  pattern: string;
  /** component: the component it holds, once or as a list; blocks: the components its items may be. */
  component: string;
  repeatable: boolean;
  components: string[];
  isNew: boolean;
  orig: Field;
}
let nextKey = 1;

/** A field as a row of the editor; `isNew` rows may still change their type. */
export const toRow = (f: Field, isNew = false): Row => ({
  key: nextKey++,
  name: f.name,
  label: f.label ?? '',
  type: f.type,
  required: !!f.required,
  unique: !!f.unique,
  options: (f.options ?? []).join('\n'),
  collection: f.collection ?? '',
  widget: f.widget && f.widget !== FIELD_WIDGETS[f.type][0] ? f.widget : '',
  multiple: !!f.multiple,
  many: f.cardinality === 'many',
  inverseName: f.inverseName ?? '',
  min: f.min ?? null,
  max: f.max ?? null,
  pattern: f.pattern ?? '',
  component: f.component ?? '',
  repeatable: !!f.repeatable,
  components: [...(f.components ?? [])],
  isNew,
  orig: f,
});

/** A row back to the field the API takes. */
export function toField(r: Row): Field {
  const {
    label: _l,
    required: _r,
    unique: _u,
    options: _o,
    collection: _c,
    widget: _w,
    multiple: _m,
    cardinality: _k,
    inverseName: _i,
    min: _n,
    max: _x,
    pattern: _p,
    component: _cn,
    repeatable: _rp,
    components: _cs,
    ...kept
  } = r.orig;
  const f: Field = { ...kept, name: r.name.trim(), type: r.type };
  if (r.type !== r.orig.type) delete f.default;
  if (r.widget && (FIELD_WIDGETS[r.type] as readonly string[]).includes(r.widget)) f.widget = r.widget as Widget;
  if (r.label.trim()) f.label = r.label.trim();
  if (r.required) f.required = true;
  if (r.unique) f.unique = true;
  if (r.type === 'select')
    f.options = r.options
      .split(/\n|,/)
      .map((o) => o.trim())
      .filter(Boolean);
  if (r.type === 'relation') {
    f.collection = r.collection;
    if (r.many) f.cardinality = 'many';
    if (r.inverseName.trim()) f.inverseName = r.inverseName.trim();
  }
  if (r.type === 'component') {
    f.component = r.component;
    if (r.repeatable) f.repeatable = true;
  }
  if (r.type === 'blocks') f.components = [...r.components];
  if (r.multiple && takesMultiple(r)) f.multiple = true;
  const measured = !!measureOf({ type: r.type, multiple: !!f.multiple, cardinality: f.cardinality, repeatable: !!f.repeatable });
  if (measured && typeof r.min === 'number') f.min = r.min;
  if (measured && typeof r.max === 'number') f.max = r.max;
  if (r.pattern && takesPattern(r)) f.pattern = r.pattern;
  return f;
}
