import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { Op, QueryTypes, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import {
  ForbiddenError,
  serialiseEnvelope,
  hasPermission,
  hasScopedPermission,
  ruleLimits,
  rulesKey,
  ValidationError,
  type Identity,
  type RuleLimits,
} from '../../kernel/sdk.js';
import {
  assertLocale,
  assertQueryFields,
  hideFields,
  limitsFor,
  meetingWhere,
  pathRules,
  ruleWhere,
  visibleFields,
} from './entry-access.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { EntryNotFoundError } from './errors.js';
import { BULK_CHUNK, entryRow, toEntry, type Entry, type EntryList } from './entry-shape.js';
import type { EntryRevisions } from './entry-revisions.js';
import { freshAnswer, type ListAnswer, type ListCache } from './list-cache.js';
import { ListReader } from './list-reader.js';
import { assertPageDepth, cursorPage, cursorRead, DEFAULT_MAX_LIST_OFFSET } from './list-cursor.js';
import { orderFor, whereFor, type ListQuery } from './list-query.js';
import { selectKeys, selectedKeys } from './field-selection.js';
import { parsePopulate, populate, shownCollections, type PopulateDeps, type PopulateTree } from './populate.js';
import { fillInverses, type InverseScope } from './relation-inverse.js';
import { localeStatusWhere, type EntryLocales } from './entry-locales.js';
import { targetsInLocale } from './locale-relation-paths.js';
import { filterTargets } from './filter-targets.js';
import type { DraftStore } from './entry-drafts.js';
import type { EntryHooks } from './entry-hooks.js';
import type { SearchEngine } from './search-engine.js';
import { markHighlights, relevanceFirst, searchMatch } from './list-search.js';

/** How one entry is read: `fields=` and `populate=`. */
export interface ReadOptions {
  fields?: string;
  populate?: string;
  /** `?locale=`: a locale's code or `*` (entry-locales.ts). */
  locale?: string;
}

/** Callers without content:write see published entries only. */
const seesAll = (identity: Identity) => hasPermission(identity, 'content:write');

/**
 * The read side of entries: lists through the list cache (a page of plain rows, see ListReader), single
 * entries and their revisions, and plain reads by id for writers that change rows directly.
 */
export class EntryReads {
  private readonly reader: ListReader;

  private readonly populateDeps: PopulateDeps;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly collections: CollectionsService,
    private readonly lists: ListCache,
    private readonly revisionLog: EntryRevisions,
    media: PopulateDeps['media'] = () => undefined,
    readonly localised?: EntryLocales,
    /** Working drafts (entry-drafts.ts): `hasDraft` on the answers of callers who see every entry. */
    private readonly drafts?: DraftStore,
    private readonly hooks?: EntryHooks,
    /** The search engine (search-engine.ts): a list's `search` asks it first. */
    private readonly search: () => SearchEngine | undefined = () => undefined,
    /** The deepest entry a list reaches by page number (list-cursor.ts, PAGE_TOO_DEEP). */
    private readonly maxListOffset = DEFAULT_MAX_LIST_OFFSET,
  ) {
    this.reader = new ListReader(sequelize);
    this.populateDeps = {
      collection: async (n) => this.view(await collections.get(n)),
      media,
      rows: (c, ids, tenantId, publishedOnly) => this.reader.byIds(c, ids, tenantId, publishedOnly),
      fill: (c, entries, identity) => fillInverses(c, entries, this.inverseScope(identity)),
      localise: localised
        ? (c, entries, tenantId, locale, publishedOnly) => localised.localise(c, entries, tenantId, locale, publishedOnly)
        : undefined,
      statusInLocale: (c, locale) => localised?.statusInLocale(c, locale) ?? false,
    };
  }

  /** The collection as reads see it, with its inverse fields (relation-inverse.ts). */
  view(c: LoadedCollection): LoadedCollection {
    return this.collections.viewOf(c);
  }

  private inverseScope(identity: Identity): InverseScope {
    return {
      tenantId: identity.tenantId,
      source: (n) => this.collections.get(n),
      readable: (n) => hasScopedPermission(identity, 'content:read', n),
      publishedOnly: !seesAll(identity),
      sourceRule: async (source, field) => {
        const limits = ruleLimits(identity, source, 'read');
        if (!limits) return null;
        if (limits.fields && !limits.fields.has(field)) return false;
        return ruleWhere(await this.collections.get(source), limits, {
          tenantId: identity.tenantId,
          lookup: (n: string) => this.collections.findForRead(n),
          readable: (n: string) => hasScopedPermission(identity, 'content:read', n),
          publishedOnly: !seesAll(identity),
        });
      },
    };
  }

  /** See EntriesService.answerList. */
  async answerList(name: string, query: ListQuery, identity: Identity, ifNoneMatch = ''): Promise<ListAnswer> {
    const c = this.view(await this.collections.get(name));
    const locale = this.localised?.resolve(query.locale);
    // The caller's read rules (entry-access.ts): its `where` joins the list's, hidden fields are neither filtered,
    // sorted nor searched by, and other locales are refused.
    const limits = limitsFor(identity, name, 'read');
    assertQueryFields(c, query, limits);
    assertLocale(name, locale, this.defaultCode(), limits);
    assertPageDepth(query, this.maxListOffset);
    const byStage = await this.stageWhere(name, query, identity);
    const status = seesAll(identity) ? query.status : 'published';
    if (!seesAll(identity) && query.status && query.status !== 'published')
      return { notModified: false, body: serialiseEnvelope({ items: [], total: 0, page: query.page, limit: query.limit }), cached: false };
    const tree = this.populateTree(c, query.populate);
    const shown = tree ? shownCollections(c, tree, (n) => this.collections.findForRead(n)) : { collections: [], media: false };
    // The collections whose writes change the answer: populated targets, the sources of inverse fields and the
    // collections the filter's relation paths step into.
    const filtered = filterTargets(c, query.filter, (n) => this.collections.findForRead(n));
    const also = [...new Set([...shown.collections, ...this.collections.inverses(name).map((i) => i.source), ...filtered])]
      .filter((n) => n !== name)
      .sort();
    const { key, countKey } = this.listKeys(c, query, identity, status, also);
    const load = async () => {
      const keys = selectedKeys(c, query.fields);
      const statusIn = this.localised ? localeStatusWhere(c, identity.tenantId, locale, this.localised.defaultCode(), status) : null;
      const localized = this.localised?.columns(c, identity.tenantId, locale, !seesAll(identity));
      const base = {
        tenantId: identity.tenantId,
        lookup: (n: string) => this.collections.findForRead(n),
        readable: (n: string) => hasScopedPermission(identity, 'content:read', n),
        publishedOnly: !seesAll(identity),
        dialect: c.model.sequelize!.getDialect(),
        targetInLocale: targetsInLocale(this.localised, identity.tenantId, locale, !seesAll(identity)),
      };
      const scope = { ...base, localized, rules: pathRules(identity, base) };
      // Searched in the fields the caller may read, through the search engine or by substring (list-search.ts).
      const searchedIn = limits?.fields ? { ...c, fields: c.fields.filter((f) => limits.fields!.has(f.name)) } : c;
      const match = await searchMatch(this.search(), this.localised, c, query, { ...identity, locale, limits, all: seesAll(identity) });
      const asked = match ? { ...query, search: undefined } : query;
      const where = whereFor(searchedIn, identity.tenantId, asked, statusIn ? undefined : status, scope);
      // The rule's own `where` reads the listed collection's localized fields in the list's locale, as the filter does.
      const byRule = ruleWhere(c, limits, { ...base, localized });
      for (const w of [statusIn, byRule, byStage]) if (w) (where as { [Op.and]: unknown[] })[Op.and].push(w);
      const sorted = orderFor(c, query.sort, localized);
      // `after` / `before` (list-cursor.ts): a keyset page, read with one row more to know whether more follow.
      const cursor = cursorRead(query, sorted);
      const order = relevanceFirst(match, query, cursor, sorted);
      // Plain rows (no model instances): the page and the total started at once (see ListReader); the rows are
      // completed and populated while the count runs. The total is counted once per version of the collection.
      const total = (count: () => Promise<number>) => this.lists.total(identity.tenantId, name, countKey(), count, also);
      const started = cursor
        ? this.reader.start(c, where, cursor.order, query.limit + 1, 0, { keyset: cursor.keyset, total, join: match ?? undefined })
        : this.reader.start(c, where, order, query.limit, (query.page - 1) * query.limit, { total, join: match ?? undefined });
      const paged = cursor ? cursorPage(cursor, order, query.sort, await started.rows, query.limit) : null;
      const rows = paged ? paged.rows : await started.rows;
      const items = new Array<Entry>(rows.length);
      for (let i = 0; i < rows.length; i++) items[i] = toEntry(c, rows[i]!);
      await fillInverses(c, items, this.inverseScope(identity));
      await this.localised?.localise(c, items, identity.tenantId, locale, !seesAll(identity));
      if (seesAll(identity)) await this.drafts?.mark(c, items, identity.tenantId, locale, this.defaultCode());
      if (tree) await populate(this.populateDeps, c, items, tree, identity, locale);
      if (keys) for (let i = 0; i < items.length; i++) items[i] = selectKeys(items[i]!, keys);
      hideFields(items, limits);
      if (query.search?.trim()) markHighlights(c, items, query.search);
      await this.hooks?.decorate(name, identity, items);
      if (paged)
        return {
          items,
          total: await started.total,
          page: null,
          limit: query.limit,
          nextCursor: paged.nextCursor,
          prevCursor: paged.prevCursor,
        };
      return { items, total: await started.total, page: query.page, limit: query.limit };
    };
    // Populated media has no version token to tag the list with: such lists are read every time.
    if (shown.media) return freshAnswer(await load());
    return this.lists.answer(identity.tenantId, name, key, ifNoneMatch, load, also);
  }

  /** The hash of everything a list's answer depends on but the rows, and that of its count (not its page or shape). */
  private listKeys(c: LoadedCollection, query: ListQuery, identity: Identity, status: string | undefined, also: string[]) {
    const name = c.name;
    const parts = {
      query,
      status,
      schema: c.version,
      targets: also.map((n) => this.collections.find(n)?.version),
      // Whether the caller may read each one: making one public changes what a guest's list shows.
      readable: also.map((n) => hasScopedPermission(identity, 'content:read', n)),
      // A locale's answer follows the locales' fallbacks and default.
      locales: this.localised?.cacheKey(c),
      // Writers' lists of a collection with working drafts carry hasDraft (entry-drafts.ts).
      drafts: Boolean(c.drafts && seesAll(identity)),
      // Answer decorators tell apart callers who may write the collection (review stages: `_stage`, entry-hooks.ts).
      writes: hasScopedPermission(identity, 'content:write', name),
      // Callers whose rules differ never share an answer (a `$user` rule: per user); the filter's relation paths keep
      // to the rules on the collections they step into (in `also`).
      rules: [rulesKey(identity, name), ...also.map((n) => rulesKey(identity, n))],
    };
    const hash = (value: unknown) =>
      createHash('sha256')
        .update(stringify(value) ?? '')
        .digest('base64url');
    const { page: _p, limit: _l, after: _a, before: _b, fields: _f, populate: _pp, sort: _s, ...counted } = query;
    // The count's key only when the list is loaded (a 304 or a stored answer needs the list's key alone).
    return { key: hash(parts), countKey: () => hash({ ...parts, query: counted }) };
  }

  /** `?stage=` (review stages): for callers who may write the collection (they alone see stages), else 403. */
  private async stageWhere(name: string, query: ListQuery, identity: Identity): Promise<WhereOptions | null> {
    if (query.stage === undefined) return null;
    if (!hasScopedPermission(identity, 'content:write', name))
      throw new ForbiddenError(`Filtering '${name}' by review stage needs content:write on it`);
    if (!this.hooks) throw new ValidationError('No review stages here', [{ path: 'query.stage', message: 'no review stages' }]);
    return this.hooks.stageWhere(name, identity.tenantId, query.stage);
  }

  private populateTree(c: LoadedCollection, text: string | undefined): PopulateTree | null {
    return parsePopulate(c, text, (n) => this.collections.findForRead(n));
  }

  async list(name: string, query: ListQuery, identity: Identity): Promise<{ value: EntryList; cached: boolean }> {
    const answer = await this.answerList(name, query, identity);
    if (answer.notModified) throw new Error('unreachable: no If-None-Match was given');
    // Read from the database: the loaded page as is (no JSON text made and parsed again); from the cache: parsed.
    if (answer.value !== undefined) return { value: answer.value as EntryList, cached: answer.cached };
    return { value: (JSON.parse(answer.body) as { data: EntryList }).data, cached: answer.cached };
  }

  async get(name: string, id: string, identity: Identity, options: ReadOptions = {}): Promise<Entry> {
    const c = this.view(await this.collections.get(name));
    const keys = selectedKeys(c, options.fields);
    const tree = this.populateTree(c, options.populate);
    const locale = this.localised?.resolve(options.locale);
    const limits = limitsFor(identity, name, 'read');
    assertLocale(name, locale, this.defaultCode(), limits);
    const entry = toEntry(c, await entryRow(c, id, identity.tenantId));
    // An entry the read rule's `where` leaves out does not exist for the caller.
    if (limits?.where && !(await this.meets(c, id, limits, identity))) throw new EntryNotFoundError(name, id);
    await this.localised?.localise(c, [entry], identity.tenantId, locale, !seesAll(identity));
    // In a locale, the status is that locale's version's (entry-locales.ts).
    if (!seesAll(identity) && entry.status !== 'published') throw new EntryNotFoundError(name, id);
    return visibleFields(await this.shape(c, entry, identity, { keys, tree, locale }), limits);
  }

  /** Whether the entry meets the rule's `where` (entry-access.ts). */
  private async meets(c: LoadedCollection, id: string, limits: RuleLimits, identity: Identity): Promise<boolean> {
    return (await meetingWhere(c, [id], limits, this.ruleScope(identity))).has(id);
  }

  /** The scope a rule's `where` is read in: relation paths find their targets as list filters do. */
  ruleScope(identity: Identity) {
    return {
      tenantId: identity.tenantId,
      lookup: (n: string) => this.collections.findForRead(n),
      readable: (n: string) => hasScopedPermission(identity, 'content:read', n),
      publishedOnly: !seesAll(identity),
      dialect: this.sequelize.getDialect(),
    };
  }

  private defaultCode(): string {
    return this.localised?.defaultCode() ?? 'en';
  }

  /** An entry as a read answers it: populated (in `locale`, when the read names one), then only the selected keys. */
  async shape(
    c: LoadedCollection,
    entry: Entry,
    identity: Identity,
    how: { keys: Set<string> | null; tree: PopulateTree | null; locale?: string },
  ): Promise<Entry> {
    await fillInverses(c, [entry], this.inverseScope(identity));
    if (seesAll(identity)) await this.drafts?.mark(c, [entry], identity.tenantId, how.locale, this.defaultCode());
    if (how.tree) await populate(this.populateDeps, c, [entry], how.tree, identity, how.locale);
    const shaped = selectKeys(entry, how.keys);
    await this.hooks?.decorate(c.name, identity, [shaped]);
    return shaped;
  }

  /**
   * Entries by id as `identity` may read them (published only without content:write), by id; unknown ids are left out.
   * `locale`: answered in that locale (a reader gets those published there), as a read with `?locale=` answers them.
   */
  async getMany(name: string, ids: string[], identity: Identity, locale?: string): Promise<Map<string, Entry>> {
    const c = this.view(await this.collections.get(name));
    const choice = this.localised?.resolve(locale);
    const limits = limitsFor(identity, name, 'read');
    assertLocale(name, choice, this.defaultCode(), limits);
    let found = await this.readEntries(c, [...new Set(ids)], identity.tenantId);
    if (limits?.where) {
      const meet = await meetingWhere(
        c,
        found.map((e) => e._id),
        limits,
        this.ruleScope(identity),
      );
      found = found.filter((e) => meet.has(e._id));
    }
    const rowStatus = !this.localised?.statusInLocale(c, choice);
    if (!seesAll(identity) && rowStatus) found = found.filter((e) => e.status === 'published');
    await fillInverses(c, found, this.inverseScope(identity));
    await this.localised?.localise(c, found, identity.tenantId, choice, !seesAll(identity));
    if (!seesAll(identity) && !rowStatus) found = found.filter((e) => e.status === 'published');
    await this.hooks?.decorate(name, identity, found);
    return new Map(found.map((e) => [e._id, visibleFields(e, limits)]));
  }

  /** See EntriesService.readEntries. */
  async readEntries(c: LoadedCollection, ids: string[], tenantId: string, transaction?: Transaction): Promise<Entry[]> {
    const out: Entry[] = [];
    for (let i = 0; i < ids.length; i += BULK_CHUNK) {
      // Plain rows, not model instances: large writers (imports, migrations) read thousands of entries here.
      // By primary key alone, the tenant checked on the rows: with `tenant_id = ?` in the WHERE, SQLite
      // (without statistics) walks the tenant's index instead, one full scan per call. A plain statement, not
      // findAll: on SQLite that first reads the table's column types (PRAGMA table_info), a statement more inside
      // every entry write's transaction (the search index reads the entry written), for types toEntry parses anyway.
      const sequelize = c.model.sequelize!;
      const rows = await sequelize.query<Record<string, unknown>>(
        `SELECT * FROM ${sequelize.getQueryInterface().quoteIdentifier(c.table)} WHERE id IN (?) ORDER BY id ASC`,
        { replacements: [ids.slice(i, i + BULK_CHUNK)], type: QueryTypes.SELECT, transaction, ...({ tableNames: [] } as object) },
      );
      for (const r of rows) if (r.tenant_id === tenantId) out.push(toEntry(c, r));
    }
    return out;
  }

  async existingIds(name: string, ids: string[], identity: Identity): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const c = await this.collections.get(name);
    // By primary key alone, the tenant checked on the rows (see readEntries: with `tenant_id = ?` in the
    // WHERE, SQLite walks the tenant's index instead, a full scan per call); plain rows.
    const rows = (await c.model.findAll({
      attributes: ['id', 'tenant_id'],
      where: { id: { [Op.in]: ids } },
      raw: true,
    })) as unknown as Array<{
      id: string;
      tenant_id: string;
    }>;
    return new Set(rows.filter((r) => r.tenant_id === identity.tenantId).map((r) => String(r.id)));
  }

  /** An entry's revisions, newest first; `locale`: only that locale's (docs/features/localisation.md). */
  async revisions(name: string, id: string, identity: Identity, locale?: string) {
    const c = await this.collections.get(name);
    const only = this.localised?.resolve(locale);
    await entryRow(c, id, identity.tenantId);
    // The caller's read rules: an entry it may not read has no revisions for it, and hidden fields stay hidden.
    const limits = limitsFor(identity, name, 'read');
    if (limits?.where && !(await this.meets(c, id, limits, identity))) throw new EntryNotFoundError(name, id);
    const defaultCode = this.localised?.defaultCode() ?? 'en';
    const history = await this.revisionLog.history(name, id, identity.tenantId, defaultCode, only === '*' ? undefined : only);
    return limits?.fields ? history.map((r) => ({ ...r, data: visibleFields(r.data, limits) })) : history;
  }
}
