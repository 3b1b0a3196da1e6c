/**
 * What a schema change does to the values already stored (issue 35, item 6), before it is made: per field
 * `added`, `kept`, `converted` (values of the old type turned into the new one; those that do not fit are
 * lost) or `dropped` (every value lost), counted over every tenant's entries (a schema is shared). A change
 * that would lose values needs the plan's `planHash` back with the PATCH (409 SCHEMA_CHANGE_LOSES_DATA
 * otherwise), so no data goes silently.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { Op, type Model, type ModelStatic } from 'sequelize';
import { z } from 'zod';
import { defineError } from '../../kernel/sdk.js';
import type { CollectionPatch } from './collection-schema.js';
import { removedBlockTypes, withoutBlocks } from './component-rewrite.js';
import { convertValue, sameStorage } from './field-conversion.js';
import { columnName, fromColumn, type FieldDefinition } from './field-types.js';

/** A schema plan as POST .../schema/plan answers it (the one definition of its shape). */
/** One field's line of a plan (collections and components). */
export const fieldPlanSchema = z.object({
  field: z.string(),
  change: z.enum(['added', 'kept', 'converted', 'dropped']),
  /** converted: the type before and after (`select (multiple)`, `relation (many)`). */
  from: z.string().optional(),
  to: z.string().optional(),
  /** Entries (a component's plan: instances of the component) holding a value of the field now. */
  values: z.number(),
  /** Of those, values the change loses (all of a dropped field; those that do not fit the new type). */
  lost: z.number(),
  /** converted: up to 20 distinct values that would be lost, as text. */
  lostExamples: z.array(z.string()).optional(),
  /** A blocks field whose allowed components shrank: the blocks dropped per component (counted in lost). */
  droppedBlocks: z.array(z.object({ component: z.string(), blocks: z.number() })).optional(),
});

export const schemaPlanSchema = z.object({
  collection: z.string(),
  /** The schema version the plan was made against: another change in between makes a new plan necessary. */
  version: z.number(),
  entries: z.number(),
  fields: z.array(fieldPlanSchema),
  losesData: z.boolean(),
  /** Send it back as `planHash` with the PATCH to confirm a change that loses data. */
  planHash: z.string(),
});
export type SchemaPlan = z.output<typeof schemaPlanSchema>;
export type FieldPlan = SchemaPlan['fields'][number];

export class SchemaChangeLosesDataError extends defineError(
  'SCHEMA_CHANGE_LOSES_DATA',
  409,
  'The schema change would lose stored values (a dropped field, values that do not fit a new type, blocks of a type no longer allowed): plan it with POST /api/collections/{collection}/schema/plan (a component: POST /api/components/{name}/schema/plan) and send its planHash with the PATCH.',
  (plan: { fields: ReadonlyArray<Pick<FieldPlan, 'field' | 'change' | 'lost'>>; planHash: string }) => ({
    message: `The change would lose ${plan.fields
      .filter((f) => f.lost > 0)
      .map((f) => `${f.lost} value(s) of '${f.field}' (${f.change})`)
      .join(', ')}; send planHash ${plan.planHash} with the PATCH to confirm`,
    extra: { plan },
  }),
) {}

/** A field's type as plans name it. */
export const describeField = (f: FieldDefinition) =>
  f.type + (f.type === 'select' && f.multiple ? ' (multiple)' : f.type === 'relation' && f.cardinality === 'many' ? ' (many)' : '');

const PAGE = 1000;

/** Every stored value of a column (non-null), page by page on the primary key. */
async function* storedValues(model: ModelStatic<Model>, column: string): AsyncGenerator<unknown> {
  let after: string | null = null;
  for (;;) {
    const rows = (await model.findAll({
      attributes: ['id', column],
      where: { [column]: { [Op.not]: null }, ...(after === null ? {} : { id: { [Op.gt]: after } }) },
      order: [['id', 'ASC']],
      limit: PAGE,
      raw: true,
    })) as unknown as Array<Record<string, unknown>>;
    for (const r of rows) yield r[column];
    if (rows.length < PAGE) return;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** A kept blocks field whose allowed components shrink: the blocks of the removed types are lost. */
async function keptBlocks(model: ModelStatic<Model>, was: FieldDefinition, f: FieldDefinition, removed: Set<string>): Promise<FieldPlan> {
  let values = 0;
  let lost = 0;
  const counts = new Map<string, number>();
  for await (const stored of storedValues(model, columnName(was))) {
    values++;
    const blocks = fromColumn(was, stored);
    if (Array.isArray(blocks)) lost += blocks.length - withoutBlocks(blocks, removed, counts).length;
  }
  const droppedBlocks = [...counts].map(([component, blocks]) => ({ component, blocks }));
  return { field: f.name, change: 'kept', values, lost, ...(droppedBlocks.length ? { droppedBlocks } : {}) };
}

/** One kept field's plan: how many values it holds and, when its type changes, how many of them fit. */
async function keptField(model: ModelStatic<Model>, was: FieldDefinition, f: FieldDefinition): Promise<FieldPlan> {
  const column = columnName(was);
  if (sameStorage(was, f)) {
    const removed = removedBlockTypes(was, f);
    if (removed.size) return keptBlocks(model, was, f, removed);
    return { field: f.name, change: 'kept', values: await model.count({ where: { [column]: { [Op.not]: null } } }), lost: 0 };
  }
  let values = 0;
  let lost = 0;
  const examples = new Set<string>();
  for await (const stored of storedValues(model, column)) {
    values++;
    const before = fromColumn(was, stored);
    if (convertValue(was, f, before) !== undefined) continue;
    lost++;
    if (examples.size < 20) examples.add(typeof before === 'string' ? before : JSON.stringify(before));
  }
  return {
    field: f.name,
    change: 'converted',
    from: describeField(was),
    to: describeField(f),
    values,
    lost,
    ...(lost ? { lostExamples: [...examples] } : {}),
  };
}

/** The plan of changing `c` (its fields `before`, at `version`) as `patch` says. */
export async function planSchemaChange(
  c: { name: string; version: number; model: ModelStatic<Model> },
  before: FieldDefinition[],
  patch: CollectionPatch,
): Promise<SchemaPlan> {
  const after = patch.fields ?? before;
  const old = new Map(before.map((f) => [f.name, f]));
  const fields: FieldPlan[] = [];
  for (const f of after) {
    const was = old.get(f.name);
    fields.push(was ? await keptField(c.model, was, f) : { field: f.name, change: 'added', values: 0, lost: 0 });
  }
  for (const was of before) {
    if (after.some((f) => f.name === was.name)) continue;
    const values = await c.model.count({ where: { [columnName(was)]: { [Op.not]: null } } });
    fields.push({ field: was.name, change: 'dropped', values, lost: values });
  }
  const planHash = createHash('sha256')
    .update(stringify({ collection: c.name, version: c.version, patch, fields }) ?? '')
    .digest('hex');
  return {
    collection: c.name,
    version: c.version,
    entries: await c.model.count(),
    fields,
    losesData: fields.some((f) => f.lost > 0),
    planHash,
  };
}
