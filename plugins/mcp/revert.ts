/**
 * Reverting an agent session as one set (POST /api/mcp/sessions/:id/revert): newest change first, each entry goes
 * back to its state before the session's first write: an entry the agent created is deleted (a media item it
 * uploaded too); an entry it changed gets its values back, and its working draft as it was (discarded when there was
 * none). An entry changed by someone else since the agent's last write (its version moved on) is left as it is and
 * listed as skipped, as is one deleted since. The revert acts as the administrator who asks (their permissions).
 */
import { NotFoundError, type Identity } from '../../kernel/sdk.js';
import type { ContentClientFactory } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';
import { McpSessionRevertedError } from './errors.js';
import { MEDIA_COLLECTION, type ChangeRecord, type SessionStore } from './session-store.js';

export interface RevertAnswer {
  sessionId: string;
  reverted: number;
  skipped: Array<{ collection: string; entryId: string; reason: string }>;
}

const gone = (err: unknown) => err instanceof NotFoundError || (err as { status?: number }).status === 404;

async function revertOne(
  change: ChangeRecord,
  identity: Identity,
  deps: { contentClient: ContentClientFactory; mediaClient?: MediaClientFactory },
): Promise<string | null> {
  if (change.collection === MEDIA_COLLECTION) {
    if (!deps.mediaClient) return 'media is not enabled';
    try {
      await deps.mediaClient(identity).remove(change.entryId);
    } catch (err) {
      if (gone(err)) return 'deleted since';
      throw err;
    }
    return null;
  }
  const entries = deps.contentClient(identity).entries(change.collection);
  let current;
  try {
    current = await entries.get(change.entryId);
  } catch (err) {
    if (gone(err)) return 'deleted since';
    throw err;
  }
  if (change.versionAfter !== null && current.version !== change.versionAfter) return 'changed by someone else since';
  if (change.kind === 'created') {
    await entries.remove(change.entryId);
    return null;
  }
  const before = change.before!;
  // The entry's own values only when the session changed them (a draft write leaves the published version as it was).
  if (current.version !== before.version) await entries.update(change.entryId, { ...before.values });
  if (before.draft !== undefined) {
    if (current.hasDraft === true) await entries.discardDraft(change.entryId);
    if (before.draft) await entries.putDraft(change.entryId, before.draft);
  }
  return null;
}

export async function revertSession(
  tenantIdentity: Identity,
  id: string,
  deps: { sessions: SessionStore; contentClient: ContentClientFactory; mediaClient?: MediaClientFactory },
): Promise<RevertAnswer> {
  const session = await deps.sessions.get(tenantIdentity.tenantId, id);
  if (session.revertedAt) throw new McpSessionRevertedError(id);
  // Marked first: an agent still writing under this session is refused from now on (SessionStore.open).
  if (!(await deps.sessions.markReverted(tenantIdentity.tenantId, id, tenantIdentity.userId))) throw new McpSessionRevertedError(id);
  const answer: RevertAnswer = { sessionId: id, reverted: 0, skipped: [] };
  for (const change of [...session.changeList].reverse()) {
    let reason: string | null;
    try {
      reason = await revertOne(change, tenantIdentity, deps);
    } catch (err) {
      reason =
        `failed: ${(err as { code?: string }).code ?? 'INTERNAL_ERROR'} ${((err as { status?: number }).status ?? 500 < 500) ? (err as Error).message : ''}`.trim();
    }
    if (reason) answer.skipped.push({ collection: change.collection, entryId: change.entryId, reason });
    else answer.reverted++;
  }
  return answer;
}
