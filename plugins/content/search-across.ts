import { AppError, hasScopedPermission, type Identity } from '../../kernel/sdk.js';
import type { CollectionsService } from './collections-service.js';
import type { EntriesService } from './entries-service.js';
import type { Entry } from './entry-shape.js';

/** Collections one search looks in, at most. */
export const SEARCH_COLLECTIONS_MAX = 50;

export interface SearchAcrossQuery {
  q: string;
  collections?: string;
  limit: number;
  locale?: string;
}

export interface SearchAcrossAnswer {
  q: string;
  results: Array<{ collection: string; label: string; total: number; items: Entry[] }>;
}

/**
 * A search across collections (GET /api/search, GraphQL `search`): each collection the caller may read is listed with
 * `search` through the list's own read path (EntriesService.list), so every rule, the tenant and published-only apply;
 * a collection the caller's rules refuse in this locale is left out. Collections with no match are left out.
 */
export async function searchAcross(
  entries: EntriesService,
  collections: CollectionsService,
  identity: Identity,
  query: SearchAcrossQuery,
): Promise<SearchAcrossAnswer> {
  const named = query.collections
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const all = collections.list().filter((c) => !c.singleton);
  const chosen = (named ? all.filter((c) => named.includes(c.name)) : all)
    .filter((c) => hasScopedPermission(identity, 'content:read', c.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, SEARCH_COLLECTIONS_MAX);
  const answers = await Promise.all(
    chosen.map(async (c) => {
      try {
        const { value } = await entries.list(c.name, { page: 1, limit: query.limit, search: query.q, locale: query.locale }, identity);
        return { collection: c.name, label: c.label, total: value.total, items: value.items };
      } catch (err) {
        // A rule of the caller's role that refuses this collection in this locale: left out, as an unreadable one.
        if (err instanceof AppError && err.status === 403) return null;
        throw err;
      }
    }),
  );
  return { q: query.q, results: answers.filter((a): a is NonNullable<typeof a> => a !== null && a.total > 0) };
}
