/**
 * Apply and verify of the `config` domain: one operation of a stored plan, inside the engine's
 * transaction (caches dropped after commit), or, for a type whose changes cannot run in it (collections:
 * DDL), outside it with an undo (the opposite schema change plus the identity links as before).
 */
import type { Transaction } from 'sequelize';
import type { DataOperation, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import type { DbResource, ResourceAdapter, ResourceType } from './resources.js';
import { checksumOf, type ConfigPayload, type ConfigSyncCore } from './sync-types.js';

/** The database resource an update or delete names (by its own uuid, else by name); throws when it is gone. */
async function currentOf(tenantId: string, adapter: ResourceAdapter, payload: ConfigPayload): Promise<DbResource> {
  const found = (await adapter.read(tenantId)).find((d) => (payload.dbUuid ? d.uuid === payload.dbUuid : d.name === payload.dbName));
  if (!found) throw new Error(`The ${adapter.type} '${payload.dbName}' is no longer in the database`);
  return found;
}

const namesOf = (payload: ConfigPayload) => [...new Set([payload.name, payload.dbName].filter((n): n is string => !!n))];

/** Resources whose own id equals the syncId a create takes. */
const holdersOf = async (tenantId: string, adapter: ResourceAdapter, payload: ConfigPayload) =>
  (await adapter.read(tenantId)).filter((d) => d.uuid === payload.uuid);

/** Applies one operation inside the engine's transaction (or outside it, answering an undo, for DDL types). */
export async function applyConfigOperation(
  core: ConfigSyncCore,
  tenantId: string,
  op: DataOperation,
  t?: Transaction,
): Promise<Undo | void> {
  if (op.action === 'skip') return;
  const type = op.type as ResourceType;
  const adapter = core.adapters[type];
  if (!adapter) throw new Error(`Unknown resource type '${op.type}'`);
  if (adapter.outsideTransaction) return applyOutside(core, tenantId, op, adapter);
  const payload = op.payload as ConfigPayload;
  // The identity link follows the resource: syncId = the file's uuid, external id = the source's id.
  const link = (localId: string) =>
    core.identity.link(tenantId, { type, localId, syncId: payload.uuid, externalId: payload.externalId ?? null }, t);
  if (op.action === 'create') {
    const others = await holdersOf(tenantId, adapter, payload);
    const id = await adapter.create(tenantId, payload.name, payload.uuid, payload.data!, t);
    // A resource whose own id equals the syncId now taken (a file mapped to null) gets a syncId of its own.
    for (const o of others) if (o.id !== id) await core.identity.renew(tenantId, type, o.id, t);
    await link(id);
  } else if (op.action === 'update') {
    const found = await currentOf(tenantId, adapter, payload);
    const id = await adapter.update(tenantId, found, payload.name, payload.data!, t);
    if (id !== found.id) await core.identity.unlink(tenantId, type, found.id, t);
    await link(id);
  } else if (op.action === 'delete') {
    const found = await currentOf(tenantId, adapter, payload);
    await adapter.remove(tenantId, found, t);
    await core.identity.unlink(tenantId, type, found.id, t);
  }
  const drop = () => adapter.invalidate(tenantId, namesOf(payload)).catch(() => undefined);
  if (t) t.afterCommit(() => void drop());
  else await drop();
}

/** Runs `links` (the identity link changes after a schema change); on failure runs `undo` and throws. */
async function linkOrUndo(undo: Undo, links: () => Promise<void>): Promise<Undo> {
  try {
    await links();
  } catch (err) {
    await undo();
    throw err;
  }
  return undo;
}

/** One operation of a type applied outside the transaction (collections), answering its undo. */
async function applyOutside(core: ConfigSyncCore, tenantId: string, op: DataOperation, adapter: ResourceAdapter): Promise<Undo> {
  const type = adapter.type;
  const payload = op.payload as ConfigPayload;
  const linksBefore = await core.identity.links(tenantId, [type]);
  const restoreLinks = (moved?: { from: string; to: string }) => core.identity.restore(tenantId, type, linksBefore, moved);
  const link = (localId: string) =>
    core.identity.link(tenantId, { type, localId, syncId: payload.uuid, externalId: payload.externalId ?? null });
  let undo: Undo;
  if (op.action === 'create') {
    const others = await holdersOf(tenantId, adapter, payload);
    const id = await adapter.create(tenantId, payload.name, payload.uuid, payload.data!);
    const created: DbResource = { type, name: payload.name, uuid: id, id, data: payload.data!, protectedReason: null };
    undo = await linkOrUndo(
      async () => {
        await adapter.remove(tenantId, created);
        await restoreLinks();
      },
      async () => {
        for (const o of others) if (o.id !== id) await core.identity.renew(tenantId, type, o.id);
        await link(id);
      },
    );
  } else if (op.action === 'update') {
    const found = await currentOf(tenantId, adapter, payload);
    const id = await adapter.update(tenantId, found, payload.name, payload.data!);
    undo = await linkOrUndo(
      async () => {
        await adapter.update(tenantId, { ...found, id }, found.name, found.data);
        await restoreLinks();
      },
      async () => {
        if (id !== found.id) await core.identity.unlink(tenantId, type, found.id);
        await link(id);
      },
    );
  } else {
    const found = await currentOf(tenantId, adapter, payload);
    await adapter.remove(tenantId, found);
    undo = await linkOrUndo(
      async () => {
        const id = await adapter.create(tenantId, found.name, found.uuid ?? '', found.data);
        await restoreLinks({ from: found.id, to: id });
      },
      () => core.identity.unlink(tenantId, type, found.id),
    );
  }
  await adapter.invalidate(tenantId, namesOf(payload)).catch(() => undefined);
  return undo;
}

/** After apply: every created or updated resource equals its file's data; every deleted one is gone. */
export async function verifyConfigPlan(
  core: ConfigSyncCore,
  tenantId: string,
  plan: Pick<StoredPlan, 'operationsFull'>,
): Promise<VerifyResult> {
  const discrepancies: string[] = [];
  const types = [...new Set(plan.operationsFull.map((o) => o.type as ResourceType))].filter((t) => core.adapters[t]);
  const db = await core.readDatabase(tenantId, types);
  const created = new Set(
    plan.operationsFull
      .filter((o) => o.action === 'create' || o.action === 'update')
      .map((o) => `${o.type}\u0000${(o.payload as ConfigPayload).name}`),
  );
  for (const op of plan.operationsFull) {
    const payload = op.payload as ConfigPayload;
    if (op.action === 'create' || op.action === 'update') {
      const row = db.find((d) => d.type === op.type && d.name === payload.name);
      if (!row) discrepancies.push(`${op.type} '${payload.name}': missing after ${op.action}`);
      else if (checksumOf(row.data) !== checksumOf(payload.data))
        discrepancies.push(`${op.type} '${payload.name}': checksum ${checksumOf(row.data)} differs from the file's ${payload.checksum}`);
    } else if (op.action === 'delete') {
      if (created.has(`${op.type}\u0000${payload.dbName}`)) continue;
      if (db.some((d) => d.type === op.type && (payload.dbUuid ? d.uuid === payload.dbUuid : d.name === payload.dbName)))
        discrepancies.push(`${op.type} '${payload.dbName}': still present after delete`);
    }
  }
  return { ok: discrepancies.length === 0, discrepancies };
}
