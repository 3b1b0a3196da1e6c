import { type Model, type Sequelize, type Transaction } from 'sequelize';
import { type EventBus, type Logger, type Identity, type RuleAction, modelsOf, ruleLimits, ValidationError } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { EntryAnnouncer } from './entry-announcer.js';
import { EntryBulkWrites, type PreparedBatch, type PreparedHooks } from './entry-bulk-writes.js';
import { EntryReads, type ReadOptions } from './entry-reads.js';
import type { PopulateDeps } from './populate.js';
import { EntrySingles } from './entry-single.js';
import { EntryRevisions } from './entry-revisions.js';
import { toEntry, type ContentEvent, type Entry, type EntryChange, type EntryList } from './entry-shape.js';
import { EntrySlugs } from './entry-slugs.js';
import type { ListAnswer, ListCache } from './list-cache.js';
import type { ListQuery } from './list-query.js';
import { Revision } from './models/revision.js';
import type { RichTextSanitizer } from './rich-text-pool.js';
import { EntryLocales, localizedFields } from './entry-locales.js';
import { DraftStore, EntryDrafts } from './entry-drafts.js';
import type { LocalesService } from './locales-service.js';
import { EntryHooks } from './entry-hooks.js';
import { eventEntryUnderRule } from './entry-event-access.js';
import { answerFor, assertLocale } from './entry-access.js';
import { DEFAULT_MAX_LIST_OFFSET } from './list-cursor.js';
import { SqlSearchEngine, type SearchEngine } from './search-engine.js';

export type { ContentEvent, Entry, EntryChange, EntryList } from './entry-shape.js';

/**
 * Entries of every collection: validation against the schema, unique slugs (deduplicated with -2,
 * -3, ...), a revision after each write, tenant scoping, and the list cache. Callers without
 * content:write see published entries only. After each committed write the collection's cached lists
 * are invalidated and an event is published.
 *
 * The work is done by one module per concern: reads and lists (entry-reads.ts), writes of one entry
 * (entry-writes.ts), bulk writes (entry-bulk-writes.ts), slugs (entry-slugs.ts), revisions
 * (entry-revisions.ts), and what follows a commit (entry-announcer.ts); this class is their API.
 */
export class EntriesService {
  private readonly reads: EntryReads;
  private readonly writes: EntryBulkWrites;
  private readonly revisionLog: EntryRevisions;
  private readonly announcer: EntryAnnouncer;
  /** Singletons' GET|PUT .../single (entry-single.ts). */
  readonly single: EntrySingles;
  /** Publish guards and answer decorators other plugins add (entry-hooks.ts; review stages use them). */
  readonly hooks = new EntryHooks();

  constructor(
    sequelize: Sequelize,
    collections: CollectionsService,
    lists: ListCache,
    events: EventBus,
    logger?: Logger,
    /** Sanitises the rich text of large writes in the worker pool (else toColumn does it inline). */
    richText?: RichTextSanitizer,
    /** The media plugin's lookup for populated media fields (absent without the media plugin). */
    media?: PopulateDeps['media'],
    /** The locales (localized fields; entry-locales.ts). */
    locales: () => LocalesService | undefined = () => undefined,
    /** The deepest entry a list reaches by page number (plugins.options.content.maxListOffset). */
    maxListOffset = DEFAULT_MAX_LIST_OFFSET,
  ) {
    const localised = new EntryLocales(sequelize, locales);
    const drafts = new DraftStore(sequelize);
    this.revisionLog = new EntryRevisions(sequelize, modelsOf(sequelize.models, { Revision }).Revision);
    this.reads = new EntryReads(
      sequelize,
      collections,
      lists,
      this.revisionLog,
      media,
      localised,
      drafts,
      this.hooks,
      () => this.search,
      maxListOffset,
    );
    this.search = new SqlSearchEngine(sequelize, {
      collection: async (name) => collections.find(name),
      readEntries: (c, ids, tenantId, transaction) => this.reads.readEntries(c, ids, tenantId, transaction),
      localised,
    });
    // The search index follows every write, inside its transaction (entry-revisions.ts).
    this.revisionLog.observer = {
      written: (collection, tenantId, ids, transaction) => this.search.index(collection, tenantId, ids, transaction),
      removed: (collection, tenantId, ids, transaction) => this.search.remove(collection, tenantId, ids, transaction),
    };
    this.announcer = new EntryAnnouncer(lists, events, logger);
    const slugs = new EntrySlugs(sequelize);
    this.writes = new EntryBulkWrites(
      sequelize,
      collections,
      slugs,
      this.revisionLog,
      this.announcer,
      richText,
      localised,
      drafts,
      this.hooks,
    );
    this.single = new EntrySingles(collections, this.writes, this.reads);
    this.drafts = new EntryDrafts(drafts, collections, this.writes, this.reads, this.announcer, richText);
    this.draftStore = drafts;
    this.collectionsService = collections;
    this.localised = localised;
  }

  /** The search engine lists ask (search-engine.ts); the built-in SQL one unless a plugin replaced it (useSearchEngine). */
  search: SearchEngine;

  /** Replaces the search engine (a plugin's, e.g. a bigger engine's): it is kept in step with writes from now on. */
  useSearchEngine(engine: SearchEngine): void {
    this.search = engine;
  }

  /** Working drafts of collections with `drafts: true` (entry-drafts.ts): GET|PUT|DELETE .../draft, POST .../draft/publish. */
  readonly drafts: EntryDrafts;
  private readonly draftStore: DraftStore;
  private readonly collectionsService: CollectionsService;
  private readonly localised: EntryLocales;

  /** `hasDraft` on a write's answer (collections with drafts; a writer's answer), without the fields its read rule hides. */
  private async withDraftFlag(name: string, entry: Entry, identity: Identity, locale?: string): Promise<Entry> {
    const c = await this.collectionsService.get(name);
    await this.draftStore.mark(c, [entry], identity.tenantId, this.localised.resolve(locale), this.localised.defaultCode());
    return answerFor(name, entry, identity);
  }

  toEntry(c: LoadedCollection, row: Model | Record<string, unknown>): Entry {
    return toEntry(c, row);
  }

  /**
   * A list for the HTTP route: 304 when If-None-Match names the list's current tag (checked before any
   * loading), else the serialised envelope, cached or loaded (see ListCache). `cached` feeds X-Cache.
   */
  answerList(name: string, query: ListQuery, identity: Identity, ifNoneMatch = ''): Promise<ListAnswer> {
    return this.reads.answerList(name, query, identity, ifNoneMatch);
  }

  /** A list as data (GraphQL, the in-process client), through the same cache. */
  list(name: string, query: ListQuery, identity: Identity): Promise<{ value: EntryList; cached: boolean }> {
    return this.reads.list(name, query, identity);
  }

  /** Entries by id as `identity` may read them, in one query per 500 ids (GraphQL's batched relations); `locale`: in that locale. */
  getMany(name: string, ids: string[], identity: Identity, locale?: string): Promise<Map<string, Entry>> {
    return this.reads.getMany(name, ids, identity, locale);
  }

  /** One entry as `identity` may read it; `fields` is the `fields=` parameter (field-selection.ts). */
  get(name: string, id: string, identity: Identity, options: ReadOptions = {}): Promise<Entry> {
    return this.reads.get(name, id, identity, options);
  }

  /**
   * Drops every cached list of a collection in a tenant (all filtered, sorted and searched variants, on
   * every instance): for writers that change rows outside this service (data migrations, restores), after
   * their transaction committed.
   */
  invalidateLists(tenantId: string, collection: string): Promise<void> {
    return this.announcer.invalidateLists(tenantId, collection);
  }

  /** Revisions follow entries moved to another collection (by a data migration, inside its transaction). */
  moveRevisions(tenantId: string, from: string, to: string, ids: string[], transaction: Transaction): Promise<void> {
    return this.revisionLog.move(tenantId, from, to, ids, transaction);
  }

  /**
   * The entries of these ids (tenant) as stored, read inside the caller's transaction (BULK_CHUNK ids a
   * query): for writers that change rows directly (data migrations), to record and announce them.
   */
  readEntries(c: LoadedCollection, ids: string[], tenantId: string, transaction?: Transaction): Promise<Entry[]> {
    return this.reads.readEntries(c, ids, tenantId, transaction);
  }

  /**
   * One revision per entry (the entry as written, see readEntries; its version), bulk inserted inside
   * the writer's transaction: for writers that change rows outside this service (data migrations,
   * action 'migrate'). A rollback takes the revisions with it.
   */
  recordRevisions(
    collection: string,
    entries: Entry[],
    tenantId: string,
    userId: string | null,
    action: string,
    transaction: Transaction,
  ): Promise<void> {
    return this.revisionLog.recordMany({ collection, tenantId, userId, transaction }, entries, action);
  }

  /**
   * After the writer's commit: publishes one entry event per change (on:create, on:update, on:delete,
   * payload ContentEvent as for writes through this service; a create of an entry created published also
   * publishes on:publish), ANNOUNCE_CHUNK changes at a time with a yield to the event loop in between. N changes
   * publish N events, plus one per entry created published. The list caches are the writer's
   * (invalidateLists). A failed publish is logged and the others still go out; nothing is thrown.
   */
  announceChanges(tenantId: string, userId: string | null, changes: EntryChange[]): Promise<void> {
    return this.announcer.announceChanges(tenantId, userId, changes);
  }

  /** `locale`: created in that locale (its localized values there; entry-writes.ts). */
  async create(name: string, body: unknown, identity: Identity, locale?: string): Promise<Entry> {
    return this.withDraftFlag(name, await this.writes.create(name, body, identity, locale), identity, locale);
  }

  /**
   * All or nothing: one transaction; a problem names its entry (body.entries.<i>.<field>). Entries whose slug
   * is free go in with one multi-row insert (inside a savepoint); the rest, and the whole batch when that
   * insert meets a unique violation, take the one-by-one path that finds free slugs and names the field.
   */
  async createMany(name: string, raw: unknown[], identity: Identity, locale?: string): Promise<Entry[]> {
    return (await this.writes.createMany(name, raw, identity, locale)).map((e) => answerFor(name, e, identity));
  }

  /**
   * Bulk creation of entries whose rows were prepared off the event loop (the importers' worker task:
   * checked against this schema version with entry-values.ts, rich text sanitised, ids made): in one
   * short transaction, free slugs for the batch (one query), multi-row INSERTs of the rows and of their
   * revisions (no model instances; statements bounded in variables and bytes), and the caller's own
   * writes (`inTransaction`, e.g. the import ledger; it must only write through the transaction). After
   * the commit, the list cache is invalidated once and one on:create event per entry is published
   * (announceChanges: chunked, yielding). A changed schema or a unique violation throws: nothing was
   * written, and the caller takes the one-by-one path (create), which names the field.
   */
  insertPrepared(name: string, batch: PreparedBatch, identity: Identity, hooks: PreparedHooks = {}): Promise<Entry[]> {
    return this.writes.insertPrepared(name, batch, identity, hooks);
  }

  /** A partial update; the version guards against a concurrent write (409). `locale`: that locale's values (entry-locales.ts). */
  /** `ifVersion`: the version the change was made from; another version now is 409 CONFLICT (StaleVersionError). */
  async update(name: string, id: string, body: unknown, identity: Identity, locale?: string, ifVersion?: number): Promise<Entry> {
    return this.withDraftFlag(name, await this.writes.update(name, id, body, identity, locale, [], ifVersion), identity, locale);
  }

  /**
   * See EntryWrites.restore: a revision's state written as a new version (a locale's revision: that locale's); in a
   * collection with working drafts, written into the entry's draft instead (entry-drafts.ts).
   */
  async restoreRevision(name: string, id: string, version: number, identity: Identity): Promise<Entry> {
    if (await this.drafts.enabled(name)) return this.drafts.restore(name, id, version, identity);
    const entry = await this.writes.restore(name, id, version, identity);
    return this.withDraftFlag(name, entry, identity);
  }

  /** See EntryWrites.versionLocale: '' for the entry's row, else the non-default locale with its own version. */
  versionLocale(name: string, locale: string | undefined): Promise<string> {
    return this.writes.versionLocale(name, locale);
  }

  async remove(name: string, id: string, identity: Identity): Promise<void> {
    await this.writes.removeMany(name, [id], identity, true);
  }

  /** Deletes the entries of these ids (of the caller's tenant) and their revisions. */
  removeMany(name: string, ids: string[], identity: Identity, mustExist = false): Promise<number> {
    return this.writes.removeMany(name, ids, identity, mustExist);
  }

  /** The caller's rules allow `action` on these entries (with this body and locale): else 403 (entry-access.ts). */
  assertMayAct(name: string, ids: string[], identity: Identity, action: RuleAction, body?: unknown, locale?: string): Promise<void> {
    return this.writes.assertMayAct(name, ids, identity, action, body, locale);
  }

  /** Which of these ids still exist (in the caller's tenant), one query. */
  existingIds(name: string, ids: string[], identity: Identity): Promise<Set<string>> {
    return this.reads.existingIds(name, ids, identity);
  }

  /**
   * An entry event's entry as the caller's read rule lets it see it (without the fields the rule hides), or
   * undefined when the rule's `where` (or `locales`) leaves it out; the entry itself without a rule. For streams
   * that hand out entries as they change (GraphQL subscriptions; entry-event-access.ts). `gone`: the entry was
   * deleted (checked against its values; else in the database).
   */
  eventEntry(name: string, entry: Entry, identity: Identity, gone: boolean, locale?: string): Promise<Entry | undefined> {
    const how = {
      collection: () => this.collectionsService.get(name),
      scope: this.reads.ruleScope(identity),
      defaultLocale: locale ?? this.localised.defaultCode(),
    };
    return eventEntryUnderRule(how, name, entry, identity, gone);
  }

  /**
   * What a stream of a collection's entries in a locale needs (GraphQL subscriptions in a locale): the asked locale's
   * code (canonical; 400 VALIDATION_ERROR naming `locale` when unknown or `*`, 403 LOCALE_FORBIDDEN when one is named
   * outside the caller's read rule; none: the default, whose events such a rule hides), the default's, and whether the collection has localized fields now (without, every locale shares the
   * entry's row: its events concern them all).
   */
  eventLocale(name: string, locale: string | undefined, identity: Identity): { code: string; defaultCode: string; localized: boolean } {
    const resolved = this.localised.resolve(locale);
    if (resolved === '*') throw new ValidationError('Name one locale, not *', [{ path: 'locale', message: 'one locale, not *' }]);
    const defaultCode = this.localised.defaultCode();
    if (resolved !== undefined) assertLocale(name, resolved, defaultCode, ruleLimits(identity, name, 'read'));
    const c = this.collectionsService.find(name);
    return { code: resolved ?? defaultCode, defaultCode, localized: Boolean(c && localizedFields(c).length) };
  }

  /**
   * A deleted entry (an on:delete event's: its row's values and its versions as they were, ContentEvent.versions) as a
   * read in `locale` answered it before (values with fallbacks, status there; `publishedOnly`: versions not published
   * take no part); no query.
   */
  deletedIn(name: string, entry: Entry, versions: ContentEvent['versions'], locale: string, publishedOnly: boolean): Entry {
    const c = this.collectionsService.find(name);
    const choice = locale === this.localised.defaultCode() ? undefined : locale;
    return c ? this.localised.viewFrom(c, entry, versions ?? {}, choice, publishedOnly) : entry;
  }

  /** `locale`: only the revisions of that locale's writes. */
  revisions(name: string, id: string, identity: Identity, locale?: string) {
    return this.reads.revisions(name, id, identity, locale);
  }
}
