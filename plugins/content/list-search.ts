import { Sequelize, type Order } from 'sequelize';
import type { RuleLimits } from '../../kernel/sdk.js';
import type { LoadedCollection } from './collections-service.js';
import type { EntryLocales } from './entry-locales.js';
import type { Entry } from './entry-shape.js';
import type { ListQuery } from './list-query.js';
import { searchFields, type SearchEngine, type SearchMatch } from './search-engine.js';
import { highlights, readTerm } from './search-text.js';

/**
 * The search engine's matches for a list's `search` (docs/features/search.md); null: none asked, or compared by
 * substring (list-query.ts): the engine cannot read the term, or the caller's read rule hides a searched field.
 */
export async function searchMatch(
  engine: SearchEngine | undefined,
  localised: EntryLocales | undefined,
  c: LoadedCollection,
  query: Pick<ListQuery, 'search'>,
  who: { tenantId: string; locale: string | undefined; limits: RuleLimits | null | undefined; all: boolean },
): Promise<SearchMatch | null> {
  const term = query.search?.trim();
  if (!term || !engine) return null;
  const visible = who.limits?.fields;
  if (visible && searchFields(c).some((f) => !visible.has(f.name))) return null;
  const defaultCode = localised?.defaultCode() ?? 'en';
  const { locale } = who;
  const chain =
    locale === undefined || locale === '*' || locale === defaultCode
      ? []
      : (localised?.locales()?.chain(locale) ?? [locale]).filter((code) => code !== defaultCode);
  return engine.match({ collection: c.name, tenantId: who.tenantId, term, chain, publishedOnly: !who.all });
}

/** `_highlight` on each item of a searched list: its searched fields' snippets with the matches marked (search-text.ts). */
export function markHighlights(c: LoadedCollection, items: Entry[], search: string): void {
  const term = readTerm(search);
  const fields = searchFields(c);
  for (const item of items) item._highlight = highlights(fields, item, term);
}

/** A search without a sort: the most relevant first, then the list's order (a cursor page keeps the list's own order). */
export function relevanceFirst(match: SearchMatch | null, query: Pick<ListQuery, 'sort'>, cursor: unknown, sorted: Order): Order {
  if (!match || query.sort || cursor) return sorted;
  return [[Sequelize.literal('_search._srank'), 'ASC'], ...(sorted as unknown[])] as Order;
}
