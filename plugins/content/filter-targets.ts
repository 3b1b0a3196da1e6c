import type { CollectionDefinition } from './collection-schema.js';
import { RELATION_PATH_DEPTH } from './list-filter.js';
import { inverseOf } from './relation-inverse.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** At most this many keys of a filter are looked at (the filter itself allows 50 conditions in 5 levels of groups). */
const KEYS_MAX = 500;

/**
 * The collections a list filter's relation paths step into (`author.name`: authors; `author.country.name`: countries
 * too; an inverse field: its source), so that a cached list filtered by them changes when one of them is written (the
 * list cache's `also`; in a locale, their translations). A filter that is not JSON or names an unknown path gives
 * what was found before it (such a list is answered 400 and not cached).
 */
export function filterTargets(
  c: CollectionDefinition,
  text: string | undefined,
  lookup: (name: string) => CollectionDefinition | undefined,
): string[] {
  if (!text) return [];
  let filter: unknown;
  try {
    filter = JSON.parse(text);
  } catch {
    return [];
  }
  const found = new Set<string>();
  let keys = 0;
  const path = (segments: string[]) => {
    let at: CollectionDefinition | undefined = c;
    for (const name of segments.slice(0, Math.min(segments.length - 1, RELATION_PATH_DEPTH))) {
      const f = at?.fields.find((x) => x.name === name);
      const next = f ? (inverseOf(f)?.source ?? (f.type === 'relation' ? f.collection : undefined)) : undefined;
      if (!next) return;
      found.add(next);
      at = lookup(next);
    }
  };
  const walk = (node: unknown, depth: number): void => {
    if (depth > 8) return;
    if (Array.isArray(node)) for (const item of node.slice(0, KEYS_MAX)) walk(item, depth + 1);
    else if (isObject(node))
      for (const [key, value] of Object.entries(node)) {
        if (++keys > KEYS_MAX) return;
        if (key === '$or' || key === '$and' || key === '$not') walk(value, depth + 1);
        else if (key.includes('.')) path(key.split('.'));
      }
  };
  walk(filter, 0);
  return [...found];
}
