import { z } from 'zod';
import { defineRoute, ForbiddenError, hasScopedPermission, type RouteDefinition } from '../../kernel/sdk.js';
import { localeParam } from './routes-entries.js';
import { searchAcross } from './search-across.js';

/** GET /api/search: full-text search across the collections the caller may read (docs/features/search.md). */
export const searchRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/search',
    permission: 'content:read',
    tags: ['entries'],
    summary: 'Searches entries across the collections the caller may read: the best matches of each, grouped by collection',
    description:
      'q: words (each matches as a prefix) and "quoted phrases". Each collection is searched as its list\'s `search` is (GET /api/collections/{collection}?search=), with every rule of the caller\'s role, its tenant and (without content:write) published entries only; collections it may not read are left out. Each item carries `_highlight` (field -> snippet, matches in <mark>, the rest HTML-escaped).',
    request: {
      query: z.object({
        q: z.string().trim().min(1).max(200).describe('The search term'),
        collections: z
          .string()
          .max(2000)
          .optional()
          .describe('Comma-separated collection names (default: every collection the caller may read)'),
        limit: z.coerce.number().int().min(1).max(50).default(5).describe('Entries per collection (5; at most 50)'),
        locale: localeParam,
      }),
    },
    response: z.object({
      q: z.string(),
      results: z.array(
        z.object({
          collection: z.string(),
          label: z.string(),
          total: z.number(),
          items: z.array(z.record(z.string(), z.unknown())),
        }),
      ),
    }),
    handler: ({ query, identity, scope }) => {
      const all = scope.collections.list();
      // No collection yet (a new installation): nothing to find, not a refusal.
      if (!all.length) return { q: query.q, results: [] };
      if (!all.some((c) => hasScopedPermission(identity, 'content:read', c.name))) throw new ForbiddenError('You may read no collection');
      return searchAcross(scope.entries, scope.collections, identity, query);
    },
  }),
];
