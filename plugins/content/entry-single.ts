import { ConflictError, hasPermission, type Identity } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { EntryNotFoundError, NotSingletonError } from './errors.js';
import { selectedKeys } from './field-selection.js';
import type { EntryReads, ReadOptions } from './entry-reads.js';
import { parsePopulate } from './populate.js';
import { toEntry, type Entry } from './entry-shape.js';

const PUT_ATTEMPTS = 5;

/** What a singleton's writes need from the entries service. */
export interface SingleWrites {
  create(name: string, body: unknown, identity: Identity, locale?: string): Promise<Entry>;
  update(name: string, id: string, body: unknown, identity: Identity, locale?: string): Promise<Entry>;
}

/**
 * Singletons (API decisions, "Content model v2"): a collection created with `singleton: true` holds at
 * most one entry per tenant (a unique index on its table's tenant_id keeps it so, whichever writer
 * inserts), read at GET .../single and written at PUT .../single.
 */
export class EntrySingles {
  constructor(
    private readonly collections: CollectionsService,
    private readonly writes: SingleWrites,
    private readonly reads: Pick<EntryReads, 'shape' | 'view' | 'localised'>,
  ) {}

  private async singleton(name: string): Promise<LoadedCollection> {
    const c = await this.collections.get(name);
    if (!c.singleton) throw new NotSingletonError(name);
    return c;
  }

  private async row(c: LoadedCollection, tenantId: string) {
    return c.model.findOne({ where: { tenant_id: tenantId } });
  }

  /** The one entry as `identity` may read it (readers without content:write: when published); 404 before it is written. */
  async get(name: string, identity: Identity, options: ReadOptions = {}): Promise<Entry> {
    const c = this.reads.view(await this.singleton(name));
    const keys = selectedKeys(c, options.fields);
    const tree = parsePopulate(c, options.populate, (n) => this.collections.findForRead(n));
    const row = await this.row(c, identity.tenantId);
    const entry = row ? toEntry(c, row) : null;
    if (!entry) throw new EntryNotFoundError(name, 'single');
    const locale = this.reads.localised?.resolve(options.locale);
    await this.reads.localised?.localise(c, [entry], identity.tenantId, locale, !hasPermission(identity, 'content:write'));
    // In a locale, the status is that locale's version's (entry-locales.ts).
    if (!hasPermission(identity, 'content:write') && entry.status !== 'published') throw new EntryNotFoundError(name, 'single');
    return this.reads.shape(c, entry, identity, { keys, tree, locale });
  }

  /**
   * Writes the one entry: created the first time (`created: true`), else its fields replaced by the body
   * (a field left out is emptied; slug and status kept unless given). `locale`: as for create and update (a localized
   * field left out is emptied in that locale's version).
   */
  async put(name: string, body: unknown, identity: Identity, locale?: string): Promise<{ entry: Entry; created: boolean }> {
    const c = await this.singleton(name);
    // Writes at the same moment meet as a 409 (the entry created meanwhile, or changed meanwhile): the last
    // PUT wins, as it would one after the other; bounded.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.putOnce(c, body, identity, locale);
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= PUT_ATTEMPTS || !(await this.row(c, identity.tenantId))) throw err;
      }
    }
  }

  private async putOnce(
    c: LoadedCollection,
    body: unknown,
    identity: Identity,
    locale?: string,
  ): Promise<{ entry: Entry; created: boolean }> {
    const existing = await this.row(c, identity.tenantId);
    if (!existing) return { entry: await this.writes.create(c.name, body, identity, locale), created: true };
    const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    const emptied = Object.fromEntries(c.fields.filter((f) => !given || !Object.hasOwn(given, f.name)).map((f) => [f.name, null]));
    const entry = await this.writes.update(c.name, String(existing.get('id')), given ? { ...emptied, ...given } : body, identity, locale);
    return { entry, created: false };
  }
}
