// The shell's search across collections (components/GlobalSearch.svelte): GET /api/search, its answer made into
// the options the box lists (an entry's title and the snippet of a match), and the snippets read safely.
// docs/features/search.md tells what a search matches.
import { remote, type ApiRoutes } from './remote';

/** Entries per collection the box shows. */
export const GLOBAL_SEARCH_LIMIT = 5;
/** How long typing pauses before the search runs. */
export const GLOBAL_SEARCH_DELAY_MS = 200;
/** The longest term the API reads. */
export const GLOBAL_SEARCH_MAX = 200;

type Answer = ApiRoutes['GET /api/search']['response'];
type Item = Answer['results'][number]['items'][number];

/** A piece of a snippet: text, marked when it is a match. */
export interface Segment {
  text: string;
  mark: boolean;
}

/** One line of the list: an entry, or the link to all of a collection's matches. */
export interface SearchOption {
  /** The option's element id (unique in the list). */
  key: string;
  kind: 'entry' | 'more';
  collection: string;
  /** Where choosing it goes. */
  href: string;
  /** The entry's title, with its matches marked when the title is what matched. */
  title: Segment[];
  /** The snippet of another field that matched (empty when none). */
  snippet: Segment[];
}

export interface SearchGroup {
  collection: string;
  label: string;
  total: number;
  options: SearchOption[];
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const unescape = (s: string) => s.replace(/&(lt|gt|quot|#39|amp);/g, (m) => ENTITIES[m]!);

/**
 * A highlight snippet (`a &amp; <mark>b</mark>`) as text pieces: split at <mark> and </mark>, the escapes read back
 * into characters. Nothing in it is ever read as HTML: the pieces are rendered as text.
 */
export function segmentsOf(snippet: string): Segment[] {
  const out: Segment[] = [];
  let mark = false;
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>') mark = true;
    else if (part === '</mark>') mark = false;
    else if (part) out.push({ text: unescape(part), mark });
  }
  return out;
}

const TITLE_KEYS = ['title', 'name', 'label', 'headline', 'subject', 'question'];
const SYSTEM_KEYS = new Set(['slug', 'status', 'syncId', 'createdBy', 'updatedBy', 'createdAt', 'updatedAt']);

/** The field an entry is named by: title, name, …, else its first short text value; null: its slug or id. */
export function titleKey(item: Item): string | null {
  for (const key of TITLE_KEYS) if (typeof item[key] === 'string' && item[key]) return key;
  for (const [key, value] of Object.entries(item))
    if (
      !key.startsWith('_') &&
      !SYSTEM_KEYS.has(key) &&
      typeof value === 'string' &&
      value &&
      value.length <= 200 &&
      !value.startsWith('<')
    )
      return key;
  return null;
}

const plain = (text: string): Segment[] => [{ text, mark: false }];

function optionOf(collection: string, item: Item): SearchOption {
  const id = String(item._id);
  const highlight = (item._highlight && typeof item._highlight === 'object' ? item._highlight : {}) as Record<string, unknown>;
  const key = titleKey(item);
  const titleText = key ? String(item[key]) : String(item.slug || id);
  const titleMarked = key && typeof highlight[key] === 'string' ? (highlight[key] as string) : null;
  const other = Object.entries(highlight).find(([field, s]) => field !== key && typeof s === 'string');
  return {
    key: `${collection}-${id}`,
    kind: 'entry',
    collection,
    href: `/admin/content/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`,
    title: titleMarked ? segmentsOf(titleMarked) : plain(titleText),
    snippet: other ? segmentsOf(other[1] as string) : [],
  };
}

/** The answer as groups: a collection's entries, and a link to all its matches when there are more. */
export function groupsOf(answer: Answer): SearchGroup[] {
  return answer.results.map((r) => {
    const options = r.items.map((item) => optionOf(r.collection, item));
    if (r.total > options.length)
      options.push({
        key: `${r.collection}--more`,
        kind: 'more',
        collection: r.collection,
        href: `/admin/content/${encodeURIComponent(r.collection)}?search=${encodeURIComponent(answer.q)}`,
        title: [],
        snippet: [],
      });
    return { collection: r.collection, label: r.label, total: r.total, options };
  });
}

/** Searches every collection the user may read: the best GLOBAL_SEARCH_LIMIT matches of each, grouped. */
export async function searchEverywhere(term: string, signal?: AbortSignal): Promise<SearchGroup[]> {
  const q = term.trim().slice(0, GLOBAL_SEARCH_MAX);
  return groupsOf(await remote('GET /api/search', { query: { q, limit: GLOBAL_SEARCH_LIMIT }, signal }));
}
