import { optional, type SystemJob } from '../../kernel/sdk.js';

type Cradle = Record<string, any>;

/** The content plugin's services, reached through the container (absent when it is disabled). */
function contentServices(cradle: Cradle) {
  const collections = optional(cradle, 'collections');
  const entries = optional(cradle, 'entries');
  return collections && entries ? { collections, entries } : null;
}

/** 'default' and every tenant the auth plugin knows (when it is there). */
async function tenantIds(cradle: Cradle): Promise<string[]> {
  const tenants = optional(cradle, 'tenants');
  return [...new Set(['default', ...(tenants ? (await tenants.list()).map((t) => t.id) : [])])];
}

export const rebuildListCachesJob: SystemJob = {
  name: 'rebuild-list-caches',
  description: 'Drops every cached collection list (all tenants, every instance); the next read of a list rebuilds it from the database.',
  async handler({ container, progress }) {
    const content = contentServices(container.cradle);
    if (!content) return { collections: 0, tenants: 0, note: 'The content plugin is not enabled: there are no list caches' };
    const names = content.collections
      .list()
      .map((c) => c.name)
      .sort();
    const tenants = await tenantIds(container.cradle);
    let done = 0;
    for (const tenant of tenants) {
      for (const name of names) await content.entries.invalidateLists(tenant, name);
      await progress(++done, tenants.length);
    }
    return { collections: names.length, tenants: tenants.length, cleared: names };
  },
};

/**
 * Content search has no index: GET /api/collections/:name/entries?search= scans the slug and the text,
 * richtext and select columns at query time (plugins/content/list-query.ts), so there is nothing to
 * rebuild; searched lists are cached with the other lists (rebuild-list-caches drops them).
 */
export const reindexSearchJob: SystemJob = {
  name: 'reindex-search',
  description: 'Content search reads the entries at query time and keeps no index, so this reports that there is nothing to re-index.',
  async handler() {
    return {
      reindexed: 0,
      note: 'Content search has no index to rebuild: it scans slugs and text fields at query time. Cached search results are list caches (rebuild-list-caches).',
    };
  },
};
