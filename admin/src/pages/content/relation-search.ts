// What the relation pickers read from the target collection: its schema, a bounded search of its entries
// (GET /api/collections/:collection?search=…&limit=…, newest first) and the titles of entries already chosen.
import { remote } from '../../lib/remote';
import { asCollection, entryTitle, type Collection, type Entry, type Field } from './content';

/** How many entries one search shows (the list endpoint allows up to 100). */
export const SEARCH_LIMIT = 10;
/** How long typing pauses before the search runs. */
export const SEARCH_DELAY_MS = 250;
/** At most this many chosen entries are looked up by id for their titles (the rest show their ids). */
const TITLE_LOOKUPS = 100;

/** An entry as a picker shows it: its id, its title and its status. */
export interface EntryOption {
  id: string;
  title: string;
  status: string;
}

export const optionOf = (e: Entry, fields: Field[]): EntryOption => ({ id: e._id, title: entryTitle(e, fields), status: e.status });
/** `Ada Lovelace (published)`: how an option is named in lists and on buttons. */
export const optionName = (o: EntryOption) => (o.status ? `${o.title} (${o.status})` : o.title);

export async function targetSchema(collection: string): Promise<Collection> {
  return asCollection(await remote('GET /api/collections/:collection/schema', { params: { collection } }));
}

/** The newest entries matching `term` (all entries when it is empty), at most SEARCH_LIMIT and `total`. */
export async function searchEntries(collection: string, term: string, fields: Field[]): Promise<{ options: EntryOption[]; total: number }> {
  const search = term.trim().slice(0, 200);
  const list = await remote('GET /api/collections/:collection', {
    params: { collection },
    query: { limit: SEARCH_LIMIT, sort: '-updatedAt', ...(search ? { search } : {}) },
  });
  return { options: list.items.map((e) => optionOf(e, fields)), total: list.total };
}

/** The titles of chosen entries, by id (an entry that cannot be read keeps its id as its title). */
export async function chosenOptions(collection: string, ids: string[], fields: Field[]): Promise<Map<string, EntryOption>> {
  const found = new Map<string, EntryOption>();
  await Promise.all(
    ids.slice(0, TITLE_LOOKUPS).map(async (entryId) => {
      try {
        found.set(
          entryId,
          optionOf(await remote('GET /api/collections/:collection/:entryId', { params: { collection, entryId } }), fields),
        );
      } catch {
        // A missing or unreadable entry: shown by its id.
      }
    }),
  );
  return found;
}

/**
 * The fields the in-place "create" dialog asks for: the required ones and the title (title, name or the first
 * text field), of the types a short form can take; `missing` names required fields it cannot take.
 */
const SIMPLE = new Set(['text', 'email', 'url', 'color', 'number', 'boolean', 'date', 'select']);
export function createFields(c: Collection): { fields: Field[]; missing: Field[] } {
  const titleField =
    c.fields.find((f) => f.name === 'title' && f.type === 'text') ??
    c.fields.find((f) => f.name === 'name' && f.type === 'text') ??
    c.fields.find((f) => f.type === 'text');
  const wanted = c.fields.filter((f) => f.required || f === titleField);
  return { fields: wanted.filter((f) => SIMPLE.has(f.type)), missing: wanted.filter((f) => f.required && !SIMPLE.has(f.type)) };
}
