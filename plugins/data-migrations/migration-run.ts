/**
 * One migration run over an in-memory state (no I/O): each step changes the rows of its collection,
 * problems and warnings are collected, and the result is what changed against the state before.
 */
import stringify from 'safe-stable-stringify';
import { valueSchema, type FieldDefinition, type LoadedCollection } from '../content/public.js';
import { describeStep, stepCollection, type MigrationDefinition, type MigrationStep } from './definition.js';

const SYSTEM_WHERE = new Set(['status', 'slug']);
const MAX_PROBLEMS = 20;
export const MAX_SAMPLES = 5;

export interface Row {
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

export const same = (a: unknown, b: unknown) => stringify(a ?? null) === stringify(b ?? null);
export const show = (v: unknown) => {
  const s = JSON.stringify(v ?? null);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

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

/** One migration's run over a state: what it touched, moved and found wrong. */
interface Run {
  m: MigrationDefinition;
  state: State;
  problems: string[];
  warnings: string[];
  /** Original values of rows touched: key collection\0id. */
  before: Map<string, { collection: string; values: Record<string, unknown> }>;
  moved: Map<string, { from: string; to: string; row: Row }>;
  problem(msg: string): void;
  touch(collection: string, row: Row): void;
}

/** One step's view: its collection, rows and fields, and the checked setter. */
interface StepScope {
  run: Run;
  label: string;
  name: string;
  rows: Map<string, Row>;
  fields: Map<string, FieldDefinition>;
  problem(msg: string): void;
  /** The field, or null (a problem) when the collection has none of that name. */
  need(field: string): FieldDefinition | null;
  /** Sets a field (checked against its type); false when the value is invalid (a problem). */
  set(row: Row, f: FieldDefinition, value: unknown): boolean;
}

function newRun(m: MigrationDefinition, state: State): Run {
  const run: Run = {
    m,
    state,
    problems: [],
    warnings: [],
    before: new Map(),
    moved: new Map(),
    problem(msg) {
      if (run.problems.length < MAX_PROBLEMS) run.problems.push(`${m.id}: ${msg}`);
    },
    touch(collection, row) {
      const key = `${collection}\0${row.id}`;
      if (!run.before.has(key) && !run.moved.has(row.id)) run.before.set(key, { collection, values: { ...row.values } });
    },
  };
  return run;
}

function stepScope(run: Run, label: string, name: string, rows: Map<string, Row>, fields: Map<string, FieldDefinition>): StepScope {
  const problem = run.problem;
  return {
    run,
    label,
    name,
    rows,
    fields,
    problem,
    need(field) {
      const f = fields.get(field);
      if (!f) problem(`${label}: collection '${name}' has no field '${field}' (add it to the schema first)`);
      return f ?? null;
    },
    set(row, f, value) {
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
      run.touch(name, row);
      row.values[f.name] = next ?? null;
      return true;
    },
  };
}

/** A move step: matching entries go to another collection (fields renamed by `fields`, values checked, slugs unique). */
function moveStep(scope: StepScope, step: Extract<MigrationStep, { op: 'move' }>): void {
  const { run, label, name, rows, fields, problem } = scope;
  const { state, moved, before, warnings, m } = run;
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
}

/** The steps that change field values of entries in place. */
function fieldStep(scope: StepScope, step: Exclude<MigrationStep, { op: 'move' }>): void {
  const { label, rows, need, set, problem } = scope;
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
}

/** Runs one step: checks its collection and where, then the step's own work. */
function runStep(run: Run, step: MigrationStep, index: number): void {
  const { m, state } = run;
  const name = stepCollection(m, step);
  const label = describeStep(m, step, index);
  const c = state.collections.get(name);
  const rows = state.rows.get(name);
  if (!c || !rows) return run.problem(`${label}: no collection '${name}'`);
  const fields = new Map(c.fields.map((f) => [f.name, f]));
  for (const k of Object.keys(step.where ?? {}))
    if (!SYSTEM_WHERE.has(k) && !fields.has(k)) return run.problem(`${label}: where names an unknown field '${k}'`);
  const scope = stepScope(run, label, name, rows, fields);
  if (step.op === 'move') moveStep(scope, step);
  else fieldStep(scope, step);
}

/** What changed against the state before: updated entries with their changes, moves, and samples of both. */
function resultOf(run: Run): MigrationResult {
  const { state, before, moved, problems, warnings } = run;
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

/**
 * Runs one migration over the state (mutating it) and returns what changed against the state before.
 * Problems (unknown fields, invalid values, failed casts, slug clashes of moves) stop nothing here: the
 * plan lists them as blocked reasons; apply refuses to write when there are any.
 */
export function runMigration(m: MigrationDefinition, state: State): MigrationResult {
  const run = newRun(m, state);
  m.steps.forEach((step: MigrationStep, index) => runStep(run, step, index));
  return resultOf(run);
}
