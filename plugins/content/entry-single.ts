import { ConflictError, ruleLimits, type Identity } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import { EntryNotFoundError, NotSingletonError } from './errors.js';
import type { EntryReads, ReadOptions } from './entry-reads.js';
import type { Entry } from './entry-shape.js';
import { answerFor } from './entry-access.js';

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
    private readonly reads: Pick<EntryReads, 'get' | 'view'>,
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
    const row = await this.row(c, identity.tenantId);
    if (!row) throw new EntryNotFoundError(name, 'single');
    // Read as any entry is (entry-reads.ts): visibility, locale, the caller's rules, fields= and populate=.
    try {
      return await this.reads.get(name, String(row.get('id')), identity, options);
    } catch (err) {
      if (err instanceof EntryNotFoundError) throw new EntryNotFoundError(name, 'single');
      throw err;
    }
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
        const put = await this.putOnce(c, body, identity, locale);
        return { ...put, entry: answerFor(name, put.entry, identity) };
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
    // Fields left out are emptied, but not those a rule keeps the caller from writing (entry-access.ts).
    const writable = ruleLimits(identity, c.name, 'update')?.fields;
    const emptied = Object.fromEntries(
      c.fields.filter((f) => (!given || !Object.hasOwn(given, f.name)) && (!writable || writable.has(f.name))).map((f) => [f.name, null]),
    );
    const entry = await this.writes.update(c.name, String(existing.get('id')), given ? { ...emptied, ...given } : body, identity, locale);
    return { entry, created: false };
  }
}
