/**
 * The content tools: the model, search and read, and writes that are drafts unless the key may publish and the call
 * asks (docs/features/mcp.md). Each acts as the key through the in-process content client, so the REST routes'
 * permission, scope, rule and tenant checks apply unchanged; each write is recorded in the agent session.
 */
import { assertPermission, ForbiddenError, hasScopedPermission } from '../../kernel/sdk.js';
import { asKey, mayPublish, ownerOf, tenantSystem, type AgentContext, type ToolAnswer } from './agent.js';

/** Keys of an entry answer that are not its values (never written back by a revert). */
const READ_ONLY = /^(_.*|version|createdAt|updatedAt|createdBy|updatedBy|hasDraft|syncId)$/;
const valuesOf = (entry: Record<string, unknown>) => Object.fromEntries(Object.entries(entry).filter(([k]) => !READ_ONLY.test(k)));

function writable(data: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...rest } = data;
  return valuesOf(rest);
}

function refusePublish(collection: string): never {
  throw new ForbiddenError(
    `This API key may not publish in '${collection}' (its scope or permissions lack publish); nothing was written. Write without publish: true to save a draft`,
  );
}

export async function describeModel(agent: AgentContext, input: { collection?: string }): Promise<ToolAnswer> {
  const identity = agent.identity;
  const mayRead = (name: string) => hasScopedPermission(identity, 'content:read', name);
  if (input.collection && !mayRead(input.collection)) throw new ForbiddenError(`This API key may not read '${input.collection}'`);
  // Read as the tenant, shown as the key may see them: a key granted one collection (content:read:<name>) sees it.
  const system = tenantSystem(agent);
  const all = input.collection ? [await system.collections.get(input.collection)] : await system.collections.list();
  const readable = all.filter((c) => mayRead(c.name));
  return {
    collections: readable.map((c) => ({
      ...c,
      drafts: c.drafts === true,
      thisKeyMay: {
        read: true,
        write: hasScopedPermission(identity, 'content:write', c.name),
        publish: mayPublish(identity, c.name),
      },
    })),
  };
}

export async function searchEntries(
  agent: AgentContext,
  input: {
    collection: string;
    search?: string;
    filter?: Record<string, unknown>;
    status?: 'draft' | 'published' | 'archived';
    sort?: string;
    page?: number;
    limit?: number;
  },
): Promise<ToolAnswer> {
  const { collection, ...options } = input;
  const list = await asKey(agent)
    .entries(collection)
    .list({ ...options, limit: Math.min(options.limit ?? 20, 100) });
  return { ...list };
}

export async function readEntry(agent: AgentContext, input: { collection: string; id: string; draft?: boolean }): Promise<ToolAnswer> {
  const entries = asKey(agent).entries(input.collection);
  const entry = input.draft ? await entries.getDraft(input.id) : await entries.get(input.id);
  return entry;
}

export async function createEntry(
  agent: AgentContext,
  input: { collection: string; data: Record<string, unknown>; publish?: boolean },
): Promise<ToolAnswer> {
  if (input.publish && !mayPublish(agent.identity, input.collection)) refusePublish(input.collection);
  const owner = ownerOf(agent);
  await agent.services.sessions.open(owner);
  await agent.services.sessions.assertRoom(owner, input.collection, null);
  const data = { ...writable(input.data), status: input.publish ? 'published' : 'draft' };
  const entry = await asKey(agent).entries(input.collection).create(data);
  await agent.services.sessions.record(owner, {
    kind: 'created',
    collection: input.collection,
    entryId: entry._id,
    before: null,
    versionAfter: entry.version,
  });
  return entry;
}

/**
 * Changes an entry. A published entry of a collection with working drafts is changed in its draft (published only
 * with publish: true and the permission); an entry that is not published is changed in place; a published entry of a
 * collection without drafts is live content: changing it needs publish: true and the permission.
 */
export async function updateEntry(
  agent: AgentContext,
  input: { collection: string; id: string; data: Record<string, unknown>; publish?: boolean },
): Promise<ToolAnswer> {
  const { collection, id } = input;
  if (input.publish && !mayPublish(agent.identity, collection)) refusePublish(collection);
  const system = tenantSystem(agent).entries(collection);
  // The key's own check first: a collection it may not write answers 403 before anything of it is read.
  assertPermission(agent.identity, 'content:write', collection);
  const current = await system.get(id);
  const info = await tenantSystem(agent).collections.get(collection);
  const inDraft = info.drafts === true && (current.status === 'published' || current.hasDraft === true);
  if (!inDraft && current.status === 'published' && !input.publish)
    throw new ForbiddenError(
      `The entry is published and '${collection}' has no working drafts: changing it changes live content. Call again with publish: true (needs the publish permission), or ask an administrator to turn on drafts for the collection`,
    );
  const owner = ownerOf(agent);
  await agent.services.sessions.open(owner);
  await agent.services.sessions.assertRoom(owner, collection, id);
  const draftBefore = inDraft && current.hasDraft === true ? await system.getDraft(id) : null;
  const before = {
    values: valuesOf(current),
    version: current.version,
    ...(info.drafts === true ? { draft: draftBefore ? draftFields(draftBefore) : null } : {}),
  };
  const key = asKey(agent).entries(collection);
  const data = writable(input.data);
  let entry;
  if (inDraft) {
    entry = await key.putDraft(id, data);
    if (input.publish) entry = await key.publishDraft(id);
  } else entry = await key.update(id, input.publish ? { ...data, status: 'published' } : data);
  const after = await system.get(id);
  await agent.services.sessions.record(owner, { kind: 'updated', collection, entryId: id, before, versionAfter: after.version });
  return entry;
}

/** The fields a working draft holds (its `_draft.fields`, with the draft's values). */
export function draftFields(draft: Record<string, unknown>): Record<string, unknown> {
  const names = ((draft._draft as { fields?: string[] } | undefined)?.fields ?? []).map(String);
  return Object.fromEntries(names.map((n) => [n, draft[n]]));
}
