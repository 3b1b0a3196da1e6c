/**
 * Field type changes that can keep values (issue 35, item 6): which changes of a kept field are allowed and
 * how a stored value becomes one of the new field (or is lost: it does not fit). No database: the schema
 * plan (schema-plan.ts) counts with it and the table migration (table-migrations.ts) converts with it.
 */
import { ValidationError } from '../../kernel/sdk.js';
import { fromColumn, isList, toColumn, valueSchema } from './field-values.js';
import type { FieldDefinition } from './field-types.js';

/** Types whose values are one short string (a select's option too). */
const TEXT_LIKE = new Set(['text', 'email', 'url', 'color', 'select']);

/** The field stores its values the same way as before: nothing to convert. */
export function sameStorage(was: FieldDefinition, f: FieldDefinition): boolean {
  return (
    was.type === f.type &&
    (was.collection ?? null) === (f.collection ?? null) &&
    isList(was) === isList(f) &&
    (was.component ?? null) === (f.component ?? null) &&
    Boolean(was.repeatable) === Boolean(f.repeatable)
  );
}

/**
 * Whether a kept field may change from `was` to `f` by converting its values: between text, email, url,
 * colour and single select; number and boolean to those; those to number and to markdown; a single select
 * to a multiple one; a one-relation to a many-relation of the same target. Anything else is refused.
 */
export function convertible(was: FieldDefinition, f: FieldDefinition): boolean {
  if (sameStorage(was, f)) return true;
  if (was.type === 'relation' && f.type === 'relation') return was.collection === f.collection && !isList(was) && isList(f);
  if (was.type === 'select' && f.type === 'select') return !isList(was) && isList(f);
  if (isList(was) || isList(f)) return false;
  const from = TEXT_LIKE.has(was.type);
  if (TEXT_LIKE.has(f.type)) return from || was.type === 'number' || was.type === 'boolean';
  if (f.type === 'number' || f.type === 'markdown') return from;
  return false;
}

/** The API value of `was` as one of `f`, or undefined when it does not fit (the value is lost: it becomes null). */
export function convertValue(was: FieldDefinition, f: FieldDefinition, value: unknown): unknown {
  let v = value;
  if (isList(f) && !isList(was)) v = [v];
  else if (f.type === 'number' && typeof v === 'string') v = v.trim() === '' ? NaN : Number(v);
  else if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
  const checked = valueSchema(f).safeParse(v);
  return checked.success ? checked.data : undefined;
}

/** A stored (column) value of `was` as the stored value of `f`; null when it is lost. */
export function convertColumn(was: FieldDefinition, f: FieldDefinition, stored: unknown): unknown {
  const v = convertValue(was, f, fromColumn(was, stored));
  return v === undefined ? null : toColumn(f, v);
}

/**
 * 400 naming the first kept field of `after` whose change field-conversion cannot make: a type, target,
 * `multiple` or `cardinality` change the values cannot follow, or a component field's component or
 * `repeatable` (its stored JSON would no longer read).
 */
export function checkFieldChanges(before: FieldDefinition[], after: FieldDefinition[]): void {
  const old = new Map(before.map((f) => [f.name, f]));
  after.forEach((f, i) => {
    const was = old.get(f.name);
    if (!was) return;
    const componentChange =
      was.type === f.type && ((was.component ?? null) !== (f.component ?? null) || !!was.repeatable !== !!f.repeatable);
    if (componentChange)
      throw new ValidationError(`Field '${f.name}' cannot change its component or repeatable; add a new field and remove the old one`, [
        { path: `body.fields.${i}.component`, message: 'cannot change' },
      ]);
    if (!convertible(was, f))
      throw new ValidationError(
        `Field '${f.name}' cannot change from ${was.type} to ${f.type} here (or its target, multiple or cardinality this way); add a new field and remove the old one`,
        [{ path: `body.fields.${i}.type`, message: 'cannot change' }],
      );
  });
}
