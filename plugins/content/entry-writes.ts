import { randomUUID } from 'node:crypto';
import { Op, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, NotFoundError, ValidationError, type Identity, type RuleAction } from '../../kernel/sdk.js';
import { writeAccess, writeActions } from './entry-access.js';
import { checkRelations } from './relation-check.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { checkEntryInput, slugify, type CheckedInput } from './entry-input.js';
import { EntryNotFoundError, SingletonTakenError } from './errors.js';
import { StaleVersionError } from './entry-errors.js';
import { detachReferences } from './relation-cleanup.js';
import { createEvents, entryEvents, updateEvents, type EntryAnnouncer } from './entry-announcer.js';
import type { EntryRevisions } from './entry-revisions.js';
import { entryRow, toEntry, type Entry } from './entry-shape.js';
import { slugBase, type EntrySlugs } from './entry-slugs.js';
import { presanitize, type RichTextSanitizer } from './rich-text-pool.js';
import { localizedFields, type EntryLocales } from './entry-locales.js';
import { columnName, fromColumn } from './field-types.js';
import type { DraftStore } from './entry-drafts.js';
import type { EntryHooks } from './entry-hooks.js';
import { holdForDefaultMove } from './locale-move-guard.js';

/**
 * A new entry created in a non-default locale: its localized values (checked as a create checks them, so a required
 * localized field must be given) go to that locale's version, with the body's status; the row (the default locale's
 * version) holds the shared fields, its localized fields empty, and is a draft (its required localized fields are
 * empty until written in the default locale).
 */
function splitCreate(c: LoadedCollection, input: CheckedInput) {
  const localized = localizedFields(c);
  const columns = { ...input.columns };
  const values: Record<string, unknown> = {};
  for (const f of localized) {
    const column = columnName(f);
    if (Object.hasOwn(columns, column)) values[f.name] = fromColumn(f, columns[column]);
    delete columns[column];
  }
  return { columns, values };
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
    /** Working drafts (entry-drafts.ts): deleted with their entries. */
    protected readonly drafts?: DraftStore,
    /** Publish guards and answer decorators (entry-hooks.ts). */
    protected readonly hooks?: EntryHooks,
  ) {}

  /** Asks the publish guards (entry-hooks.ts) when a write makes an entry published; a refusal rolls the write back. */
  protected async guardPublish(c: LoadedCollection, tenantId: string, entryId: string | null, transaction?: Transaction): Promise<void> {
    await this.hooks?.beforePublish({ tenantId, collection: c.name, entryId, transaction });
  }

  /**
   * Asks the publish guards before a publication that is no status change: a working draft of an entry published
   * already (entry-drafts.ts). A write that makes an entry published asks them itself, inside its transaction.
   */
  async assertMayPublish(name: string, tenantId: string, entryId: string): Promise<void> {
    await this.guardPublish(await this.collections.get(name), tenantId, entryId);
  }

  /** The caller's rules for a write (entry-access.ts, writeAccess): checked now, and a check of entries for their `where`. */
  protected writeAccess(c: LoadedCollection, identity: Identity, actions: RuleAction[], body: unknown, locale: string | undefined) {
    return writeAccess(c, identity, actions, body, locale, {
      defaultCode: this.localised?.defaultCode() ?? 'en',
      lookup: (n: string) => this.collections.findForRead(n),
      dialect: this.sequelize.getDialect(),
    });
  }

  /** The caller's rules allow `action` on these entries with this body and locale (entry-access.ts); else 403. */
  async assertMayAct(name: string, ids: string[], identity: Identity, action: RuleAction, body?: unknown, locale?: string): Promise<void> {
    await this.writeAccess(await this.collections.get(name), identity, [action], body, this.writeLocale(locale))(ids);
  }

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

  /** Relation values must name an entry of the target collection in the same tenant (relation-check.ts). */
  checkRelations(c: LoadedCollection, input: CheckedInput, tenantId: string, prefix: string, transaction?: Transaction): Promise<void> {
    return checkRelations(this.collections, c, input, tenantId, prefix, transaction);
  }

  /**
   * One new entry and its revision inside the caller's transaction (`prefix` names the body in problems). `locale` (a
   * non-default locale of a collection with localized fields): the entry is created in that locale (see splitCreate).
   */
  async created(
    c: LoadedCollection,
    body: unknown,
    identity: Identity,
    prefix: string,
    transaction?: Transaction,
    locale?: string,
  ): Promise<Entry> {
    const input = checkEntryInput(c, body, 'create', prefix);
    await this.checkRelations(c, input, identity.tenantId, prefix, transaction);
    if (c.singleton && (await c.model.count({ where: { tenant_id: identity.tenantId }, transaction })) > 0)
      throw new SingletonTakenError(c.name);
    const id = randomUUID();
    const now = Date.now();
    const split = locale ? splitCreate(c, input) : null;
    if (input.status === 'published') await this.guardPublish(c, identity.tenantId, null, transaction);
    const row = {
      id,
      tenant_id: identity.tenantId,
      sync_id: randomUUID(),
      status: split ? 'draft' : (input.status ?? 'draft'),
      version: 1,
      created_by: identity.userId,
      updated_by: identity.userId,
      created_at: now,
      updated_at: now,
      ...(split ? split.columns : input.columns),
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
    if (split && locale) {
      const target = { tenantId: identity.tenantId, entryId: id, locale, userId: identity.userId };
      await this.localised!.write(c, target, split.values, input.status ?? 'draft', transaction!);
    }
    const entry = toEntry(c, await entryRow(c, id, identity.tenantId, transaction));
    const recorded = locale ? await this.inLocaleAnswer(c, entry, identity, locale, transaction) : entry;
    await this.revisionLog.record(c.name, recorded, identity.tenantId, 'create', identity.userId, transaction, locale ?? null);
    return entry;
  }

  /** A copy of the entry as answered in `locale` (read inside the writing transaction): a locale's revision holds it. */
  private async inLocaleAnswer(c: LoadedCollection, entry: Entry, identity: Identity, locale: string, transaction?: Transaction) {
    const copy = { ...entry };
    await this.localised!.localise(c, [copy], identity.tenantId, locale, false, transaction);
    delete (copy as Record<string, unknown>)._localeUpdatedAt; // not part of a revision's state
    return copy;
  }

  /** The locale a write applies to its own version: a non-default locale of a collection with localized fields, else none. */
  protected ownLocale(c: LoadedCollection, code: string | undefined): string | undefined {
    return code !== undefined && code !== '*' && code !== this.localised!.defaultCode() && localizedFields(c).length ? code : undefined;
  }

  /**
   * Writes the state of one of the entry's revisions as a new version (API decisions, "Editorial": `POST
   * .../revisions/:version/restore`), as an update of the fields the revision holds (slug and status stay as they
   * are). A revision of a write in a locale restores that locale's version: its own values of localized fields, and
   * the fields that fell back then fall back again; shared fields stay (they belong to every locale). A revision of the
   * row restores the row's fields. 404 for an unknown entry or version; values the schema no longer takes are 400.
   */
  async restore(name: string, id: string, version: number, identity: Identity): Promise<Entry> {
    const { body, locale, unset } = await this.restoredBody(name, id, version, identity);
    return this.update(name, id, body, identity, locale, unset);
  }

  /**
   * What restoring a revision writes (see restore): the body, the revision's locale (undefined: the entry's row) and the
   * localized fields that fell back then (dropped from that locale's version). Working drafts (entry-drafts.ts) write it
   * into the draft instead.
   */
  async restoredBody(name: string, id: string, version: number, identity: Identity) {
    const c = await this.collections.get(name);
    await entryRow(c, id, identity.tenantId);
    const found = await this.revisionLog.one(name, id, identity.tenantId, version);
    if (!found) throw new NotFoundError(`Entry '${id}' has no revision ${version}`);
    const data = found.data as Record<string, unknown>;
    const has = (n: string) => Object.hasOwn(data, n);
    if (found.locale) {
      const fellBack = Array.isArray(data._fallbackFields) ? data._fallbackFields.filter((n): n is string => typeof n === 'string') : [];
      const own = localizedFields(c).filter((f) => has(f.name) && !fellBack.includes(f.name));
      return { body: Object.fromEntries(own.map((f) => [f.name, data[f.name]])), locale: found.locale, unset: fellBack };
    }
    const body = Object.fromEntries(c.fields.filter((f) => has(f.name)).map((f) => [f.name, data[f.name]]));
    return { body, locale: undefined, unset: [] as string[] };
  }

  /**
   * The locale whose own version a write in `locale` changes (publish-schedules.ts keys schedules by it): a non-default
   * locale of a collection with localized fields, else '' (the entry's row). An unknown locale or `*` is 400.
   */
  async versionLocale(name: string, locale: string | undefined): Promise<string> {
    const code = this.writeLocale(locale);
    return this.ownLocale(await this.collections.get(name), code) ?? '';
  }

  /** `?locale=`: one locale's code (a write names one locale: `*` is 400). */
  protected writeLocale(locale: string | undefined): string | undefined {
    const code = this.localised?.resolve(locale);
    if (code === '*')
      throw new ValidationError('A write names one locale', [{ path: 'locale', message: 'a write names one locale, not *' }]);
    return code;
  }

  /** `locale`: created in that locale (its localized values there; see splitCreate); the answer is in that locale. */
  async create(name: string, body: unknown, identity: Identity, locale?: string): Promise<Entry> {
    const code = this.writeLocale(locale);
    // The row and its revision in one transaction: an error means nothing was written.
    let own: string | undefined;
    const entry = await this.withSchema(name, async (c) => {
      const meets = this.writeAccess(c, identity, writeActions(body, true), body, code);
      const [clean] = await presanitize(c, [body], this.richText);
      own = this.ownLocale(c, code);
      const made = await this.sequelize.transaction(async (transaction) => {
        await holdForDefaultMove(this.sequelize, c, transaction);
        const entry = await this.created(c, clean, identity, 'body', transaction, own);
        // A rule's `where` on create: the new entry must meet it (else nothing is written).
        await meets([entry._id], transaction);
        return entry;
      });
      await this.localised?.localise(c, [made], identity.tenantId, code);
      await this.hooks?.decorate(name, identity, [made]);
      return made;
    });
    // Created in a locale: its events carry the entry as answered there (ContentEvent.locale).
    await this.announcer.announceSafely(name, identity.tenantId, createEvents(name, [entry], identity, own));
    return entry;
  }

  /**
   * `locale`: a non-default locale's code sets that locale's values of localized fields and that version's status.
   * `unset`: localized fields dropped from that locale's version (a restored revision's fallbacks).
   */
  async update(
    name: string,
    id: string,
    body: unknown,
    identity: Identity,
    locale?: string,
    unset: string[] = [],
    ifVersion?: number,
  ): Promise<Entry> {
    const code = this.writeLocale(locale);
    return this.withSchema(name, async (c) => {
      const { entry, events } = await this.updated(c, id, body, identity, this.ownLocale(c, code), unset, ifVersion);
      const row = { ...entry };
      try {
        await this.localised?.localise(c, [entry], identity.tenantId, code);
        await this.hooks?.decorate(name, identity, [entry]);
      } finally {
        // A write of the row announces the entry as answered in the default locale: the answer (asked in another locale,
        // the collection has no localized fields: the same values and status); a write in a locale, that locale's answer.
        const view = entry._locale === undefined ? row : { ...entry, _locale: this.localised!.defaultCode() };
        await this.announcer.announceSafely(name, identity.tenantId, events(view));
      }
      return entry;
    });
  }

  /**
   * A write in a non-default locale: the body's localized fields (checked as an update checks them) and its status go to
   * that locale's version (entry-locales.ts), the rest to the entry's row; answers the shared part and the version's writer.
   */
  private inLocale(c: LoadedCollection, body: unknown, identity: Identity, id: string, locale: string, unset: string[] = []) {
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
    const dropped = unset.filter((n) => localized.has(n) && !Object.hasOwn(values, n));
    return {
      shared,
      status: checked.status,
      write: (t: Transaction) => this.localised!.write(c, target, values, checked.status, t, dropped),
    };
  }

  private async updated(
    c: LoadedCollection,
    id: string,
    body: unknown,
    identity: Identity,
    locale?: string,
    unset: string[] = [],
    ifVersion?: number,
  ): Promise<{ entry: Entry; events: (view: Entry) => ReturnType<typeof updateEvents> }> {
    const name = c.name;
    const meets = this.writeAccess(c, identity, writeActions(body, false), body, locale);
    const current = await entryRow(c, id, identity.tenantId);
    await meets([id]);
    const before = toEntry(c, current);
    // Saved from an older version: refused before anything is checked or written (the row's version check below
    // then also refuses a save that lands between this read and the write).
    if (ifVersion !== undefined && ifVersion !== before.version)
      throw new StaleVersionError(id, ifVersion, {
        version: before.version,
        updatedAt: before.updatedAt,
        updatedBy: (before.updatedBy as string | null | undefined) ?? null,
      });
    const [sanitised] = await presanitize(c, [body], this.richText);
    const localeWrite = locale ? this.inLocale(c, sanitised, identity, id, locale, unset) : null;
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
    let events: (view: Entry) => ReturnType<typeof updateEvents> = () => [];
    const entry = await this.sequelize.transaction(async (transaction) => {
      await holdForDefaultMove(this.sequelize, c, transaction);
      const write = async (slug: string) => {
        const [n] = await c.model.update(
          { ...changes, slug },
          { where: { id, tenant_id: identity.tenantId, version: before.version }, transaction },
        );
        if (n === 0) throw new ConflictError(`Entry '${id}' was changed at the same time; reload it and try again`);
      };
      const base = input.slug !== undefined ? slugify(input.slug) || before.slug : before.slug;
      await this.slugs.write(c, identity.tenantId, base, write, 'body', transaction);
      const previous = localeWrite ? await localeWrite.write(transaction) : undefined;
      const publishes = localeWrite ? localeWrite.status === 'published' && previous !== 'published' : input.status === 'published';
      if (publishes && (localeWrite || before.status !== 'published')) await this.guardPublish(c, identity.tenantId, id, transaction);
      const written = toEntry(c, await entryRow(c, id, identity.tenantId, transaction));
      // A write in a locale records a revision of that locale: the entry as answered there, its status that version's;
      // its events carry the same (ContentEvent.locale).
      if (locale && localeWrite) {
        const action = localeWrite.status && localeWrite.status !== previous ? 'status' : 'update';
        const recorded = await this.inLocaleAnswer(c, written, identity, locale, transaction);
        await this.revisionLog.record(c.name, recorded, identity.tenantId, action, identity.userId, transaction, locale);
        const inLocale = updateEvents(name, recorded, { status: (previous ?? 'draft') as Entry['status'] }, identity, locale);
        events = () => inLocale;
      } else {
        // The default locale's localized values changed: their time moves (`_localeUpdatedAt`, entry-locales.ts).
        const changed = localizedFields(c).some((f) => JSON.stringify(before[f.name] ?? null) !== JSON.stringify(written[f.name] ?? null));
        if (changed && this.localised)
          await this.localised.touch(
            c,
            { tenantId: identity.tenantId, entryId: id, locale: this.localised.defaultCode() },
            Date.now(),
            transaction,
          );
        const action = input.status && input.status !== before.status ? 'status' : 'update';
        await this.revisionLog.record(c.name, written, identity.tenantId, action, identity.userId, transaction);
        events = (view) => updateEvents(name, view, before, identity);
      }
      return written;
    });
    return { entry, events };
  }

  async removeMany(name: string, ids: string[], identity: Identity, mustExist = false): Promise<number> {
    const c = await this.collections.get(name);
    const meets = this.writeAccess(c, identity, ['delete'], undefined, undefined);
    const rows = await c.model.findAll({ where: { id: { [Op.in]: ids }, tenant_id: identity.tenantId } });
    if (mustExist && rows.length === 0) throw new EntryNotFoundError(name, ids[0]!);
    const entries = rows.map((r) => toEntry(c, r));
    if (!entries.length) return 0;
    await meets(entries.map((e) => e._id));
    const found = entries.map((e) => e._id);
    let versions: Awaited<ReturnType<EntryLocales['versions']>> = new Map();
    const detached = await this.sequelize.transaction(async (transaction) => {
      // Their versions in other locales as they were go with their events (ContentEvent.versions).
      if (localizedFields(c).length && this.localised) versions = await this.localised.versions(c, identity.tenantId, found, transaction);
      await c.model.destroy({ where: { id: { [Op.in]: found }, tenant_id: identity.tenantId }, transaction });
      await this.revisionLog.removeFor(name, found, identity.tenantId, transaction);
      await this.localised?.removeFor(name, identity.tenantId, found, transaction);
      await this.drafts?.removeFor(name, identity.tenantId, found, transaction);
      return detachReferences(this.collections, name, found, identity.tenantId, transaction);
    });
    for (const other of detached) if (other !== name) await this.announcer.invalidateListsSafely(identity.tenantId, other);
    const snapshot = (e: Entry) => {
      const own = versions.get(e._id);
      return own ? { versions: Object.fromEntries([...own].map(([code, v]) => [code, { data: v.data, status: v.status }])) } : {};
    };
    await this.announcer.announceSafely(name, identity.tenantId, entryEvents('delete', name, entries, identity, undefined, snapshot));
    return entries.length;
  }
}
