import { Op, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { columnName, isManyRelation, type FieldDefinition } from './field-types.js';
import { RESERVED_FIELD_NAMES } from './names.js';

/** A collection as the inverse checks see it. */
interface Fields {
  name: string;
  fields: FieldDefinition[];
}

/** A read-only inverse field of a collection: `name` lists the entries of `source` whose `field` points at it. */
export interface InverseField {
  name: string;
  source: string;
  field: FieldDefinition;
}

/** The inverse fields `target` shows: one per relation to it (in any collection, itself included) that names one. */
export function inversesOf(target: string, all: Iterable<Fields>): InverseField[] {
  const out: InverseField[] = [];
  for (const c of all)
    for (const f of c.fields)
      if (f.type === 'relation' && f.collection === target && f.inverseName) out.push({ name: f.inverseName, source: c.name, field: f });
  return out;
}

/**
 * Why collection `name` with `fields` cannot be saved as it is, given the other collections `others`, or
 * undefined: an inverse name must not be reserved, nor a field of its target, nor the inverse of another
 * relation to the same target; and a field of `name` must not take the name of an inverse shown on it.
 * Answers the index of the field at fault with the reason.
 */
export function inverseClash(name: string, fields: FieldDefinition[], others: Fields[]): [number, string] | undefined {
  const all = [...others.filter((c) => c.name !== name), { name, fields }];
  const find = (n: string) => all.find((c) => c.name === n);
  for (const [i, f] of fields.entries()) {
    if (f.type !== 'relation' || !f.inverseName) continue;
    const key = f.inverseName.toLowerCase();
    if (RESERVED_FIELD_NAMES.has(key)) return [i, `the inverse name '${f.inverseName}' is reserved`];
    const target = find(f.collection!);
    if (target?.fields.some((x) => x.name.toLowerCase() === key))
      return [i, `the target '${f.collection}' already has a field '${f.inverseName}'`];
    const twice = inversesOf(f.collection!, all).filter((x) => x.name.toLowerCase() === key);
    if (twice.length > 1) return [i, `'${f.collection}' already shows an inverse field '${f.inverseName}'`];
  }
  const shown = new Set(inversesOf(name, all).map((x) => x.name.toLowerCase()));
  const i = fields.findIndex((f) => shown.has(f.name.toLowerCase()));
  return i >= 0 ? [i, `'${fields[i]!.name}' is the inverse field of a relation to '${name}'`] : undefined;
}

/** The pseudo-fields of inverse fields, to the inverse they stand for. */
const pseudo = new WeakMap<FieldDefinition, InverseField>();

/** The inverse a field of a read view stands for (undefined for a stored field). */
export const inverseOf = (f: FieldDefinition): InverseField | undefined => pseudo.get(f);

/**
 * A collection as reads see it: its fields, then one read-only many-relation per inverse field (to the
 * collection whose relation points here), so `populate`, `fields` and `filter` take inverse names as they
 * take relations. Never used to write: the pseudo-fields have no column.
 */
export function readView<C extends Fields>(c: C, inverses: InverseField[]): C {
  if (!inverses.length) return c;
  const extra = inverses.map((inv) => {
    const f: FieldDefinition = { name: inv.name, type: 'relation', collection: inv.source, cardinality: 'many' };
    pseudo.set(f, inv);
    return f;
  });
  return { ...c, fields: [...c.fields, ...extra] };
}

/** What filling inverse fields needs: the source collections, and what the caller may see. */
export interface InverseScope {
  tenantId: string;
  source(name: string): Promise<{ model: ModelStatic<Model> }>;
  readable(collection: string): boolean;
  publishedOnly: boolean;
  /**
   * The caller's read rule on the source collection (entry-access.ts): a condition its rows must meet (null: none),
   * or false when the rule hides the relation field itself (then the inverse lists nothing: it would tell it).
   */
  sourceRule?(source: string, field: string): Promise<WhereOptions | null | false>;
}

/**
 * Sets every inverse field of a page of entries (in place): the ids of the entries pointing at each one,
 * oldest first, among those the caller may see (none from a collection it may not read; published ones
 * only for readers of published entries; those its read rule on the source lets it read, none when that rule
 * hides the relation field). One query per inverse field, whatever the page size.
 */
export async function fillInverses(c: Fields, entries: Array<Record<string, unknown>>, scope: InverseScope): Promise<void> {
  const ids = entries.map((e) => String(e._id));
  for (const f of c.fields) {
    const inv = inverseOf(f);
    if (!inv) continue;
    const found = new Map<string, string[]>(ids.map((id) => [id, []]));
    const rule = ids.length && scope.readable(inv.source) ? ((await scope.sourceRule?.(inv.source, inv.field.name)) ?? null) : false;
    if (rule !== false) {
      const column = columnName(inv.field);
      const many = isManyRelation(inv.field);
      const { model } = await scope.source(inv.source);
      const where: WhereOptions = {
        tenant_id: scope.tenantId,
        ...(scope.publishedOnly ? { status: 'published' } : {}),
        // A many-relation is a JSON list of ids: an id is a UUID, so its quoted form matches only itself.
        ...(many ? { [Op.or]: ids.map((id) => ({ [column]: { [Op.like]: `%"${id}"%` } })) } : { [column]: { [Op.in]: ids } }),
      };
      const rows = (await model.findAll({
        attributes: ['id', column],
        where: rule ? { [Op.and]: [where, rule] } : where,
        order: [
          ['created_at', 'ASC'],
          ['id', 'ASC'],
        ],
        raw: true,
      })) as unknown as Array<Record<string, unknown>>;
      for (const r of rows) {
        const targets = many ? (JSON.parse(String(r[column] ?? '[]')) as string[]) : [String(r[column])];
        for (const target of targets) found.get(target)?.push(String(r.id));
      }
    }
    for (const e of entries) e[f.name] = found.get(String(e._id)) ?? [];
  }
}
