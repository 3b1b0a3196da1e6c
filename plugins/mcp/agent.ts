/**
 * What every tool call of an agent acts with: the API key's identity (its permissions, scope and its creator's role
 * rules, exactly as the REST routes see it), the key's name, the MCP session its changes are recorded under, and the
 * services of other plugins (through the container). Every call is audited here, with the key's name and the session.
 */
import { CmsError, hasPermission, rulesOf, scopeAllows, type AuditLog, type Identity, type Logger } from '../../kernel/sdk.js';
import type { CollectionsService, ContentClientFactory, LocalClient } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';
import type { DataOpsEngine } from '../data-ops/public.js';
import type { SessionOwner, SessionStore } from './session-store.js';

export interface AgentServices {
  collections: CollectionsService;
  contentClient: ContentClientFactory;
  mediaClient?: MediaClientFactory;
  dataOps?: DataOpsEngine;
  audit: AuditLog;
  sessions: SessionStore;
  logger: Logger;
  /** CMS_OUTBOUND_ALLOW_PRIVATE: media by URL may come from internal addresses. */
  allowPrivate: boolean;
}

export interface AgentContext {
  identity: Identity;
  keyId: string;
  keyName: string;
  /** The MCP session (Mcp-Session-Id): the set of changes a revert undoes together. */
  sessionId: string;
  /** `http` (/api/mcp) or `stdio` (cms mcp). */
  via: 'http' | 'stdio';
  services: AgentServices;
}

/** A tool's answer: JSON the agent reads. */
export type ToolAnswer = Record<string, unknown>;

export const ownerOf = (agent: AgentContext): SessionOwner => ({
  id: agent.sessionId,
  tenantId: agent.identity.tenantId,
  keyId: agent.keyId,
  keyName: agent.keyName,
});

/** The content client acting as the key (every permission, scope and rule check of the REST routes). */
export const asKey = (agent: AgentContext): LocalClient => agent.services.contentClient(agent.identity);

/** The tenant's system identity: reads the state before a write (complete, whatever the key's read rules hide). */
export function tenantSystem(agent: AgentContext): LocalClient {
  return agent.services.contentClient({
    kind: 'user',
    userId: null,
    role: 'admin',
    permissions: [],
    tenantId: agent.identity.tenantId,
    meta: { system: true },
  });
}

/** Whether the key may publish in the collection: its scope names publish, and a rule or content:write allows it. */
export function mayPublish(identity: Identity, collection: string): boolean {
  if (!scopeAllows(identity, collection, ['publish'])) return false;
  if (rulesOf(identity, collection, 'publish').length) return true;
  return hasPermission(identity, 'content:write') || identity.permissions.includes(`content:write:${collection}`);
}

const WRITE_TOOLS = new Set(['create_entry', 'update_entry', 'upload_media_by_url', 'run_data_operation', 'confirm_data_operation']);

/**
 * Runs one tool call and audits it (the key's name, the session, the tool, what it named; never the values written):
 * a refused or failed call is audited as a failure and answered as a tool error the agent reads (`{error, message}`).
 */
export async function audited(
  agent: AgentContext,
  tool: string,
  target: Record<string, unknown>,
  run: () => Promise<ToolAnswer>,
): Promise<{ ok: true; answer: ToolAnswer } | { ok: false; error: { error: string; message: string } }> {
  const write = WRITE_TOOLS.has(tool);
  const entry = (outcome: 'success' | 'failure', message: string, extra: Record<string, unknown> = {}) =>
    agent.services.audit.record({
      domain: 'mcp',
      operation: tool,
      action: `mcp.${tool}`,
      actor: { userId: agent.identity.userId, tenantId: agent.identity.tenantId },
      outcome,
      level: write ? 'medium' : 'low',
      message,
      details: { keyId: agent.keyId, keyName: agent.keyName, sessionId: agent.sessionId, via: agent.via, tool, ...target, ...extra },
    });
  try {
    const answer = await run();
    entry('success', `Agent key "${agent.keyName}" called ${tool}`, typeof answer._id === 'string' ? { entryId: answer._id } : {});
    return { ok: true, answer };
  } catch (err) {
    const known = err instanceof CmsError;
    const status = (err as { status?: number }).status;
    const error = {
      error: known ? (err as CmsError).code : 'INTERNAL_ERROR',
      message: known && (status === undefined || status < 500) ? (err as Error).message : 'The call failed on the server',
    };
    if (!known || (status !== undefined && status >= 500)) agent.services.logger.error({ err, tool }, 'MCP tool call failed');
    entry('failure', `Agent key "${agent.keyName}" called ${tool}: refused or failed (${error.error})`, { error: error.error });
    return { ok: false, error };
  }
}
