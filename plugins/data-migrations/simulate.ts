import stringify from 'safe-stable-stringify';
import { Op, type Sequelize, type Transaction } from 'sequelize';
import {
  columnName,
  fromColumn,
  toColumn,
  valueSchema,
  type CollectionsService,
  type EntriesService,
  type EntryChange,
  type FieldDefinition,
  type LoadedCollection,
} from '../content/public.js';
import { describeStep, stepCollection, type MigrationDefinition, type MigrationStep } from './definition.js';

/**
 * Runs migrations over an in-memory copy of the touched collections (one tenant): plan() runs them
 * and reports the difference; apply() runs the same code inside the engine's transaction and writes
 * the difference. Fields hold API values (content's fromColumn); writes convert back with toColumn.
 */

const SYSTEM_WHERE = new Set(['status', 'slug']);
const MAX_PROBLEMS = 20;
export const MAX_SAMPLES = 5;

interface Row {
  id: string;
  system: Record<string, unknown>;
  values: Record<string, unknown>;
}

export interface State {
  tenantId: string;
  collections: Map<string, LoadedCollection>;
  rows: Map<string, Map<string, Row>>;
}

export interface MigrationResult {
  /** Entries whose field values change (not moved), keyed collection + id: the values to write. */
  updated: Array<{ collection: string; id: string; changes: Record<string, unknown> }>;
  /** Entries moved between collections, with their final values. */
  moved: Array<{ from: string; to: string; row: Row }>;
  /** Reasons the migration cannot run (blocked in a plan, a failure in apply). */
  problems: string[];
  warnings: string[];
  /** Up to MAX_SAMPLES `<entryId>: field "a" -> "b"` lines. */
  samples: string[];
}

const same = (a: unknown, b: unknown) => stringify(a ?? null) === stringify(b ?? null);
const show = (v: unknown) => {
  const s = JSON.stringify(v ?? null);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** The collections a migration reads or writes. */
export function collectionsOf(m: MigrationDefinition): string[] {
  const out = new Set<string>();
  for (const s of m.steps) {
    out.add(stepCollection(m, s));
    if (s.op === 'move') out.add(s.to);
  }
  return [...out];
}

/** Loads the entries of these collections (tenant), or names the missing collections. */
export async function loadState(
  collections: CollectionsService,
  names: string[],
  tenantId: string,
  transaction?: Transaction,
): Promise<{ state: State; missing: string[] }> {
  const state: State = { tenantId, collections: new Map(), rows: new Map() };
  const missing: string[] = [];
  const known = new Set(collections.list().map((c) => c.name));
  for (const name of names) {
    if (!known.has(name)) {
      try {
        await collections.get(name);
      } catch {
        missing.push(name);
        continue;
      }
    }
    const c = await collections.get(name);
    state.collections.set(name, c);
    const raw = (await c.model.findAll({
      where: { tenant_id: tenantId },
      order: [['id', 'ASC']],
      raw: true,
      transaction,
    })) as unknown as Array<Record<string, unknown>>;
    const rows = new Map<string, Row>();
    for (const r of raw) {
      const values: Record<string, unknown> = {};
      for (const f of c.fields) values[f.name] = fromColumn(f, r[columnName(f)]);
      const system: Record<string, unknown> = {};
      for (const k of ['sync_id', 'slug', 'status', 'version', 'created_by', 'updated_by', 'created_at', 'updated_at']) system[k] = r[k];
      rows.set(String(r.id), { id: String(r.id), system, values });
    }
    state.rows.set(name, rows);
  }
  return { state, missing };
}

function matches(row: Row, where: Record<string, unknown> | undefined): boolean {
  if (!where) return true;
  return Object.entries(where).every(([k, v]) => (SYSTEM_WHERE.has(k) ? same(row.system[k], v) : same(row.values[k], v)));
}

function castValue(value: unknown, to: 'number' | 'string'): { ok: true; value: unknown } | { ok: false } {
  if (to === 'string') {
    if (typeof value === 'string') return { ok: true, value };
    if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
    return { ok: false };
  }
  if (typeof value === 'number') return { ok: true, value };
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    if (Number.isFinite(n)) return { ok: true, value: n };
  }
  return { ok: false };
}

/**
 * Runs one migration over the state (mutating it) and returns what changed against the state before.
 * Problems (unknown fields, invalid values, failed casts, slug clashes of moves) stop nothing here: the
 * plan lists them as blocked reasons; apply refuses to write when there are any.
 */
export function runMigration(m: MigrationDefinition, state: State): MigrationResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const problem = (msg: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${m.id}: ${msg}`);
  };
  /** Original values of rows touched: key collection\0id. */
  const before = new Map<string, { collection: string; values: Record<string, unknown> }>();
  const moved = new Map<string, { from: string; to: string; row: Row }>();
  const touch = (collection: string, row: Row) => {
    const key = `${collection}\0${row.id}`;
    if (!before.has(key) && !moved.has(row.id)) before.set(key, { collection, values: { ...row.values } });
  };

  m.steps.forEach((step: MigrationStep, index) => {
    const name = stepCollection(m, step);
    const label = describeStep(m, step, index);
    const c = state.collections.get(name);
    const rows = state.rows.get(name);
    if (!c || !rows) return problem(`${label}: no collection '${name}'`);
    const fields = new Map(c.fields.map((f) => [f.name, f]));
    const need = (field: string): FieldDefinition | null => {
      const f = fields.get(field);
      if (!f) problem(`${label}: collection '${name}' has no field '${field}' (add it to the schema first)`);
      return f ?? null;
    };
    for (const k of Object.keys(step.where ?? {}))
      if (!SYSTEM_WHERE.has(k) && !fields.has(k)) return problem(`${label}: where names an unknown field '${k}'`);
    /** Sets a field (checked against its type); false when the value is invalid (a problem). */
    const set = (row: Row, f: FieldDefinition, value: unknown): boolean => {
      let next = value;
      if (next !== null && next !== undefined) {
        const checked = valueSchema(f).safeParse(next);
        if (!checked.success) {
          problem(
            `${label}: entry ${row.id}: ${show(next)} is not a valid ${f.type} for '${f.name}' (${checked.error.issues[0]?.message})`,
          );
          return false;
        }
        next = checked.data;
      }
      if (same(row.values[f.name], next)) return true;
      touch(name, row);
      row.values[f.name] = next ?? null;
      return true;
    };

    if (step.op === 'move') {
      const target = state.collections.get(step.to);
      const targetRows = state.rows.get(step.to);
      if (!target || !targetRows) return problem(`${label}: no collection '${step.to}'`);
      if (step.to === name) return problem(`${label}: moves entries into their own collection`);
      const targetFields = new Map(target.fields.map((f) => [f.name, f]));
      for (const [src, dst] of Object.entries(step.fields ?? {})) {
        if (!fields.has(src)) problem(`${label}: collection '${name}' has no field '${src}'`);
        if (!targetFields.has(dst)) problem(`${label}: collection '${step.to}' has no field '${dst}'`);
      }
      const slugs = new Set([...targetRows.values()].map((r) => String(r.system.slug)));
      const dropped = new Set<string>();
      for (const row of [...rows.values()]) {
        if (!matches(row, step.where)) continue;
        if (slugs.has(String(row.system.slug))) {
          problem(`${label}: entry ${row.id}: slug '${String(row.system.slug)}' is taken in '${step.to}'`);
          continue;
        }
        const values: Record<string, unknown> = {};
        for (const f of target.fields) values[f.name] = null;
        for (const [field, value] of Object.entries(row.values)) {
          const dst = step.fields?.[field] ?? field;
          const f = targetFields.get(dst);
          if (!f) {
            if (value !== null && value !== undefined) dropped.add(field);
            continue;
          }
          if (value === null || value === undefined) continue;
          const checked = valueSchema(f).safeParse(value);
          if (!checked.success) {
            problem(`${label}: entry ${row.id}: ${show(value)} is not a valid ${f.type} for '${step.to}.${f.name}'`);
            continue;
          }
          values[dst] = checked.data;
        }
        rows.delete(row.id);
        const next: Row = { id: row.id, system: row.system, values };
        targetRows.set(row.id, next);
        slugs.add(String(row.system.slug));
        const origin = moved.get(row.id)?.from ?? name;
        // A move after an update: the update's values travel with the entry.
        before.delete(`${name}\0${row.id}`);
        moved.set(row.id, { from: origin, to: step.to, row: next });
      }
      if (dropped.size)
        warnings.push(`${m.id}: ${label}: values of ${[...dropped].sort().join(', ')} are dropped (no such field in '${step.to}')`);
      return;
    }

    if (step.op === 'renameField') {
      const from = need(step.from);
      const to = need(step.to);
      if (!from || !to) return;
      for (const row of rows.values()) {
        if (!matches(row, step.where)) continue;
        const value = row.values[from.name];
        if (value === null || value === undefined) continue;
        if (set(row, to, value)) set(row, from, null);
      }
      return;
    }
    if (step.op === 'backfill') {
      const f = need(step.field);
      const src = step.fromField ? need(step.fromField) : null;
      if (!f || (step.fromField && !src)) return;
      for (const row of rows.values()) {
        if (!matches(row, step.where)) continue;
        if (row.values[f.name] !== null && row.values[f.name] !== undefined) continue;
        const value = src ? row.values[src.name] : step.value;
        if (value === null || value === undefined) continue;
        set(row, f, value);
      }
      return;
    }
    if (step.op === 'mapValues') {
      const f = need(step.field);
      if (!f) return;
      for (const row of rows.values()) {
        if (!matches(row, step.where)) continue;
        const value = row.values[f.name];
        if (value === null || value === undefined) continue;
        const key = typeof value === 'string' ? value : JSON.stringify(value);
        if (!Object.hasOwn(step.values, key)) continue;
        set(row, f, step.values[key]);
      }
      return;
    }
    if (step.op === 'trim' || step.op === 'lowercase') {
      const f = need(step.field);
      if (!f) return;
      for (const row of rows.values()) {
        if (!matches(row, step.where)) continue;
        const value = row.values[f.name];
        if (typeof value !== 'string') continue;
        set(row, f, step.op === 'trim' ? value.trim() : value.toLowerCase());
      }
      return;
    }
    if (step.op === 'cast') {
      const f = need(step.field);
      const into = need(step.into ?? step.field);
      if (!f || !into) return;
      for (const row of rows.values()) {
        if (!matches(row, step.where)) continue;
        const value = row.values[f.name];
        if (value === null || value === undefined) continue;
        const cast = castValue(value, step.to);
        if (!cast.ok) {
          problem(`${label}: entry ${row.id}: cannot cast ${show(value)} to a ${step.to}`);
          continue;
        }
        set(row, into, cast.value);
      }
    }
  });

  const updated: MigrationResult['updated'] = [];
  const samples: string[] = [];
  for (const [key, was] of before) {
    const id = key.slice(key.indexOf('\0') + 1);
    const row = state.rows.get(was.collection)?.get(id);
    if (!row) continue;
    const changes: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(row.values)) if (!same(was.values[field], value)) changes[field] = value;
    if (!Object.keys(changes).length) continue;
    updated.push({ collection: was.collection, id, changes });
    if (samples.length < MAX_SAMPLES) {
      samples.push(
        `${id}: ${Object.entries(changes)
          .map(([field, v]) => `${field} ${show(was.values[field])} -> ${show(v)}`)
          .join(', ')}`,
      );
    }
  }
  for (const mv of moved.values()) {
    if (samples.length >= MAX_SAMPLES) break;
    samples.push(`${mv.row.id}: moved ${mv.from} -> ${mv.to}`);
  }
  return { updated, moved: [...moved.values()].filter((mv) => mv.from !== mv.to), problems, warnings, samples };
}

/** Entries a result touches: updated plus moved. */
export const touched = (r: MigrationResult) => r.updated.length + r.moved.length;

/** The revision action of entries a migration changed or moved. */
export const REVISION_ACTION = 'migrate';

/**
 * Writes a result inside the transaction: updates, then moves (insert into the target, delete from the
 * source, revisions follow), and one revision per changed or moved entry (action 'migrate', the entry
 * as written). Returns the entry events to publish once the transaction committed: on:update per
 * changed entry; per moved entry on:delete in the source (the entry as it was) and on:create in the target.
 */
export async function writeResult(
  sequelize: Sequelize,
  state: State,
  r: MigrationResult,
  actor: string | null,
  transaction: Transaction,
  entries: Pick<EntriesService, 'moveRevisions' | 'readEntries' | 'recordRevisions'>,
): Promise<EntryChange[]> {
  const now = Date.now();
  const changes: EntryChange[] = [];
  const updatedIds = new Map<string, string[]>();
  for (const u of r.updated) {
    const c = state.collections.get(u.collection)!;
    const byName = new Map(c.fields.map((f) => [f.name, f]));
    const values: Record<string, unknown> = { updated_at: now, updated_by: actor, version: sequelize.literal('version + 1') };
    for (const [field, value] of Object.entries(u.changes)) values[columnName(byName.get(field)!)] = toColumn(byName.get(field)!, value);
    await c.model.update(values, { where: { id: u.id, tenant_id: state.tenantId }, transaction });
    updatedIds.set(u.collection, [...(updatedIds.get(u.collection) ?? []), u.id]);
  }
  for (const [name, ids] of updatedIds) {
    const written = await entries.readEntries(state.collections.get(name)!, ids, state.tenantId, transaction);
    await entries.recordRevisions(name, written, state.tenantId, actor, REVISION_ACTION, transaction);
    for (const entry of written) changes.push({ event: 'update', collection: name, entry });
  }
  const byRoute = new Map<string, Array<MigrationResult['moved'][number]>>();
  for (const mv of r.moved) {
    const key = `${mv.from}\0${mv.to}`;
    byRoute.set(key, [...(byRoute.get(key) ?? []), mv]);
  }
  for (const moves of byRoute.values()) {
    const { from, to } = moves[0]!;
    const source = state.collections.get(from)!;
    const target = state.collections.get(to)!;
    const ids = moves.map((mv) => mv.row.id);
    const leaving = await entries.readEntries(source, ids, state.tenantId, transaction);
    for (const mv of moves) {
      const row: Record<string, unknown> = {
        id: mv.row.id,
        tenant_id: state.tenantId,
        ...mv.row.system,
        updated_at: now,
        updated_by: actor,
      };
      for (const f of target.fields) row[columnName(f)] = toColumn(f, mv.row.values[f.name] ?? null);
      row.version = Number(mv.row.system.version) + 1;
      await target.model.create(row, { transaction });
    }
    await source.model.destroy({ where: { id: { [Op.in]: ids }, tenant_id: state.tenantId }, transaction });
    await entries.moveRevisions(state.tenantId, from, to, ids, transaction);
    const arrived = await entries.readEntries(target, ids, state.tenantId, transaction);
    await entries.recordRevisions(to, arrived, state.tenantId, actor, REVISION_ACTION, transaction);
    for (const entry of leaving) changes.push({ event: 'delete', collection: from, entry });
    for (const entry of arrived) changes.push({ event: 'create', collection: to, entry });
  }
  return changes;
}

/** Collections a result writes (for the list cache after commit). */
export function writtenCollections(r: MigrationResult): string[] {
  return [...new Set([...r.updated.map((u) => u.collection), ...r.moved.flatMap((mv) => [mv.from, mv.to])])];
}
