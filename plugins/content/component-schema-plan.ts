/**
 * A component's schema change through a plan (issue 35, item 6): its values live inside entries as JSON
 * (component and blocks fields, nested up to three deep), so the plan walks every entry of every
 * collection whose fields reach the component and counts, per field, what the change keeps, converts,
 * drops or makes null (component-rewrite.ts); applying it rewrites those entries' JSON in pages, one
 * autocommitted UPDATE per entry (no transaction across the walk), compare-and-set on the entry's version.
 */
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { Op, type Model, type ModelStatic } from 'sequelize';
import { z } from 'zod';
import type { ComponentDefs } from './component-resolution.js';
import { ComponentRewriter, reaches, type ComponentChange } from './component-rewrite.js';
import { sameStorage } from './field-conversion.js';
import { columnName, fromColumn, toColumn, type FieldDefinition } from './field-types.js';
import { describeField, fieldPlanSchema, type FieldPlan } from './schema-plan.js';

/** A component's schema plan as POST /api/components/:name/schema/plan answers it. */
export const componentPlanSchema = z.object({
  component: z.string(),
  /** The component version the plan was made against: another change in between makes a new plan necessary. */
  version: z.number(),
  /** Collections with a field that may hold the component (directly, inside another component, as a block). */
  collections: z.array(z.string()),
  /** Entries holding the component at least once, over every tenant. */
  entries: z.number(),
  /** Instances of the component in those entries (a repeatable component or blocks hold several). */
  instances: z.number(),
  fields: z.array(fieldPlanSchema),
  losesData: z.boolean(),
  /** Send it back as `planHash` with the PATCH to confirm a change that loses data. */
  planHash: z.string(),
});
export type ComponentPlan = z.output<typeof componentPlanSchema>;

export interface UsingCollection {
  name: string;
  model: ModelStatic<Model>;
  fields: readonly FieldDefinition[];
}

/** Entries read per page. */
const PAGE = 500;
/** Tries of one entry's compare-and-set before it is left for the next write (it keeps changing). */
const TRIES = 5;

type Row = Record<string, unknown>;

/** The entry's rewritten column values (only those that change), or null when it holds no instance. */
function rewriteRow(rewriter: ComponentRewriter, fields: readonly FieldDefinition[], row: Row): { holds: boolean; set: Row } {
  const before = rewriter.instances;
  const set: Row = {};
  for (const f of fields) {
    const stored = row[columnName(f)];
    let value: unknown;
    try {
      value = fromColumn(f, stored);
    } catch {
      continue; // not JSON: nothing to walk
    }
    const next = rewriter.value(f, value);
    if (next !== value) set[columnName(f)] = toColumn(f, next);
  }
  return { holds: rewriter.instances > before, set };
}

/**
 * Stores one entry's rewrite unless it changed meanwhile (then it is read and rewritten again), as a new version. No
 * revision and no entry event: a schema change is not an edit (like a collection's field conversion); readers see
 * the new version and `components.changed` on the event bus.
 */
async function store(model: ModelStatic<Model>, rewriter: ComponentRewriter, fields: readonly FieldDefinition[], row: Row, first: Row) {
  let current: Row | null = row;
  for (let i = 0; i < TRIES && current; i++) {
    const set = i === 0 ? first : rewriteRow(rewriter, fields, current).set;
    if (!Object.keys(set).length) return false;
    // A new version: the entry's answer changed (its readers and a write that read it before see it did).
    const [done] = await model.update(
      { ...set, version: Number(current.version) + 1 },
      { where: { id: current.id, version: current.version } },
    );
    if (done) return true;
    current = (await model.findOne({ where: { id: row.id }, raw: true })) as Row | null;
  }
  return false;
}

/**
 * Walks every entry that may hold the component; with `write`, stores each rewritten entry and answers the
 * tenants and collections whose entries changed (their cached lists must go).
 */
async function walk(change: ComponentChange, defs: ComponentDefs, collections: readonly UsingCollection[], write: boolean) {
  const rewriter = new ComponentRewriter(change, defs);
  const using: string[] = [];
  const touched = new Map<string, { tenant: string; collection: string }>();
  let entries = 0;
  for (const c of collections) {
    const fields = c.fields.filter((f) => reaches(f, change.name, defs));
    if (!fields.length) continue;
    using.push(c.name);
    const holding = { [Op.or]: fields.map((f) => ({ [columnName(f)]: { [Op.not]: null } })) };
    let after: string | null = null;
    for (;;) {
      const rows = (await c.model.findAll({
        attributes: ['id', 'tenant_id', 'version', ...fields.map(columnName)],
        where: after === null ? holding : { [Op.and]: [holding, { id: { [Op.gt]: after } }] },
        order: [['id', 'ASC']],
        limit: PAGE,
        raw: true,
      })) as unknown as Row[];
      for (const row of rows) {
        const { holds, set } = rewriteRow(rewriter, fields, row);
        if (holds) entries++;
        if (!write || !Object.keys(set).length) continue;
        if (await store(c.model, rewriter, fields, row, set)) {
          const tenant = String(row.tenant_id);
          touched.set(`${tenant}\u0000${c.name}`, { tenant, collection: c.name });
        }
      }
      if (rows.length < PAGE) break;
      after = String(rows[rows.length - 1]!.id);
    }
  }
  return { rewriter, using, entries, touched: [...touched.values()] };
}

/** The plan of changing component `name` (at `version`) from `change.before` to `change.after`, changing nothing. */
export async function planComponentChange(
  version: number,
  change: ComponentChange,
  patch: unknown,
  defs: ComponentDefs,
  collections: readonly UsingCollection[],
): Promise<ComponentPlan> {
  const { rewriter, using, entries } = await walk(change, defs, collections, false);
  const old = new Map(change.before.map((f) => [f.name, f]));
  const fields: ComponentPlan['fields'] = [];
  const counted = (name: string) => {
    const t = rewriter.tally.get(name)!;
    const dropped = [...t.droppedBlocks].map(([component, blocks]) => ({ component, blocks }));
    return { values: t.values, lost: t.lost, ...(dropped.length ? { droppedBlocks: dropped } : {}), examples: [...t.examples] };
  };
  for (const f of change.after) {
    const was = old.get(f.name);
    if (!was) {
      fields.push({ field: f.name, change: 'added', values: 0, lost: 0 });
      continue;
    }
    const { examples, ...n } = counted(f.name);
    if (sameStorage(was, f)) fields.push({ field: f.name, change: 'kept', ...n });
    else
      fields.push({
        field: f.name,
        change: 'converted',
        from: describeField(was),
        to: describeField(f),
        ...n,
        ...(n.lost ? { lostExamples: examples } : {}),
      } satisfies FieldPlan);
  }
  for (const was of change.before)
    if (!change.after.some((f) => f.name === was.name)) {
      const { values, lost } = counted(was.name);
      fields.push({ field: was.name, change: 'dropped', values, lost });
    }
  const planHash = createHash('sha256')
    .update(stringify({ component: change.name, version, patch, fields }) ?? '')
    .digest('hex');
  return {
    component: change.name,
    version,
    collections: using,
    entries,
    instances: rewriter.instances,
    fields,
    losesData: fields.some((f) => f.lost > 0),
    planHash,
  };
}

/** Rewrites every stored instance of the component as the change says; answers the tenants' collections changed. */
export async function rewriteComponentValues(
  change: ComponentChange,
  defs: ComponentDefs,
  collections: readonly UsingCollection[],
): Promise<Array<{ tenant: string; collection: string }>> {
  return (await walk(change, defs, collections, true)).touched;
}
