import { randomUUID } from 'node:crypto';
import { Op, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, ValidationError, type Identity } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { checkEntryInput, slugify, type CheckedInput } from './entry-input.js';
import { EntryNotFoundError, SingletonTakenError } from './errors.js';
import { detachReferences } from './relation-cleanup.js';
import { isManyRelation } from './field-types.js';
import { entryEvents, type EntryAnnouncer } from './entry-announcer.js';
import type { EntryRevisions } from './entry-revisions.js';
import { entryRow, toEntry, type ContentEvent, type Entry } from './entry-shape.js';
import { slugBase, type EntrySlugs } from './entry-slugs.js';
import { presanitize, type RichTextSanitizer } from './rich-text-pool.js';
import { ENTRY_EVENTS } from './public.js';
import { localizedFields, type EntryLocales } from './entry-locales.js';
import { columnName, fromColumn } from './field-types.js';

/** The events of an update: on:update, and on:status_change when the status moved. */
function updateEvents(name: string, entry: Entry, before: Entry, identity: Identity): Array<[string, ContentEvent]> {
  const statusChanged = entry.status !== before.status ? { previousStatus: before.status } : {};
  const events: Array<[string, ContentEvent]> = [
    [ENTRY_EVENTS.update, { tenantId: identity.tenantId, collection: name, entry, userId: identity.userId, ...statusChanged }],
  ];
  if (entry.status !== before.status) {
    const moved: ContentEvent = {
      tenantId: identity.tenantId,
      collection: name,
      entry,
      userId: identity.userId,
      previousStatus: before.status,
    };
    events.push([ENTRY_EVENTS.statusChange, moved]);
    if (entry.status === 'published') events.push([ENTRY_EVENTS.publish, moved]);
  }
  return events;
}

/** The events of a create: on:create, and on:publish for an entry created published. */
function createEvents(name: string, entry: Entry, identity: Identity): Array<[string, ContentEvent]> {
  const events = entryEvents('create', name, [entry], identity);
  if (entry.status === 'published') events.push([ENTRY_EVENTS.publish, events[0]![1]]);
  return events;
}

/**
 * Writes of one entry: create, update and delete, each checked against the schema, with a unique slug,
 * the row and its revision in one transaction, then announced (lists invalidated, events published).
 */
export class EntryWrites {
  constructor(
    protected readonly sequelize: Sequelize,
    protected readonly collections: CollectionsService,
    protected readonly slugs: EntrySlugs,
    protected readonly revisionLog: EntryRevisions,
    protected readonly announcer: EntryAnnouncer,
    protected readonly richText?: RichTextSanitizer,
    protected readonly localised?: EntryLocales,
  ) {}

  /** Runs a write against the schema; a refused input is tried once more if the schema changed meanwhile. */
  async withSchema<T>(name: string, run: (c: LoadedCollection) => Promise<T>): Promise<T> {
    const c = await this.collections.get(name);
    try {
      return await run(c);
    } catch (err) {
      if (err instanceof ValidationError && (await this.collections.reloadIfChanged(c))) return run(await this.collections.get(name));
      throw err;
    }
  }

  /** Relation values must name an entry of the target collection in the same tenant. */
  async checkRelations(
    c: LoadedCollection,
    input: CheckedInput,
    tenantId: string,
    prefix: string,
    transaction?: Transaction,
  ): Promise<void> {
    const issues: Array<{ path: string; message: string }> = [];
    for (const f of c.fields) {
      const v = input.values[f.name];
      const ids = typeof v === 'string' ? [v] : isManyRelation(f) && Array.isArray(v) ? (v as string[]) : [];
      if (f.type !== 'relation' || !ids.length) continue;
      const target = await this.collections.get(f.collection!);
      // One query per field, whatever the number of ids (a many-relation holds at most MANY_MAX).
      const rows = (await target.model.findAll({
        attributes: ['id'],
        where: { id: { [Op.in]: ids }, tenant_id: tenantId },
        transaction,
        raw: true,
      })) as unknown as Array<{ id: string }>;
      const found = new Set(rows.map((r) => r.id));
      ids.forEach((id, i) => {
        if (!found.has(id))
          issues.push({ path: `${prefix}.${f.name}${isManyRelation(f) ? `.${i}` : ''}`, message: `no entry ${id} in ${f.collection}` });
      });
    }
    if (issues.length) throw new ValidationError(`Invalid relation: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }

  /** One new entry and its revision inside the caller's transaction (`prefix` names the body in problems). */
  async created(c: LoadedCollection, body: unknown, identity: Identity, prefix: string, transaction?: Transaction): Promise<Entry> {
    const input = checkEntryInput(c, body, 'create', prefix);
    await this.checkRelations(c, input, identity.tenantId, prefix, transaction);
    if (c.singleton && (await c.model.count({ where: { tenant_id: identity.tenantId }, transaction })) > 0)
      throw new SingletonTakenError(c.name);
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
    await this.slugs.write(
      c,
      identity.tenantId,
      slugBase(c, input, id),
      async (slug) => {
        await c.model.create({ ...row, slug }, { transaction });
      },
      prefix,
      transaction,
    );
    const entry = toEntry(c, await entryRow(c, id, identity.tenantId, transaction));
    await this.revisionLog.record(c.name, entry, identity.tenantId, 'create', identity.userId, transaction);
    return entry;
  }

  async create(name: string, body: unknown, identity: Identity): Promise<Entry> {
    // The row and its revision in one transaction: an error means nothing was written.
    const entry = await this.withSchema(name, async (c) => {
      const [clean] = await presanitize(c, [body], this.richText);
      const made = await this.sequelize.transaction((transaction) => this.created(c, clean, identity, 'body', transaction));
      await this.localised?.localise(c, [made], identity.tenantId, undefined);
      return made;
    });
    await this.announcer.announceSafely(name, identity.tenantId, createEvents(name, entry, identity));
    return entry;
  }

  /** `locale`: a non-default locale's code sets that locale's values of localized fields and that version's status. */
  async update(name: string, id: string, body: unknown, identity: Identity, locale?: string): Promise<Entry> {
    const code = this.localised?.resolve(locale);
    if (code === '*')
      throw new ValidationError('A write names one locale', [{ path: 'locale', message: 'a write names one locale, not *' }]);
    return this.withSchema(name, async (c) => {
      const split = code !== undefined && code !== this.localised!.defaultCode() && localizedFields(c).length ? code : undefined;
      const entry = await this.updated(c, id, body, identity, split);
      await this.localised?.localise(c, [entry], identity.tenantId, code);
      return entry;
    });
  }

  /**
   * A write in a non-default locale: the body's localized fields (checked as an update checks them) and its status go to
   * that locale's version (entry-locales.ts), the rest to the entry's row; answers the shared part and the version's writer.
   */
  private inLocale(c: LoadedCollection, body: unknown, identity: Identity, id: string, locale: string) {
    const localized = new Set(localizedFields(c).map((f) => f.name));
    const all = (body ?? {}) as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(all).filter(([k]) => localized.has(k)));
    const shared = Object.fromEntries(Object.entries(all).filter(([k]) => !localized.has(k) && k !== 'status'));
    const checked = checkEntryInput(c, { ...own, ...(all.status !== undefined ? { status: all.status } : {}) }, 'update');
    const values: Record<string, unknown> = {};
    for (const f of c.fields)
      if (localized.has(f.name) && Object.hasOwn(checked.columns, columnName(f)))
        values[f.name] = fromColumn(f, checked.columns[columnName(f)]);
    const target = { tenantId: identity.tenantId, entryId: id, locale, userId: identity.userId };
    return { shared, write: (t: Transaction) => this.localised!.write(c, target, values, checked.status, t) };
  }

  private async updated(c: LoadedCollection, id: string, body: unknown, identity: Identity, locale?: string): Promise<Entry> {
    const name = c.name;
    const current = await entryRow(c, id, identity.tenantId);
    const before = toEntry(c, current);
    const [sanitised] = await presanitize(c, [body], this.richText);
    const localeWrite = locale ? this.inLocale(c, sanitised, identity, id, locale) : null;
    const clean = localeWrite ? localeWrite.shared : sanitised;
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
      const base = input.slug !== undefined ? slugify(input.slug) || before.slug : before.slug;
      await this.slugs.write(c, identity.tenantId, base, write, 'body', transaction);
      if (localeWrite) await localeWrite.write(transaction);
      const written = toEntry(c, await entryRow(c, id, identity.tenantId, transaction));
      const action = input.status && input.status !== before.status ? 'status' : 'update';
      await this.revisionLog.record(c.name, written, identity.tenantId, action, identity.userId, transaction);
      return written;
    });
    await this.announcer.announceSafely(name, identity.tenantId, updateEvents(name, entry, before, identity));
    return entry;
  }

  async removeMany(name: string, ids: string[], identity: Identity, mustExist = false): Promise<number> {
    const c = await this.collections.get(name);
    const rows = await c.model.findAll({ where: { id: { [Op.in]: ids }, tenant_id: identity.tenantId } });
    if (mustExist && rows.length === 0) throw new EntryNotFoundError(name, ids[0]!);
    const entries = rows.map((r) => toEntry(c, r));
    if (!entries.length) return 0;
    const found = entries.map((e) => e._id);
    const detached = await this.sequelize.transaction(async (transaction) => {
      await c.model.destroy({ where: { id: { [Op.in]: found }, tenant_id: identity.tenantId }, transaction });
      await this.revisionLog.removeFor(name, found, identity.tenantId, transaction);
      await this.localised?.removeFor(name, identity.tenantId, found, transaction);
      return detachReferences(this.collections, name, found, identity.tenantId, transaction);
    });
    for (const other of detached) if (other !== name) await this.announcer.invalidateListsSafely(identity.tenantId, other);
    await this.announcer.announceSafely(name, identity.tenantId, entryEvents('delete', name, entries, identity));
    return entries.length;
  }
}
