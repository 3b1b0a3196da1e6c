import { Op, type Sequelize, type Transaction } from 'sequelize';
import { columnName, fromColumn, toColumn, type CollectionsService, type EntriesService, type EntryChange } from '../content/public.js';
import { stepCollection, type MigrationDefinition } from './definition.js';
import type { MigrationResult, Row, State } from './migration-run.js';

export { MAX_SAMPLES, runMigration, type MigrationResult, type State } from './migration-run.js';

/**
 * Runs migrations over an in-memory copy of the touched collections (one tenant): plan() runs them
 * and reports the difference; apply() runs the same code inside the engine's transaction and writes
 * the difference. Fields hold API values (content's fromColumn); writes convert back with toColumn.
 */

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
