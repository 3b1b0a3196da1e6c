import { createHash, randomBytes, randomUUID } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { Op, QueryTypes, UniqueConstraintError, Model, type Sequelize, type Transaction } from 'sequelize';
import {
  ConflictError,
  ValidationError,
  type EventBus,
  type Logger,
  serialiseEnvelope,
  hasPermission,
  type Identity,
  modelsOf,
} from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { checkEntryInput, slugify, type CheckedInput } from './entry-input.js';
import { EntryNotFoundError } from './errors.js';
import { UniqueValueConflictError } from './entry-errors.js';
import { columnName, fromColumn } from './field-types.js';
import type { ListAnswer, ListCache } from './list-cache.js';
import { ListReader } from './list-reader.js';
import type { PreparedRow } from './prepared-row.js';
import { orderFor, whereFor, type EntryStatus, type ListQuery } from './list-query.js';
import { insertRows } from '../../lib/db/insert-rows.js';
import { Revision } from './models/revision.js';
import { presanitize, type RichTextSanitizer } from './rich-text-pool.js';
import { ENTRY_EVENTS } from './public.js';

export type Entry = Record<string, unknown> & {
  _id: string;
  slug: string;
  status: EntryStatus;
  version: number;
  createdAt: string;
  updatedAt: string;
};

/** A page of a list, as the list route's `data`. */
export interface EntryList {
  items: Entry[];
  total: number;
  page: number;
  limit: number;
}

/** Content events on the event bus (the spec's planned names); GraphQL subscriptions and the audit log listen. */
export interface ContentEvent {
  tenantId: string;
  collection: string;
  entry: Entry;
  userId: string | null;
  previousStatus?: EntryStatus;
}

/** One change of an entry made outside this service (a data migration), announced after its commit. */
export interface EntryChange {
  event: 'create' | 'update' | 'delete';
  collection: string;
  /** The entry as written (for a delete: as it was before). */
  entry: Entry;
}

/** The row of a revision: the entry as toEntry returns it, after the write. */
function revisionRow(collection: string, entry: Entry, tenantId: string, action: string, userId: string | null, now: number) {
  return {
    tenant_id: tenantId,
    collection,
    entry_id: entry._id,
    version: entry.version,
    data: JSON.stringify(entry),
    action,
    created_by: userId,
    created_at: now,
  };
}

/** Ids per query (IN list) and revisions per insert, for writers of many entries. */
const BULK_CHUNK = 500;
/** Events published between two yields to the event loop, so a large announcement does not hog the process. */
const ANNOUNCE_CHUNK = 100;

const MAX_SLUG_TRIES = 3;
/** Highest numeric slug suffix handed out per collection, tenant and base (a hint, checked by the insert). */
const SUFFIX_HINTS_MAX = 1000;

/**
 * Entries of every collection: validation against the schema, unique slugs (deduplicated with -2,
 * -3, ...), a revision after each write, tenant scoping, and the list cache. Callers without
 * content:write see published entries only. After each committed write the collection's cached lists
 * are invalidated and an event is published.
 */
export class EntriesService {
  private readonly models: { Revision: typeof Revision };

  constructor(
    private readonly sequelize: Sequelize,
    private readonly collections: CollectionsService,
    private readonly lists: ListCache,
    private readonly events: EventBus,
    private readonly logger?: Logger,
    /** Sanitises the rich text of large writes in the worker pool (else toColumn does it inline). */
    private readonly richText?: RichTextSanitizer,
  ) {
    this.models = modelsOf(sequelize.models, { Revision });
    this.reader = new ListReader(sequelize);
  }

  private readonly suffixHints = new Map<string, number>();
  private readonly reader: ListReader;

  /**
   * The highest numeric suffix in use for a slug base (`base-<n>`), from a bounded in-memory hint or one
   * aggregate query. A hint that is stale only costs a unique violation, which the callers handle.
   */
  private async highestSuffix(c: LoadedCollection, tenantId: string, base: string, transaction?: Transaction): Promise<number> {
    const key = `${c.uid}:${tenantId}:${base}`;
    const hint = this.suffixHints.get(key);
    if (hint !== undefined) return hint;
    const table = this.sequelize.getQueryInterface().quoteIdentifier(c.table);
    const cast = this.sequelize.getDialect() === 'sqlite' ? 'INTEGER' : 'UNSIGNED';
    const [row] = await this.sequelize.query<{ n: number | string | null }>(
      `SELECT MAX(CAST(SUBSTR(slug, ${base.length + 2}) AS ${cast})) AS n FROM ${table} WHERE tenant_id = ? AND slug > ? AND slug < ?`,
      { replacements: [tenantId, `${base}-`, `${base}.`], type: 'SELECT' as never, transaction },
    );
    return Math.max(1, Number(row?.n ?? 0) || 0);
  }

  private noteSuffix(c: LoadedCollection, tenantId: string, base: string, n: number): void {
    const key = `${c.uid}:${tenantId}:${base}`;
    this.suffixHints.delete(key);
    this.suffixHints.set(key, n);
    if (this.suffixHints.size > SUFFIX_HINTS_MAX) this.suffixHints.delete(this.suffixHints.keys().next().value!);
  }

  /** After a commit: the list cache and the events. Their failure is logged; the write stands and the request succeeds. */
  private async announceSafely(name: string, tenantId: string, events: Array<[string, ContentEvent]>): Promise<void> {
    try {
      await this.announce(name, tenantId, events);
    } catch (err) {
      this.logger?.warn({ err, collection: name }, 'entry written, but its list cache or events could not be updated');
    }
  }

  toEntry(c: LoadedCollection, row: Model | Record<string, unknown>): Entry {
    const r = (row instanceof Model ? row.get({ plain: true }) : row) as Record<string, unknown>;
    const out: Record<string, unknown> = { _id: r.id };
    for (const f of c.fields) out[f.name] = fromColumn(f, r[columnName(f)]);
    return Object.assign(out, {
      slug: r.slug,
      status: r.status,
      syncId: r.sync_id,
      version: Number(r.version),
      createdAt: new Date(Number(r.created_at)).toISOString(),
      updatedAt: new Date(Number(r.updated_at)).toISOString(),
      createdBy: r.created_by ?? null,
      updatedBy: r.updated_by ?? null,
    }) as unknown as Entry;
  }

  private seesAll = (identity: Identity) => hasPermission(identity, 'content:write');

  /**
   * A list for the HTTP route: 304 when If-None-Match names the list's current tag (checked before any
   * loading), else the serialised envelope, cached or loaded (see ListCache). `cached` feeds X-Cache.
   */
  async answerList(name: string, query: ListQuery, identity: Identity, ifNoneMatch = ''): Promise<ListAnswer> {
    const c = await this.collections.get(name);
    const status = this.seesAll(identity) ? query.status : 'published';
    if (!this.seesAll(identity) && query.status && query.status !== 'published')
      return { notModified: false, body: serialiseEnvelope({ items: [], total: 0, page: query.page, limit: query.limit }), cached: false };
    const key = createHash('sha256')
      .update(stringify({ query, status, schema: c.version }) ?? '')
      .digest('base64url');
    return this.lists.answer(identity.tenantId, name, key, ifNoneMatch, async () => {
      const where = whereFor(c, identity.tenantId, query, status);
      const order = orderFor(c, query.sort);
      // Plain rows (no model instances): the page and the total at once (see ListReader).
      const { rows, total } = await this.reader.page(c, where, order, query.limit, (query.page - 1) * query.limit);
      const items = new Array<Entry>(rows.length);
      for (let i = 0; i < rows.length; i++) items[i] = this.toEntry(c, rows[i]!);
      return { items, total, page: query.page, limit: query.limit };
    });
  }

  /** A list as data (GraphQL, the in-process client), through the same cache. */
  async list(name: string, query: ListQuery, identity: Identity): Promise<{ value: EntryList; cached: boolean }> {
    const answer = await this.answerList(name, query, identity);
    if (answer.notModified) throw new Error('unreachable: no If-None-Match was given');
    return { value: (JSON.parse(answer.body) as { data: EntryList }).data, cached: answer.cached };
  }

  private async row(c: LoadedCollection, id: string, tenantId: string, transaction?: Transaction): Promise<Model> {
    const row = await c.model.findOne({ where: { id, tenant_id: tenantId }, transaction });
    if (!row) throw new EntryNotFoundError(c.name, id);
    return row;
  }

  async get(name: string, id: string, identity: Identity): Promise<Entry> {
    const c = await this.collections.get(name);
    const entry = this.toEntry(c, await this.row(c, id, identity.tenantId));
    if (!this.seesAll(identity) && entry.status !== 'published') throw new EntryNotFoundError(name, id);
    return entry;
  }

  /** Relation values must name an entry of the target collection in the same tenant. */
  private async checkRelations(
    c: LoadedCollection,
    input: CheckedInput,
    tenantId: string,
    prefix: string,
    transaction?: Transaction,
  ): Promise<void> {
    const issues: Array<{ path: string; message: string }> = [];
    for (const f of c.fields) {
      const v = input.values[f.name];
      if (f.type !== 'relation' || typeof v !== 'string') continue;
      const target = await this.collections.get(f.collection!);
      if ((await target.model.count({ where: { id: v, tenant_id: tenantId }, transaction })) === 0)
        issues.push({ path: `${prefix}.${f.name}`, message: `no entry ${v} in ${f.collection}` });
    }
    if (issues.length) throw new ValidationError(`Invalid relation: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }

  /**
   * The field a unique violation is about: 'slug', a field name, or null. Read from the index name
   * (MariaDB: "for key 'ix_…_f_email'") or the column list (SQLite: "failed: cms_c_x.tenant_id,
   * cms_c_x.f_email"), never from the rest of the message, which carries the values and the SQL.
   */
  private violated(c: LoadedCollection, err: UniqueConstraintError): string | null {
    const message = String((err.parent as Error | undefined)?.message ?? '').split('\n')[0]!;
    const names = [
      ...Object.keys(err.fields ?? {}),
      ...(/for key '(?:[^'.]+\.)?([^']+)'/.exec(message)?.slice(1) ?? []),
      ...(/UNIQUE constraint failed: (.+)$/
        .exec(message)?.[1]
        ?.split(',')
        .map((s) => s.trim().split('.').pop()!) ?? []),
    ];
    const prefix = `ix_${c.uid.slice(0, 8)}_`;
    const columns = names.map((n) => (n.startsWith(prefix) ? n.slice(prefix.length) : n));
    if (columns.includes('slug')) return 'slug';
    return c.fields.find((f) => columns.includes(columnName(f)))?.name ?? null;
  }

  /**
   * Runs a write with a free slug: the base first, then `base-<n>` after the highest numbered one in use,
   * then a random suffix; a unique violation on another field is a 409 naming it.
   */
  private async insertOrUpdate(
    c: LoadedCollection,
    tenantId: string,
    base: string,
    write: (slug: string) => Promise<void>,
    prefix: string,
    transaction?: Transaction,
  ): Promise<void> {
    let next = 0;
    for (let n = 1; ; n++) {
      let slug = base;
      if (n > 1 && n <= MAX_SLUG_TRIES) {
        next = (next || (await this.highestSuffix(c, tenantId, base, transaction))) + 1;
        slug = `${base}-${next}`;
      } else if (n > MAX_SLUG_TRIES) slug = `${base}-${randomBytes(4).toString('hex')}`;
      try {
        await write(slug);
        if (n > 1 && n <= MAX_SLUG_TRIES) this.noteSuffix(c, tenantId, base, next);
        return;
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
        const field = this.violated(c, err);
        if (field === 'slug' && n <= MAX_SLUG_TRIES + 3) continue;
        const path = field ? `${prefix}.${field}` : prefix;
        throw new UniqueValueConflictError(c.name, field, path);
      }
    }
  }

  private slugBase(c: LoadedCollection, input: CheckedInput, id: string): string {
    const source =
      input.slug ??
      ['title', 'name'].map((k) => input.values[k]).find((v) => typeof v === 'string') ??
      c.fields
        .filter((f) => f.type === 'text')
        .map((f) => input.values[f.name])
        .find((v) => typeof v === 'string');
    return slugify(typeof source === 'string' ? source : '') || id.slice(0, 8);
  }

  private async revision(
    c: LoadedCollection,
    entry: Entry,
    tenantId: string,
    action: string,
    userId: string | null,
    transaction?: Transaction,
  ) {
    await this.models.Revision.create(revisionRow(c.name, entry, tenantId, action, userId, Date.now()), { transaction });
  }

  private async created(c: LoadedCollection, body: unknown, identity: Identity, prefix: string, transaction?: Transaction): Promise<Entry> {
    const input = checkEntryInput(c, body, 'create', prefix);
    await this.checkRelations(c, input, identity.tenantId, prefix, transaction);
    const id = randomUUID();
    const now = Date.now();
    const row = {
      id,
      tenant_id: identity.tenantId,
      sync_id: randomUUID(),
      status: input.status ?? 'draft',
      version: 1,
      created_by: identity.userId,
      updated_by: identity.userId,
      created_at: now,
      updated_at: now,
      ...input.columns,
    };
    await this.insertOrUpdate(
      c,
      identity.tenantId,
      this.slugBase(c, input, id),
      async (slug) => {
        await c.model.create({ ...row, slug }, { transaction });
      },
      prefix,
      transaction,
    );
    const entry = this.toEntry(c, await this.row(c, id, identity.tenantId, transaction));
    await this.revision(c, entry, identity.tenantId, 'create', identity.userId, transaction);
    return entry;
  }

  /**
   * Drops every cached list of a collection in a tenant (all filtered, sorted and searched variants, on
   * every instance): for writers that change rows outside this service (data migrations, restores), after
   * their transaction committed.
   */
  async invalidateLists(tenantId: string, collection: string): Promise<void> {
    await this.lists.invalidate(tenantId, collection);
  }

  /** Revisions follow entries moved to another collection (by a data migration, inside its transaction). */
  async moveRevisions(tenantId: string, from: string, to: string, ids: string[], transaction: Transaction): Promise<void> {
    if (!ids.length) return;
    await this.models.Revision.update(
      { collection: to },
      { where: { collection: from, entry_id: { [Op.in]: ids }, tenant_id: tenantId }, transaction },
    );
  }

  /**
   * The entries of these ids (tenant) as stored, read inside the caller's transaction (BULK_CHUNK ids a
   * query): for writers that change rows directly (data migrations), to record and announce them.
   */
  async readEntries(c: LoadedCollection, ids: string[], tenantId: string, transaction?: Transaction): Promise<Entry[]> {
    const out: Entry[] = [];
    for (let i = 0; i < ids.length; i += BULK_CHUNK) {
      // Plain rows, not model instances: large writers (imports, migrations) read thousands of entries here.
      // By primary key alone, the tenant checked on the rows: with `tenant_id = ?` in the WHERE, SQLite
      // (without statistics) walks the tenant's index instead, one full scan per call.
      const rows = (await c.model.findAll({
        where: { id: { [Op.in]: ids.slice(i, i + BULK_CHUNK) } },
        order: [['id', 'ASC']],
        transaction,
        raw: true,
      })) as unknown as Array<Record<string, unknown>>;
      for (const r of rows) if (r.tenant_id === tenantId) out.push(this.toEntry(c, r));
    }
    return out;
  }

  /**
   * One revision per entry (the entry as written, see readEntries; its version), bulk inserted inside
   * the writer's transaction: for writers that change rows outside this service (data migrations,
   * action 'migrate'). A rollback takes the revisions with it.
   */
  async recordRevisions(
    collection: string,
    entries: Entry[],
    tenantId: string,
    userId: string | null,
    action: string,
    transaction: Transaction,
  ): Promise<void> {
    const now = Date.now();
    // One multi-row INSERT per chunk of plain rows (no model instances: this runs for every imported entry).
    const qi = this.sequelize.getQueryInterface();
    for (let i = 0; i < entries.length; i += BULK_CHUNK)
      await qi.bulkInsert(
        this.models.Revision.getTableName() as string,
        entries.slice(i, i + BULK_CHUNK).map((entry) => revisionRow(collection, entry, tenantId, action, userId, now)),
        { transaction },
      );
  }

  /**
   * After the writer's commit: publishes one entry event per change (on:create, on:update, on:delete,
   * payload ContentEvent as for writes through this service), ANNOUNCE_CHUNK events at a time with a
   * yield to the event loop in between. N changes publish N events. The list caches are the writer's
   * (invalidateLists). A failed publish is logged and the others still go out; nothing is thrown.
   */
  async announceChanges(tenantId: string, userId: string | null, changes: EntryChange[]): Promise<void> {
    let failed = 0;
    let lastError: unknown = null;
    for (let i = 0; i < changes.length; i += ANNOUNCE_CHUNK) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const { event, collection, entry } of changes.slice(i, i + ANNOUNCE_CHUNK)) {
        const payload: ContentEvent = { tenantId, collection, entry, userId };
        try {
          await this.events.publish(ENTRY_EVENTS[event], payload);
        } catch (err) {
          failed++;
          lastError = err;
        }
      }
    }
    if (failed)
      this.logger?.warn({ err: lastError, failed, total: changes.length }, 'entries written, but some entry events could not be published');
  }

  private async announce(name: string, tenantId: string, events: Array<[string, ContentEvent]>): Promise<void> {
    await this.lists.invalidate(tenantId, name);
    for (const [event, payload] of events) await this.events.publish(event, payload);
  }

  /** Runs a write against the schema; a refused input is tried once more if the schema changed meanwhile. */
  private async withSchema<T>(name: string, run: (c: LoadedCollection) => Promise<T>): Promise<T> {
    const c = await this.collections.get(name);
    try {
      return await run(c);
    } catch (err) {
      if (err instanceof ValidationError && (await this.collections.reloadIfChanged(c))) return run(await this.collections.get(name));
      throw err;
    }
  }

  async create(name: string, body: unknown, identity: Identity): Promise<Entry> {
    // The row and its revision in one transaction: an error means nothing was written.
    const entry = await this.withSchema(name, async (c) => {
      const [clean] = await presanitize(c, [body], this.richText);
      return this.sequelize.transaction((transaction) => this.created(c, clean, identity, 'body', transaction));
    });
    await this.announceSafely(name, identity.tenantId, [
      [ENTRY_EVENTS.create, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId }],
    ]);
    return entry;
  }

  /**
   * All or nothing: one transaction; a problem names its entry (body.entries.<i>.<field>). Entries whose slug
   * is free go in with one multi-row insert (inside a savepoint); the rest, and the whole batch when that
   * insert meets a unique violation, take the one-by-one path that finds free slugs and names the field.
   */
  async createMany(name: string, raw: unknown[], identity: Identity): Promise<Entry[]> {
    const entries = await this.withSchema(name, async (c) => {
      const bodies = await presanitize(c, raw, this.richText);
      return this.sequelize.transaction(async (transaction) => {
        const inputs = bodies.map((body, i) => checkEntryInput(c, body, 'create', `body.entries.${i}`));
        for (const [i, input] of inputs.entries()) await this.checkRelations(c, input, identity.tenantId, `body.entries.${i}`, transaction);
        const now = Date.now();
        const rows = inputs.map((input) => {
          const id = randomUUID();
          return {
            id,
            tenant_id: identity.tenantId,
            sync_id: randomUUID(),
            status: input.status ?? 'draft',
            version: 1,
            slug: this.slugBase(c, input, id),
            created_by: identity.userId,
            updated_by: identity.userId,
            created_at: now,
            updated_at: now,
            ...input.columns,
          };
        });
        // Free slugs for the whole batch: a base once, repeats and taken ones as base-<n> after the highest in use.
        const taken = new Set(
          (
            await c.model.findAll({
              attributes: ['slug'],
              where: { tenant_id: identity.tenantId, slug: { [Op.in]: [...new Set(rows.map((r) => r.slug))] } },
              transaction,
            })
          ).map((r) => String(r.get('slug'))),
        );
        const suffixes = new Map<string, number>();
        for (const row of rows) {
          if (!taken.has(row.slug)) {
            taken.add(row.slug);
            continue;
          }
          const base = row.slug;
          const n = (suffixes.get(base) ?? (await this.highestSuffix(c, identity.tenantId, base, transaction))) + 1;
          suffixes.set(base, n);
          row.slug = `${base}-${n}`;
        }
        const bulk = new Set<number>(rows.map((_, i) => i));
        if (bulk.size) {
          try {
            await this.sequelize.transaction({ transaction }, (savepoint) =>
              c.model.bulkCreate(
                rows.filter((_, i) => bulk.has(i)),
                { transaction: savepoint },
              ),
            );
            for (const [base, n] of suffixes) this.noteSuffix(c, identity.tenantId, base, n);
          } catch (err) {
            if (!(err instanceof UniqueConstraintError)) throw err;
            bulk.clear(); // a unique field collides: the one-by-one path names it
          }
        }
        const out: Array<Entry | undefined> = [];
        if (bulk.size) {
          const made = await c.model.findAll({
            where: { tenant_id: identity.tenantId, id: { [Op.in]: rows.filter((_, i) => bulk.has(i)).map((r) => r.id) } },
            transaction,
          });
          const byId = new Map(made.map((m) => [String(m.get('id')), this.toEntry(c, m)]));
          for (const i of bulk) out[i] = byId.get(rows[i]!.id);
          await this.models.Revision.bulkCreate(
            [...bulk]
              .map((i) => out[i]!)
              .map((entry) => ({
                tenant_id: identity.tenantId,
                collection: c.name,
                entry_id: entry._id,
                version: entry.version,
                data: JSON.stringify(entry),
                action: 'create',
                created_by: identity.userId,
                created_at: now,
              })),
            { transaction },
          );
        }
        for (const [i, body] of bodies.entries())
          if (!bulk.has(i)) out[i] = await this.created(c, body, identity, `body.entries.${i}`, transaction);
        return out as Entry[];
      });
    });
    await this.announceSafely(
      name,
      identity.tenantId,
      entries.map((entry) => [ENTRY_EVENTS.create, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId }]),
    );
    return entries;
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
  async insertPrepared(
    name: string,
    batch: { version: number; fields: string[]; rows: PreparedRow[] },
    identity: Identity,
    hooks: { inTransaction?: (transaction: Transaction, entries: Entry[]) => Promise<void> } = {},
  ): Promise<Entry[]> {
    const c = await this.collections.get(name);
    if (c.version !== batch.version || c.fields.length !== batch.fields.length || c.fields.some((f, i) => f.name !== batch.fields[i]))
      throw new ValidationError(`The fields of ${name} changed while the rows were prepared`);
    if (!batch.rows.length) return [];
    const tenantId = identity.tenantId;
    const userId = identity.userId;
    const now = Date.now();
    const at = new Date(now).toISOString();
    const qi = this.sequelize.getQueryInterface();
    const table = qi.quoteIdentifier(c.table);
    const columns = [
      'id',
      'tenant_id',
      'sync_id',
      'status',
      'version',
      'slug',
      'created_by',
      'updated_by',
      'created_at',
      'updated_at',
    ].concat(c.fields.map(columnName));
    const rows = batch.rows.map((r) => ({ ...r, slug: r.slug || r.id.slice(0, 8) }));
    const suffixes = new Map<string, number>();
    const entries = await this.sequelize.transaction(async (transaction) => {
      // Free slugs for the whole batch: a base once, repeats and taken ones as base-<n> after the highest in use.
      const taken = new Set<string>();
      const bases = [...new Set(rows.map((r) => r.slug))];
      for (let i = 0; i < bases.length; i += BULK_CHUNK) {
        const chunk = bases.slice(i, i + BULK_CHUNK);
        const found = await this.sequelize.query<{ slug: string }>(
          `SELECT slug FROM ${table} WHERE tenant_id = ? AND slug IN (${chunk.map(() => '?').join(',')})`,
          { replacements: [tenantId, ...chunk], type: QueryTypes.SELECT, transaction },
        );
        for (const f of found) taken.add(String(f.slug));
      }
      for (const row of rows) {
        if (!taken.has(row.slug)) {
          taken.add(row.slug);
          continue;
        }
        const base = row.slug;
        const n = (suffixes.get(base) ?? (await this.highestSuffix(c, tenantId, base, transaction))) + 1;
        suffixes.set(base, n);
        row.slug = `${base}-${n}`;
      }
      await insertRows(
        this.sequelize,
        table,
        columns,
        rows.map((r) => [r.id, tenantId, r.syncId, r.status, 1, r.slug, userId, userId, now, now, ...r.columns]),
        transaction,
      );
      const made = rows.map(
        (r) =>
          Object.assign({ _id: r.id }, r.entry, {
            slug: r.slug,
            status: r.status,
            syncId: r.syncId,
            version: 1,
            createdAt: at,
            updatedAt: at,
            createdBy: userId ?? null,
            updatedBy: userId ?? null,
          }) as unknown as Entry,
      );
      await insertRows(
        this.sequelize,
        qi.quoteIdentifier(this.models.Revision.getTableName() as string),
        ['tenant_id', 'collection', 'entry_id', 'version', 'data', 'action', 'created_by', 'created_at'],
        made.map((entry) => [tenantId, c.name, entry._id, 1, JSON.stringify(entry), 'create', userId, now]),
        transaction,
      );
      await hooks.inTransaction?.(transaction, made);
      return made;
    });
    for (const [base, n] of suffixes) this.noteSuffix(c, tenantId, base, n);
    try {
      await this.lists.invalidate(tenantId, name);
    } catch (err) {
      this.logger?.warn({ err, collection: name }, 'entries written, but their list cache could not be updated');
    }
    await this.announceChanges(
      tenantId,
      userId,
      entries.map((entry) => ({ event: 'create', collection: name, entry })),
    );
    return entries;
  }

  /** A partial update; the version guards against a concurrent write (409). */
  async update(name: string, id: string, body: unknown, identity: Identity): Promise<Entry> {
    return this.withSchema(name, (c) => this.updated(c, id, body, identity));
  }

  private async updated(c: LoadedCollection, id: string, body: unknown, identity: Identity): Promise<Entry> {
    const name = c.name;
    const current = await this.row(c, id, identity.tenantId);
    const before = this.toEntry(c, current);
    const [clean] = await presanitize(c, [body], this.richText);
    const input = checkEntryInput(c, clean, 'update');
    await this.checkRelations(c, input, identity.tenantId, 'body');
    const changes: Record<string, unknown> = {
      ...input.columns,
      version: before.version + 1,
      updated_by: identity.userId,
      updated_at: Date.now(),
    };
    if (input.status) changes.status = input.status;
    // The row and its revision in one transaction: an error means nothing was written.
    const entry = await this.sequelize.transaction(async (transaction) => {
      const write = async (slug: string) => {
        const [n] = await c.model.update(
          { ...changes, slug },
          { where: { id, tenant_id: identity.tenantId, version: before.version }, transaction },
        );
        if (n === 0) throw new ConflictError(`Entry '${id}' was changed at the same time; reload it and try again`);
      };
      await this.insertOrUpdate(
        c,
        identity.tenantId,
        input.slug !== undefined ? slugify(input.slug) || before.slug : before.slug,
        write,
        'body',
        transaction,
      );
      const written = this.toEntry(c, await this.row(c, id, identity.tenantId, transaction));
      await this.revision(
        c,
        written,
        identity.tenantId,
        input.status && input.status !== before.status ? 'status' : 'update',
        identity.userId,
        transaction,
      );
      return written;
    });
    const statusChanged = entry.status !== before.status ? { previousStatus: before.status } : {};
    const events: Array<[string, ContentEvent]> = [
      [ENTRY_EVENTS.update, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId, ...statusChanged }],
    ];
    if (entry.status !== before.status)
      events.push([
        ENTRY_EVENTS.statusChange,
        { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId, previousStatus: before.status },
      ]);
    await this.announceSafely(name, identity.tenantId, events);
    return entry;
  }

  async remove(name: string, id: string, identity: Identity): Promise<void> {
    await this.removeMany(name, [id], identity, true);
  }

  /** Deletes the entries of these ids (of the caller's tenant) and their revisions. */
  async removeMany(name: string, ids: string[], identity: Identity, mustExist = false): Promise<number> {
    const c = await this.collections.get(name);
    const rows = await c.model.findAll({ where: { id: { [Op.in]: ids }, tenant_id: identity.tenantId } });
    if (mustExist && rows.length === 0) throw new EntryNotFoundError(name, ids[0]!);
    const entries = rows.map((r) => this.toEntry(c, r));
    if (!entries.length) return 0;
    const found = entries.map((e) => e._id);
    await this.sequelize.transaction(async (transaction) => {
      await c.model.destroy({ where: { id: { [Op.in]: found }, tenant_id: identity.tenantId }, transaction });
      await this.models.Revision.destroy({
        where: { collection: name, entry_id: { [Op.in]: found }, tenant_id: identity.tenantId },
        transaction,
      });
    });
    await this.announceSafely(
      name,
      identity.tenantId,
      entries.map((entry) => [ENTRY_EVENTS.delete, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId }]),
    );
    return entries.length;
  }

  /** Which of these ids still exist (in the caller's tenant), one query. */
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

  async revisions(name: string, id: string, identity: Identity) {
    const c = await this.collections.get(name);
    await this.row(c, id, identity.tenantId);
    const rows = await this.models.Revision.findAll({
      where: { collection: name, entry_id: id, tenant_id: identity.tenantId },
      order: [['version', 'DESC']],
    });
    return rows.map((r) => ({
      version: r.version,
      action: r.action,
      data: JSON.parse(r.data) as Entry,
      createdAt: new Date(Number(r.created_at)).toISOString(),
      createdBy: r.created_by,
    }));
  }
}
