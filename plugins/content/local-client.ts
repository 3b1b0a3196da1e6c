import type { Transaction } from 'sequelize';
import { z } from 'zod';
import { ForbiddenError, ValidationError, assertPermission, type Identity } from '../../kernel/sdk.js';
import { collectionInput, collectionPatch, type CollectionInput, type CollectionPatch } from './collection-schema.js';
import { describeCollection, type CollectionsService } from './collections-service.js';
import { componentInput, componentPatch, componentPatchBody, describeComponent, type ComponentsService } from './components-service.js';
import type { EntriesService, Entry } from './entries-service.js';
import { localeInput, localePatch, type LocaleDefinition, type LocalesService } from './locales-service.js';
import { listQuerySchema, STATUSES, type EntryStatus } from './list-query.js';
import type { PreparedRow } from './prepared-row.js';

/** A batch of entries to create (createMany): 1 to 100 objects. */
const ENTRY_BATCH = z.array(z.record(z.string(), z.unknown())).min(1).max(100);

export type CollectionInfo = ReturnType<typeof describeCollection>;
export type ComponentInfo = ReturnType<typeof describeComponent>;
import type { EntryList } from './entry-shape.js';
export type { EntryList };
export type ListOptions = Partial<{
  page: number;
  limit: number;
  sort: string;
  search: string;
  status: EntryStatus;
  filter: Record<string, unknown> | string;
  /** Comma list of the fields to keep (`fields=`). */
  fields: string;
  /** Relation and media fields to answer as objects (`populate=`: dotted paths, 3 levels, `*`), with the client's visibility. */
  populate: string;
  /** A locale's code (its values of localized fields, with fallbacks) or `*` (every locale's values). */
  locale: string;
  /** A review stage: only the entries in it (`?stage=`, docs/features/review-stages.md; callers who may write). */
  stage: string;
  /** Cursor pagination (list-cursor.ts): the entries after a list's nextCursor ('' from the first), or before its prevCursor. */
  after: string;
  before: string;
}>;
/** How one entry is read: `fields=`, `populate=` and `locale=` as in ListOptions. */
export type ReadOptions = Pick<ListOptions, 'fields' | 'populate' | 'locale'>;

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  throw new ValidationError(`Invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

/**
 * The in-process SDK: what the REST API does for collections and entries, called as functions, with the
 * same validation, permission checks, tenant scoping, cache invalidation and events. Acts as the
 * identity it was made for (a request's, or `systemIdentity()` for server-side work).
 */
export class LocalClient {
  constructor(
    private readonly collectionsService: CollectionsService,
    private readonly entriesService: EntriesService,
    readonly identity: Identity,
    private readonly componentsService?: ComponentsService,
    private readonly localesService?: LocalesService,
  ) {}

  private assertPermissions(...permissions: string[]): void {
    for (const p of permissions) assertPermission(this.identity, p);
  }

  readonly collections = {
    list: async (): Promise<CollectionInfo[]> => {
      this.assertPermissions('content:read');
      return this.collectionsService.list().map(describeCollection);
    },
    get: async (name: string): Promise<CollectionInfo> => {
      this.assertPermissions('content:read');
      return describeCollection(await this.collectionsService.get(name));
    },
    create: async (definition: CollectionInput): Promise<CollectionInfo> => {
      this.assertPermissions('content:write', 'collections:manage');
      return describeCollection(await this.collectionsService.create(parse(collectionInput, definition, 'definition')));
    },
    update: async (name: string, patch: CollectionPatch): Promise<CollectionInfo> => {
      this.assertPermissions('content:write', 'collections:manage');
      return describeCollection(await this.collectionsService.update(name, parse(collectionPatch, patch, 'patch')));
    },
    remove: async (name: string): Promise<void> => {
      this.assertPermissions('content:write', 'collections:manage');
      await this.collectionsService.remove(name);
    },
  };

  /** Reusable components (as `/api/components`): reading needs content:read, changing collections:manage. */
  readonly components = {
    list: async (): Promise<ComponentInfo[]> => {
      this.assertPermissions('content:read');
      return this.componentsOf().list().map(describeComponent);
    },
    get: async (name: string): Promise<ComponentInfo> => {
      this.assertPermissions('content:read');
      return describeComponent(await this.componentsOf().get(name));
    },
    create: async (definition: z.input<typeof componentInput>): Promise<ComponentInfo> => {
      this.assertPermissions('collections:manage');
      return describeComponent(await this.componentsOf().create(parse(componentInput, definition, 'definition')));
    },
    /** As PATCH /api/components/:name: a change that loses stored values needs `planHash` from `planChange`. */
    update: async (name: string, patch: z.input<typeof componentPatchBody>): Promise<ComponentInfo> => {
      this.assertPermissions('collections:manage');
      return describeComponent(await this.componentsOf().change(name, parse(componentPatchBody, patch, 'patch')));
    },
    planChange: async (name: string, patch: z.input<typeof componentPatch>) => {
      this.assertPermissions('collections:manage');
      return this.componentsOf().planChange(name, parse(componentPatch, patch, 'patch'));
    },
    remove: async (name: string): Promise<void> => {
      this.assertPermissions('collections:manage');
      await this.componentsOf().remove(name);
    },
  };

  /** Content locales (as `/api/locales`): reading needs content:read, changing system:settings in the default tenant. */
  readonly locales = {
    list: async (): Promise<LocaleDefinition[]> => {
      this.assertPermissions('content:read');
      return this.localesOf().list();
    },
    create: async (locale: z.input<typeof localeInput>): Promise<LocaleDefinition> => {
      this.assertLocaleWriter();
      return this.localesOf().create(parse(localeInput, locale, 'locale'));
    },
    update: async (code: string, patch: z.input<typeof localePatch>): Promise<LocaleDefinition> => {
      this.assertLocaleWriter();
      return this.localesOf().update(code, parse(localePatch, patch, 'patch'));
    },
    remove: async (code: string): Promise<void> => {
      this.assertLocaleWriter();
      await this.localesOf().remove(code);
    },
  };

  /** Locales are shared by every tenant: only the default tenant's callers with system:settings change them. */
  private assertLocaleWriter(): void {
    this.assertPermissions('system:settings');
    if (this.identity.tenantId !== 'default')
      throw new ForbiddenError('Locales are shared by all tenants; only the default tenant changes them');
  }

  private localesOf(): LocalesService {
    if (!this.localesService) throw new Error('This content client was made without the locales service');
    return this.localesService;
  }

  private componentsOf(): ComponentsService {
    if (!this.componentsService) throw new Error('This content client was made without the components service');
    return this.componentsService;
  }

  /**
   * The entries of one collection. `create(data, {locale})` creates in that locale (its localized values are that
   * locale's; shared fields are shared); `restoreRevision(id, version)` writes a revision's state as a new version (a
   * locale's revision writes that locale's version).
   */
  entries(collection: string) {
    const service = this.entriesService;
    const identity = this.identity;
    const id = (value: string) => parse(z.string().uuid(), value, 'id');
    return {
      list: async (options: ListOptions = {}): Promise<EntryList> => {
        assertPermission(identity, 'content:read', collection);
        const filter = typeof options.filter === 'object' ? JSON.stringify(options.filter) : options.filter;
        return (await service.list(collection, parse(listQuerySchema, { ...options, filter }, 'query'), identity)).value;
      },
      get: async (entryId: string, options: ReadOptions = {}): Promise<Entry> => {
        assertPermission(identity, 'content:read', collection);
        return service.get(collection, id(entryId), identity, options);
      },
      /** A singleton's one entry (404 before it is written). */
      getSingle: async (options: ReadOptions = {}): Promise<Entry> => {
        assertPermission(identity, 'content:read', collection);
        return service.single.get(collection, identity, options);
      },
      /** Writes a singleton's one entry (created the first time, then its fields replaced); `options.locale` as for update. */
      putSingle: async (data: Record<string, unknown>, options: { locale?: string } = {}): Promise<{ entry: Entry; created: boolean }> => {
        assertPermission(identity, 'content:write', collection);
        return service.single.put(collection, data, identity, options.locale);
      },
      create: async (data: Record<string, unknown>, options: { locale?: string } = {}): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        return service.create(collection, data, identity, options.locale);
      },
      createMany: async (data: Array<Record<string, unknown>>, options: { locale?: string } = {}): Promise<Entry[]> => {
        assertPermission(identity, 'content:write', collection);
        return service.createMany(collection, parse(ENTRY_BATCH, data, 'entries'), identity, options.locale);
      },
      /**
       * Bulk creation of rows prepared off the event loop (the importers' worker task; see
       * EntriesService.insertPrepared): one short transaction, at most 1,000 rows.
       */
      insertPrepared: async (
        batch: { version: number; fields: string[]; rows: PreparedRow[] },
        hooks?: { inTransaction?: (transaction: Transaction, entries: Entry[]) => Promise<void> },
      ): Promise<Entry[]> => {
        assertPermission(identity, 'content:write', collection);
        if (!Array.isArray(batch?.rows) || batch.rows.length > 1000)
          throw new ValidationError('At most 1,000 prepared rows per call', [{ path: 'rows', message: 'at most 1000' }]);
        return service.insertPrepared(collection, batch, identity, hooks);
      },
      /** Which of these entry ids still exist. */
      existing: async (ids: string[]): Promise<Set<string>> => {
        assertPermission(identity, 'content:read', collection);
        return service.existingIds(collection, parse(z.array(z.string().max(64)).max(1000), ids, 'ids'), identity);
      },
      /**
       * `options.locale`: sets that locale's values of localized fields (shared fields stay shared). `options.ifVersion`:
       * the version the change was made from; when the entry is at another version now, 409 CONFLICT and nothing is written.
       */
      update: async (
        entryId: string,
        data: Record<string, unknown>,
        options: { locale?: string; ifVersion?: number } = {},
      ): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        const ifVersion = options.ifVersion === undefined ? undefined : parse(z.number().int().min(1), options.ifVersion, 'ifVersion');
        return service.update(collection, id(entryId), data, identity, options.locale, ifVersion);
      },
      /** `options.locale`: the status of the entry's version in that locale. */
      setStatus: async (entryId: string, status: EntryStatus, options: { locale?: string } = {}): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        return service.update(collection, id(entryId), { status: parse(z.enum(STATUSES), status, 'status') }, identity, options.locale);
      },
      remove: async (entryId: string): Promise<void> => {
        assertPermission(identity, 'content:write', collection);
        await service.remove(collection, id(entryId), identity);
      },
      removeMany: async (ids: string[]): Promise<number> => {
        assertPermission(identity, 'content:write', collection);
        return service.removeMany(collection, parse(z.array(z.string().uuid()).min(1).max(500), ids, 'ids'), identity);
      },
      ...this.history(collection, id),
      ...this.drafts(collection, id),
    };
  }

  /**
   * Working drafts (collections with `drafts: true`; docs/features/drafts.md), part of entries(): reading one needs
   * content:read and content:write (callers who see published entries only never see a draft), writing content:write.
   * `options.locale`: that locale's draft.
   */
  private drafts(collection: string, id: (value: string) => string) {
    const service = this.entriesService;
    const identity = this.identity;
    return {
      getDraft: async (entryId: string, options: { locale?: string } = {}): Promise<Entry> => {
        this.assertPermissions('content:read', 'content:write');
        return service.drafts.get(collection, id(entryId), identity, options.locale);
      },
      /** The fields given change, the others keep the draft's values (made from the published ones on the first write). */
      putDraft: async (entryId: string, data: Record<string, unknown>, options: { locale?: string } = {}): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        return service.drafts.put(collection, id(entryId), data, identity, options.locale);
      },
      publishDraft: async (entryId: string, options: { locale?: string } = {}): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        return service.drafts.publish(collection, id(entryId), identity, options.locale);
      },
      discardDraft: async (entryId: string, options: { locale?: string } = {}): Promise<void> => {
        assertPermission(identity, 'content:write', collection);
        await service.drafts.discard(collection, id(entryId), identity, options.locale);
      },
    };
  }

  /** An entry's revisions and restoring one (part of entries()). */
  private history(collection: string, id: (value: string) => string) {
    const service = this.entriesService;
    const identity = this.identity;
    return {
      restoreRevision: async (entryId: string, version: number): Promise<Entry> => {
        assertPermission(identity, 'content:write', collection);
        return service.restoreRevision(collection, id(entryId), parse(z.number().int().min(1), version, 'version'), identity);
      },
      /** `options.locale`: only the revisions of that locale's writes (each revision names its locale). */
      revisions: async (entryId: string, options: { locale?: string } = {}) => {
        assertPermission(identity, 'content:write', collection);
        return service.revisions(collection, id(entryId), identity, options.locale);
      },
    };
  }
}

/** An identity for server-side work of plugins and pages: admin rights in one tenant, no user. */
export function systemIdentity(tenantId = 'default'): Identity {
  return { kind: 'user', userId: null, role: 'admin', permissions: [], tenantId, meta: { system: true } };
}

/** The container key `contentClient`: `contentClient(identity?)` gives a LocalClient. */
export type ContentClientFactory = (identity?: Identity) => LocalClient;

/** For code that holds the kernel (scripts, tests, page server functions): `createLocalClient(kernel, identity?)`. */
export function createLocalClient(kernel: { container: { resolve<T>(key: string): T } }, identity?: Identity): LocalClient {
  return kernel.container.resolve<ContentClientFactory>('contentClient')(identity);
}
