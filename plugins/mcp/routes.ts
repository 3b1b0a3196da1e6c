/**
 * /api/mcp/sessions (mcp:manage, the caller's tenant): the agent sessions with the entries each changed, and the
 * revert of one session as a set (revert.ts). Audited with the administrator and the key's name.
 */
import { z } from 'zod';
import { defineRoute, recordRequestAudit, type RouteDefinition } from '../../kernel/sdk.js';
import type { ContentClientFactory } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';
import { revertSession } from './revert.js';
import type { SessionStore } from './session-store.js';

const tags = ['mcp'];
const sessionView = z.object({
  _id: z.string(),
  keyId: z.string(),
  keyName: z.string(),
  startedAt: z.string(),
  lastActivityAt: z.string(),
  changes: z.number().int(),
  revertedAt: z.string().nullable(),
  revertedBy: z.string().nullable(),
});
const changeView = z.object({
  kind: z.enum(['created', 'updated']),
  collection: z.string().describe('The collection, or _media for a media item'),
  entryId: z.string(),
  versionAfter: z.number().int().nullable(),
  at: z.string(),
});
const idParams = z.object({ id: z.string().min(1).max(64) });

export function sessionRoutes(deps: {
  sessions: () => SessionStore;
  contentClient: () => ContentClientFactory;
  mediaClient: () => MediaClientFactory | undefined;
}): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/mcp/sessions',
      permission: 'mcp:manage',
      summary: "The agent (MCP) sessions of your tenant, newest activity first, with each one's count of changed entries",
      tags,
      request: {
        query: z.object({
          page: z.coerce.number().int().min(1).max(100000).default(1),
          limit: z.coerce.number().int().min(1).max(100).default(20),
        }),
      },
      response: z.object({ items: z.array(sessionView), total: z.number().int(), page: z.number().int(), limit: z.number().int() }),
      handler: ({ identity, query }) => deps.sessions().list(identity.tenantId, query.page, query.limit),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/mcp/sessions/:id',
      permission: 'mcp:manage',
      summary: 'One agent session with the entries and media items it created or changed (at most 1,000)',
      tags,
      request: { params: idParams },
      response: sessionView.extend({ changeList: z.array(changeView) }),
      async handler({ identity, params }) {
        const session = await deps.sessions().get(identity.tenantId, params.id);
        return { ...session, changeList: session.changeList.map(({ before: _before, ...c }) => c) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/mcp/sessions/:id/revert',
      permission: 'mcp:manage',
      summary: 'Reverts an agent session as one set: entries it created are deleted, entries it changed get their values and draft back',
      description:
        'Newest change first, acting as you (your content permissions apply). An entry changed by someone else since the agent wrote it, or deleted since, is left as it is and listed in `skipped`. A session is reverted once (409 MCP_SESSION_REVERTED); the agent cannot write under it afterwards.',
      tags,
      request: { params: idParams, body: z.object({}).strict().optional() },
      response: z.object({
        sessionId: z.string(),
        reverted: z.number().int(),
        skipped: z.array(z.object({ collection: z.string(), entryId: z.string(), reason: z.string() })),
      }),
      async handler(route) {
        const { identity, params } = route;
        const session = await deps.sessions().get(identity.tenantId, params.id);
        const answer = await revertSession(identity, params.id, {
          sessions: deps.sessions(),
          contentClient: deps.contentClient(),
          mediaClient: deps.mediaClient(),
        });
        await recordRequestAudit(route.ctx, {
          domain: 'mcp',
          outcome: 'success',
          operation: 'revert',
          action: 'mcp.session.revert',
          level: 'high',
          message: `Agent session of key "${session.keyName}" reverted: ${answer.reverted} change(s) undone, ${answer.skipped.length} skipped`,
          target: { type: 'mcp-session', id: params.id },
          details: { keyId: session.keyId, keyName: session.keyName, reverted: answer.reverted, skipped: answer.skipped.length },
        });
        return answer;
      },
    }),
  ];
}
