/**
 * Working drafts (issue 37, API decisions "Editorial: working drafts"; docs/features/drafts.md). A collection with
 * `drafts: true` lets an entry have one working draft per locale beside its published version, in its own table
 * (content_entry_drafts, content migration 0013): the normal read paths (lists, reads, GraphQL, subscriptions, webhooks,
 * exports) read the entries' tables and never see it.
 *
 * A draft holds the fields written to it (PUT .../draft, merged as PATCH merges); the other fields show the published
 * values. Writing a draft changes nothing published and publishes no entry event (lists are invalidated, for `hasDraft`).
 * Publishing writes the draft's fields into the entry (an ordinary update: a revision, on:update) with status published,
 * announces on:publish, and removes the draft.
 */
import { Op, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, NotFoundError, ValidationError, rowsChanged, type Identity } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import type { EntryAnnouncer } from './entry-announcer.js';
import { checkEntryInput, slugify } from './entry-input.js';
import { localizedFields } from './entry-locales.js';
import { parseObject } from './entry-locale-rows.js';
import type { EntryReads } from './entry-reads.js';
import type { Entry } from './entry-shape.js';
import type { EntryWrites } from './entry-writes.js';
import { columnName, fromColumn } from './field-types.js';
import { ENTRY_EVENTS } from './public.js';
import { presanitize, type RichTextSanitizer } from './rich-text-pool.js';
import { answerFor, limitsFor, visibleFields } from './entry-access.js';

const TABLE = 'content_entry_drafts';
/** Entry ids per query when a page's drafts are looked up (a page has at most 100 entries). */
const IDS_PER_QUERY = 500;

/** One stored draft: the fields written to it (field name -> value as reads answer it; `slug` when written). */
export interface StoredDraft {
  data: Record<string, unknown>;
  version: number;
  baseVersion: number;
  updatedBy: string | null;
  updatedAt: number;
}

interface DraftKey {
  tenantId: string;
  collection: string;
  entryId: string;
  /** '' for the entry's row (the default locale's version), else a non-default locale with its own version. */
  locale: string;
}

/** The draft table: plain statements keyed by (tenant, collection, entry, locale). */
export class DraftStore {
  constructor(private readonly sequelize: Sequelize) {}

  async one(k: DraftKey): Promise<StoredDraft | null> {
    const rows = await this.sequelize.query<Record<string, unknown>>(
      `SELECT data, version, base_version, updated_by, updated_at FROM ${TABLE} WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND locale = ?`,
      { replacements: [k.tenantId, k.collection, k.entryId, k.locale], type: QueryTypes.SELECT },
    );
    const r = rows[0];
    if (!r) return null;
    return {
      data: parseObject(r.data),
      version: Number(r.version),
      baseVersion: Number(r.base_version),
      updatedBy: (r.updated_by as string | null) ?? null,
      updatedAt: Number(r.updated_at),
    };
  }

  /** A new draft (version 1); another writer's draft made at the same time is a 409. */
  async insert(k: DraftKey, data: Record<string, unknown>, baseVersion: number, userId: string | null): Promise<StoredDraft> {
    const now = Date.now();
    try {
      await this.sequelize.query(
        `INSERT INTO ${TABLE} (tenant_id, collection, entry_id, locale, data, version, base_version, created_by, updated_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
        {
          replacements: [k.tenantId, k.collection, k.entryId, k.locale, JSON.stringify(data), baseVersion, userId, userId, now, now],
          type: QueryTypes.INSERT,
        },
      );
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new ConflictError('The draft was written at the same time; try again');
      throw err;
    }
    return { data, version: 1, baseVersion, updatedBy: userId, updatedAt: now };
  }

  /** The draft's new fields, when it is still at `from` (else another write came first: 409). */
  async update(k: DraftKey, from: StoredDraft, data: Record<string, unknown>, userId: string | null): Promise<StoredDraft> {
    const now = Date.now();
    const [, meta] = await this.sequelize.query(
      `UPDATE ${TABLE} SET data = ?, version = ?, updated_by = ?, updated_at = ? WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND locale = ? AND version = ?`,
      {
        replacements: [JSON.stringify(data), from.version + 1, userId, now, k.tenantId, k.collection, k.entryId, k.locale, from.version],
        type: QueryTypes.UPDATE,
      },
    );
    if (!rowsChanged(meta)) throw new ConflictError('The draft was written at the same time; reload it and try again');
    return { data, version: from.version + 1, baseVersion: from.baseVersion, updatedBy: userId, updatedAt: now };
  }

  /** Removes the draft (only at `version` when given); how many rows went. */
  async remove(k: DraftKey, version?: number): Promise<number> {
    const result: unknown = await this.sequelize.query(
      `DELETE FROM ${TABLE} WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND locale = ?${version === undefined ? '' : ' AND version = ?'}`,
      {
        replacements: [k.tenantId, k.collection, k.entryId, k.locale, ...(version === undefined ? [] : [version])],
        // BULKDELETE: the number of rows deleted, on both dialects (DELETE answers nothing).
        type: QueryTypes.BULKDELETE,
      },
    );
    return rowsChanged(result);
  }

  /** Every draft (every locale) of these entries, inside the deleting transaction. */
  async removeFor(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void> {
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY)
      await this.sequelize
        .getQueryInterface()
        .bulkDelete(TABLE, { tenant_id: tenantId, collection, entry_id: { [Op.in]: ids.slice(i, i + IDS_PER_QUERY) } }, { transaction });
  }

  /** Every draft of a collection (it is deleted). */
  async removeCollection(collection: string): Promise<void> {
    await this.sequelize.getQueryInterface().bulkDelete(TABLE, { collection }, {});
  }

  /** Which of these entries have a draft in `locale`. */
  async withDrafts(tenantId: string, collection: string, ids: string[], locale: string): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const chunk = ids.slice(i, i + IDS_PER_QUERY);
      if (!chunk.length) continue;
      const rows = await this.sequelize.query<{ entry_id: string }>(
        `SELECT entry_id FROM ${TABLE} WHERE tenant_id = ? AND collection = ? AND locale = ? AND entry_id IN (?)`,
        { replacements: [tenantId, collection, locale, chunk], type: QueryTypes.SELECT },
      );
      for (const r of rows) out.add(String(r.entry_id));
    }
    return out;
  }

  /**
   * Sets `hasDraft` on entries of a collection with drafts, as `locale` (a `?locale=` choice: `*`, the default or none
   * look at the entry's row's drafts) answers them; entries of other collections are left as they are.
   */
  async mark(c: LoadedCollection, entries: Entry[], tenantId: string, locale: string | undefined, defaultCode: string): Promise<void> {
    if (!c.drafts || !entries.length) return;
    const found = await this.withDrafts(
      tenantId,
      c.name,
      entries.map((e) => e._id),
      draftLocale(c, locale, defaultCode),
    );
    for (const e of entries) (e as Record<string, unknown>).hasDraft = found.has(e._id);
  }
}

/** The locale key of a draft: a non-default locale of a collection with localized fields, else '' (the entry's row). */
export function draftLocale(c: LoadedCollection, locale: string | undefined, defaultCode: string): string {
  return locale !== undefined && locale !== '*' && locale !== defaultCode && localizedFields(c).length ? locale : '';
}

/** A collection without working drafts: the draft routes are refused. */
export class DraftsDisabledError extends ValidationError {
  constructor(collection: string) {
    super(`Collection '${collection}' has no working drafts (set drafts: true on it)`, [
      { path: 'collection', message: 'the collection has no working drafts' },
    ]);
  }
}

/** GET|PUT|DELETE .../:id/draft and POST .../:id/draft/publish; restoring a revision into the draft. */
export class EntryDrafts {
  constructor(
    private readonly store: DraftStore,
    private readonly collections: CollectionsService,
    private readonly writes: EntryWrites,
    private readonly reads: EntryReads,
    private readonly announcer: EntryAnnouncer,
    private readonly richText?: RichTextSanitizer,
  ) {}

  /** Whether the collection has working drafts (restoring a revision writes into the draft then). */
  async enabled(name: string): Promise<boolean> {
    return Boolean((await this.collections.get(name)).drafts);
  }

  private async target(name: string, id: string, identity: Identity, locale?: string) {
    const c = await this.collections.get(name);
    if (!c.drafts) throw new DraftsDisabledError(name);
    // Validates the locale (unknown or `*`: 400) and names the version the draft belongs to.
    const key: DraftKey = {
      tenantId: identity.tenantId,
      collection: name,
      entryId: id,
      locale: await this.writes.versionLocale(name, locale),
    };
    return { c, key };
  }

  /** The entry as published now (as the caller reads it; 404 when missing in the tenant). */
  private published(name: string, id: string, identity: Identity, locale?: string): Promise<Entry> {
    return this.reads.get(name, id, identity, { locale });
  }

  /** The entry with the draft's fields over the published ones, `hasDraft: true` and the draft's own state in `_draft`. */
  private answer(c: LoadedCollection, entry: Entry, d: StoredDraft): Entry {
    const out: Record<string, unknown> = { ...entry };
    const written = c.fields.filter((f) => Object.hasOwn(d.data, f.name)).map((f) => f.name);
    for (const n of written) out[n] = d.data[n];
    if (typeof d.data.slug === 'string') out.slug = d.data.slug;
    if (Array.isArray(out._fallbackFields)) out._fallbackFields = out._fallbackFields.filter((n) => !written.includes(String(n)));
    out.hasDraft = true;
    out._draft = {
      version: d.version,
      basedOn: d.baseVersion,
      updatedAt: new Date(d.updatedAt).toISOString(),
      updatedBy: d.updatedBy,
      fields: [...written, ...(typeof d.data.slug === 'string' ? ['slug'] : [])],
    };
    return out as Entry;
  }

  async get(name: string, id: string, identity: Identity, locale?: string): Promise<Entry> {
    const { c, key } = await this.target(name, id, identity, locale);
    const entry = await this.published(name, id, identity, locale);
    const d = await this.store.one(key);
    if (!d) throw new NotFoundError(`Entry '${id}' of '${name}' has no working draft`);
    return visibleFields(this.answer(c, entry, d), limitsFor(identity, name, 'read'));
  }

  /** The body's fields checked as an update checks them (types, required fields, relations), as reads answer them. */
  private async checked(c: LoadedCollection, body: unknown, identity: Identity): Promise<Record<string, unknown>> {
    // A draft has no status of its own (publishing it publishes): a status sent, as in an entry sent back, is left out.
    const fields = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
    if (fields && typeof fields === 'object') delete (fields as Record<string, unknown>).status;
    const [clean] = await presanitize(c, [fields], this.richText);
    const input = checkEntryInput(c, clean, 'update');
    await this.writes.checkRelations(c, input, identity.tenantId, 'body');
    const values: Record<string, unknown> = {};
    for (const f of c.fields) if (Object.hasOwn(input.columns, columnName(f))) values[f.name] = fromColumn(f, input.columns[columnName(f)]);
    if (input.slug !== undefined && slugify(input.slug)) values.slug = slugify(input.slug);
    return values;
  }

  /** Writes the body's fields into the draft (made on the first write; the other fields keep the draft's values). */
  async put(name: string, id: string, body: unknown, identity: Identity, locale?: string): Promise<Entry> {
    const { key } = await this.target(name, id, identity, locale);
    const entry = await this.published(name, id, identity, locale);
    // A draft is a change: the caller's update rules (fields, entries, locales) apply as to an update.
    await this.writes.assertMayAct(name, [id], identity, 'update', body, locale);
    const { c, values } = await this.writes.withSchema(name, async (c) => ({ c, values: await this.checked(c, body, identity) }));
    const current = await this.store.one(key);
    const d = current
      ? await this.store.update(key, current, { ...current.data, ...values }, identity.userId)
      : await this.store.insert(key, values, entry.version, identity.userId);
    // Lists answer hasDraft to writers; nothing published changed, so no entry event goes out.
    if (!current) await this.announcer.invalidateListsSafely(identity.tenantId, name);
    return visibleFields(this.answer(c, entry, d), limitsFor(identity, name, 'read'));
  }

  /** Publishes the draft: its fields written into the entry with status published (a revision, on:update, on:publish). */
  async publish(name: string, id: string, identity: Identity, locale?: string): Promise<Entry> {
    const { c, key } = await this.target(name, id, identity, locale);
    const before = await this.published(name, id, identity, locale);
    const d = await this.store.one(key);
    if (!d) throw new NotFoundError(`Entry '${id}' of '${name}' has no working draft`);
    const body: Record<string, unknown> = { status: 'published' };
    for (const f of c.fields) if (Object.hasOwn(d.data, f.name)) body[f.name] = d.data[f.name];
    if (typeof d.data.slug === 'string') body.slug = d.data.slug;
    // Publishing a draft of a published entry is a publication too: review stages may refuse it (409 WORKFLOW_STAGE_REQUIRED).
    if (before.status === 'published') await this.writes.assertMayPublish(name, identity.tenantId, id);
    const entry = await this.writes.update(name, id, body, identity, locale);
    // An entry published already: its update announced on:update only; publishing a draft is a publication too.
    if (before.status === 'published')
      await this.announcer.announceSafely(name, identity.tenantId, [
        [ENTRY_EVENTS.publish, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId }],
      ]);
    // A draft written while it was being published stays (its newer fields are not lost).
    const removed = await this.store.remove(key, d.version);
    await this.announcer.invalidateListsSafely(identity.tenantId, name);
    return answerFor(name, Object.assign(entry, { hasDraft: removed === 0 }), identity);
  }

  async discard(name: string, id: string, identity: Identity, locale?: string): Promise<void> {
    const { key } = await this.target(name, id, identity, locale);
    await this.published(name, id, identity, locale);
    await this.writes.assertMayAct(name, [id], identity, 'update', undefined, locale);
    if (!(await this.store.remove(key))) throw new NotFoundError(`Entry '${id}' of '${name}' has no working draft`);
    await this.announcer.invalidateListsSafely(identity.tenantId, name);
  }

  /** A revision's state written into the working draft (its locale's draft for a revision of a write in a locale). */
  async restore(name: string, id: string, version: number, identity: Identity): Promise<Entry> {
    const { body, locale } = await this.writes.restoredBody(name, id, version, identity);
    return this.put(name, id, body, identity, locale);
  }
}
