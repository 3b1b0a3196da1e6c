/** What the routes of an entry's own state share (preview links, publish schedule). */
import { z } from 'zod';
import { defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';

/** Where a route of an entry's own state is, and who may use it: content:write, tagged as the entries' routes. */
export const entryStateAccess = (path: string) => ({ path, permission: 'content:write', tags: ['entries'] });

export const entryParams = { params: z.object({ collection: z.string().min(1).max(64), entryId: z.string().min(1).max(64) }) };

/**
 * GET of an entry's own state: the entry is read first (so a missing one answers as its GET does), then
 * `read` answers for it.
 */
export function entryStateRoute(
  path: string,
  summary: string,
  response: z.ZodType,
  read: (scope: RouteContext['scope'], tenantId: string, collection: string, entryId: string) => Promise<unknown>,
): RouteDefinition {
  return defineRoute({
    method: 'GET',
    ...entryStateAccess(path),
    summary,
    request: entryParams,
    response,
    async handler({ params, identity, scope }) {
      await scope.content.entries(params.collection).get(params.entryId);
      return read(scope, identity.tenantId, params.collection, params.entryId);
    },
  });
}
