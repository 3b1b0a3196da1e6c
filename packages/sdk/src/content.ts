// The entries of one collection: list (one page), all (every entry, page after page, as an async iterator), get,
// create, update, delete, publish and unpublish, the singleton's entry. Reads take populate, fields, locale and
// (lists) filter, sort, search and status, as GET /api/collections/:collection does (docs/features/content.md).
import type { Transport, QueryValue } from './transport.js';
import type {
  CollectionName,
  CreateInput,
  EntryOf,
  EntryShape,
  EntryStatus,
  FieldName,
  Filter,
  Page,
  PopulatePath,
  UpdateInput,
} from './types.js';

/** The options of a read of one entry. */
export interface ReadOptions<T, N extends CollectionName<T>, P extends PopulatePath<T, N>, F extends FieldName<T, N>> {
  /** Relation and media fields to answer as objects instead of ids (`['author', 'cover']`, `['author.avatar']`, `['*']`). */
  populate?: readonly P[];
  /** Only these fields (with `_id` and the locale keys). */
  fields?: readonly F[];
  /** The locale of localized fields (`*`: every locale's values). */
  locale?: string;
  signal?: AbortSignal;
}

/** The options of a list: a read's, and the filter, order and page. */
export interface ListOptions<T, N extends CollectionName<T>, P extends PopulatePath<T, N>, F extends FieldName<T, N>> extends ReadOptions<
  T,
  N,
  P,
  F
> {
  filter?: Filter<EntryOf<T, N>>;
  /** `title`, `-createdAt`, `price:desc`, comma-separated (default `-createdAt`). */
  sort?: string;
  /** Words to look for in the text fields and the slug. */
  search?: string;
  /** Only entries with this status (readers without content:write see published entries only anyway). */
  status?: EntryStatus;
  /** The page, from 1 (list only; all() and pages() then walk by page numbers from here). */
  page?: number;
  /** Cursor pages: the entries after a page's `nextCursor` (`''`: from the first entry); all() and pages() walk this way. */
  after?: string;
  /** Cursor pages: the entries before a page's `prevCursor`. */
  before?: string;
  /** Entries per page, at most 100 (list default 25; all() asks 100 at a time). */
  limit?: number;
}

export interface WriteOptions {
  /** The locale whose values of localized fields are written. */
  locale?: string;
  signal?: AbortSignal;
}

export interface UpdateOptions extends WriteOptions {
  /** Refuse (409 CONFLICT) unless the entry is still at this version (optimistic concurrency). */
  ifVersion?: number;
}

export interface CollectionClient<T, N extends CollectionName<T>> {
  readonly name: N;
  /** One page of entries: `{items, total, page, limit}` (with `after` or `before`: page null, and `nextCursor`, `prevCursor`). */
  list<const P extends PopulatePath<T, N> = never, const F extends FieldName<T, N> = never>(
    options?: ListOptions<T, N, P, F>,
  ): Promise<Page<EntryShape<T, N, P, F>>>;
  /** Every entry the list options select, fetching page after page (100 at a time) as the loop asks for them. */
  all<const P extends PopulatePath<T, N> = never, const F extends FieldName<T, N> = never>(
    options?: ListOptions<T, N, P, F>,
  ): AsyncIterableIterator<EntryShape<T, N, P, F>>;
  /** The pages themselves, one after the other (each `{items, total, page, limit}`). */
  pages<const P extends PopulatePath<T, N> = never, const F extends FieldName<T, N> = never>(
    options?: ListOptions<T, N, P, F>,
  ): AsyncIterableIterator<Page<EntryShape<T, N, P, F>>>;
  /** One entry by id (404 ENTRY_NOT_FOUND). */
  get<const P extends PopulatePath<T, N> = never, const F extends FieldName<T, N> = never>(
    id: string,
    options?: ReadOptions<T, N, P, F>,
  ): Promise<EntryShape<T, N, P, F>>;
  /** Creates an entry (a draft unless `status` is given). */
  create(fields: CreateInput<EntryOf<T, N>>, options?: WriteOptions): Promise<EntryOf<T, N>>;
  /** Changes the given fields. */
  update(id: string, fields: UpdateInput<EntryOf<T, N>>, options?: UpdateOptions): Promise<EntryOf<T, N>>;
  /** Deletes the entry and its revisions. */
  delete(id: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** Sets the status (with `locale`: of the entry's version in that locale). */
  setStatus(id: string, status: EntryStatus, options?: WriteOptions): Promise<EntryOf<T, N>>;
  /** Publishes the entry: readers see it from now on. */
  publish(id: string, options?: WriteOptions): Promise<EntryOf<T, N>>;
  /** Takes the entry back to draft: readers no longer see it. */
  unpublish(id: string, options?: WriteOptions): Promise<EntryOf<T, N>>;
  /** A singleton collection's one entry (404 ENTRY_NOT_FOUND before it is written). */
  single<const P extends PopulatePath<T, N> = never, const F extends FieldName<T, N> = never>(
    options?: ReadOptions<T, N, P, F>,
  ): Promise<EntryShape<T, N, P, F>>;
}

/** The options as the implementation reads them (the typed shapes are checked at the call). */
interface LooseOptions {
  populate?: readonly string[];
  fields?: readonly string[];
  locale?: string;
  filter?: unknown;
  sort?: string;
  search?: string;
  status?: EntryStatus;
  page?: number;
  after?: string;
  before?: string;
  limit?: number;
  signal?: AbortSignal;
}

/** The query string of a read or a list: arrays as comma lists, the filter as JSON. */
function readQuery(options: LooseOptions, locale: string | undefined): Record<string, QueryValue> {
  return {
    populate: options.populate?.join(','),
    fields: options.fields?.join(','),
    locale: options.locale ?? locale,
    filter: options.filter === undefined ? undefined : JSON.stringify(options.filter),
    sort: options.sort,
    search: options.search,
    status: options.status,
    page: options.page,
    after: options.after,
    before: options.before,
    limit: options.limit,
  };
}

const MAX_LIMIT = 100;

export function collectionClient<T, N extends CollectionName<T>>(
  transport: Transport,
  name: N,
  locale: string | undefined,
): CollectionClient<T, N> {
  if (typeof name !== 'string' || !name) throw new TypeError('collection(name): name a collection');
  const base = `/api/collections/${encodeURIComponent(name)}`;
  const entry = (id: string) => {
    if (typeof id !== 'string' || !id) throw new TypeError(`${name}: an entry id is required`);
    return `${base}/${encodeURIComponent(id)}`;
  };
  const list = (options: LooseOptions = {}) =>
    transport.request<Page<any>>(base, { query: readQuery(options, locale), signal: options.signal });
  async function* pages(options: LooseOptions = {}): AsyncGenerator<Page<any>> {
    const limit = Math.min(options.limit ?? MAX_LIMIT, MAX_LIMIT);
    // By cursor (unless a page number is asked for): each page starts after the last entry given, so entries written
    // meanwhile move none to another page, and the thousandth page costs what the first does.
    if (options.page === undefined && options.before === undefined) {
      let after = options.after ?? '';
      for (;;) {
        const answer = await list({ ...options, after, limit });
        // A server without cursors answers a page number: walk by numbers from its second page.
        if (answer.page !== null) {
          yield answer;
          if (answer.items.length < answer.limit || answer.limit >= answer.total) return;
          yield* numbered({ ...options, after: undefined }, limit, 2);
          return;
        }
        yield answer;
        if (!answer.nextCursor) return;
        after = answer.nextCursor;
      }
    }
    yield* numbered(options, limit, Math.max(1, options.page ?? 1));
  }
  async function* numbered(options: LooseOptions, limit: number, from: number): AsyncGenerator<Page<any>> {
    // At most as many pages as the first answer's total asks for (and one more, should entries be added meanwhile).
    let last = Infinity;
    for (let page = from; page <= last; page++) {
      const answer = await list({ ...options, page, limit });
      yield answer;
      if (last === Infinity) last = Math.ceil(answer.total / Math.max(1, answer.limit)) + 1;
      if (answer.items.length < answer.limit || page * answer.limit >= answer.total) return;
    }
  }
  async function* all(options: LooseOptions = {}): AsyncGenerator<any> {
    // Pages by number are offsets: an entry written during the loop may move one from a page to the next; it is given once.
    const seen = new Set<string>();
    for await (const answer of pages(options)) {
      for (const item of answer.items) {
        const id = typeof item?._id === 'string' ? item._id : undefined;
        if (id !== undefined) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        yield item;
      }
    }
  }
  const write = (method: string, path: string, body: unknown, options: UpdateOptions = {}) =>
    transport.request<any>(path, {
      method,
      body,
      query: { locale: options.locale ?? locale, ifVersion: options.ifVersion },
      signal: options.signal,
    });
  const setStatus = (id: string, status: EntryStatus, options?: WriteOptions) => write('PATCH', `${entry(id)}/status`, { status }, options);
  const client: CollectionClient<any, any> = {
    name,
    list,
    all,
    pages,
    get: (id, options = {}) => transport.request(entry(id), { query: readQuery(options, locale), signal: options.signal }),
    create: (fields, options) => write('POST', base, fields, options),
    update: (id, fields, options) => write('PATCH', entry(id), fields, options),
    delete: async (id, options = {}) => {
      await transport.request(entry(id), { method: 'DELETE', signal: options.signal });
    },
    setStatus,
    publish: (id, options) => setStatus(id, 'published', options),
    unpublish: (id, options) => setStatus(id, 'draft', options),
    single: (options = {}) => transport.request(`${base}/single`, { query: readQuery(options, locale), signal: options.signal }),
  };
  return client as CollectionClient<T, N>;
}
