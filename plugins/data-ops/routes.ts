import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { STREAM_PERMISSION } from './completion-stream.js';

export const dataOpsRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/data-ops/events',
    permission: STREAM_PERMISSION,
    tags: ['data-ops'],
    envelope: false,
    rateLimit: false,
    summary: 'The completion of every data operation of your tenant, on any instance, as server-sent events',
    description:
      'text/event-stream: `event: completed` with data = {domain, planId, jobId (null when inline), tenantId, outcome: success|partial|failure|rollback, ' +
      'summary: {created, updated, deleted, skipped, failed}, durationMs}, one per apply (inline or background) of any domain; a comment line (`: heartbeat`) ' +
      "every 15 s. The request must accept text/event-stream (406 EVENT_STREAM_NOT_ACCEPTED otherwise). `?domain=` keeps one domain's events; other query parameters are refused (400). " +
      'At most DATA_OPS_MAX_STREAMS_PER_IDENTITY (5) streams per identity (a user with its sessions, API keys and website tokens; 429 TOO_MANY_STREAMS beyond) ' +
      'and DATA_OPS_MAX_STREAMS (200) per instance (503 EVENT_STREAM_LIMIT beyond). The stream ends (`event: ended`, data {reason}) as soon as its ' +
      'session or token ends (sign-out, revocation, a blocked or deleted user, on any instance) or its caller loses dashboard:read.',
    request: { query: z.object({ domain: z.string().min(1).max(64).optional().describe("only this domain's completions") }).strict() },
    handler: ({ ctx, query, identity, scope }) => {
      scope.dataOpsStreams.serve(ctx, identity, query.domain ?? null);
    },
  }),
];
