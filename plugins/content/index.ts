import { asFunction } from 'awilix';
import { accessRuleChecks } from './rule-checks.js';
import type { Sequelize } from 'sequelize';
import {
  type CacheService,
  type MigrationRunner,
  type EventBus,
  definePlugin,
  optional,
  requestScoped,
  type Logger,
  type WorkerPool,
  type PluginRegisterContext,
  type ReadRouting,
} from '../../kernel/sdk.js';
import { poolSanitizer } from './rich-text-pool.js';
import { CollectionsService } from './collections-service.js';
import { ComponentsService } from './components-service.js';
import { ComponentRow } from './models/component-row.js';
import { componentRoutes } from './routes-components.js';
import { LocalesService } from './locales-service.js';
import { LocaleRow } from './models/locale-row.js';
import { localeRoutes } from './routes-locales.js';
import { LocaleLifecycle } from './locale-lifecycle.js';
import { DefaultLocaleMove, STALE_MS } from './locale-default-move.js';
import { typesCommand } from './types-command.js';
import { EntriesService } from './entries-service.js';
import { ListCache } from './list-cache.js';
import { LocalClient, systemIdentity, type ContentClientFactory } from './local-client.js';
import { CONTENT_MIGRATIONS } from './migrations.js';
import { CollectionRow } from './models/collection-row.js';
import { Revision } from './models/revision.js';
import { collectionRoutes } from './routes-collections.js';
import { entryRoutes } from './routes-entries.js';
import { publicAccessRoutes } from './routes-public-access.js';
import { scheduleRoutes } from './routes-schedule.js';
import { PublishSchedules } from './publish-schedules.js';
import { PreviewLinks } from './preview-links.js';
import { previewRoutes } from './routes-preview.js';
import { revisionRoutes } from './routes-revisions.js';
import { draftRoutes } from './routes-drafts.js';
import { searchRoutes } from './routes-search.js';
import { z } from 'zod';
import { COLLECTION_EVENTS, ENTRY_EVENTS } from './public.js';

/** plugins.options.content */
const optionsSchema = z.object({
  /** How often each instance looks for entries whose scheduled publish time has come. */
  scheduleIntervalMs: z.number().int().min(50).max(3_600_000).default(30_000),
  /** Whether collection lists are cached (CMS_CONTENT_LIST_CACHE); off, every list is read from the database. */
  listCache: z.boolean().default(true),
  /**
   * The deepest entry a list reaches by page number (CMS_CONTENT_MAX_LIST_OFFSET): a page starting past it is refused
   * with 400 PAGE_TOO_DEEP, pointing to cursors (an OFFSET reads every row before the page; a cursor seeks).
   */
  maxListOffset: z.number().int().min(100).max(10_000_000).default(10_000),
});

export default definePlugin({
  // CMS_CONTENT_LIST_CACHE (plugin.json `env`) over plugins.options.content; the kernel merges and validates.
  options: optionsSchema,
  register({ container, routes, migrations, models, options, registries }) {
    const { listCache, maxListOffset } = options;
    models.add(CollectionRow);
    models.add(Revision);
    models.add(ComponentRow);
    models.add(LocaleRow);
    for (const m of CONTENT_MIGRATIONS) migrations.add(m);
    registerServices(container, { listCache, maxListOffset });
    registries.cliCommands.add(typesCommand);
    for (const route of [
      ...collectionRoutes,
      ...componentRoutes,
      ...localeRoutes,
      ...publicAccessRoutes,
      ...scheduleRoutes,
      ...previewRoutes,
      ...revisionRoutes,
      ...draftRoutes,
      ...searchRoutes,
      ...entryRoutes,
    ])
      routes.add(route);
  },
  async boot({ container, onClose, options, follow, every, logger }) {
    const collections = container.resolve<CollectionsService>('collections');
    await collections.follow(follow);
    await container.resolve<ComponentsService>('components').follow(follow);
    const locales = container.resolve<LocalesService>('locales');
    await locales.follow(follow);
    // A change of the default locale interrupted (the process killed mid-way) goes on now; one that stops advancing
    // while its instance is gone is taken over on a round (locale-default-move.ts).
    await locales.continueInterrupted(logger);
    every({ name: 'interrupted default-locale change', everyMs: STALE_MS / 2, run: () => locales.continueInterrupted(logger, STALE_MS) });
    // Scheduled publishing: every instance looks for due entries (a round still running is not doubled);
    // a deleted entry takes its schedule with it.
    const schedules = container.resolve<PublishSchedules>('publishSchedules');
    const previews = container.resolve<PreviewLinks>('previewLinks');
    const { scheduleIntervalMs } = options;
    every({ name: 'scheduled publishing round', everyMs: scheduleIntervalMs, run: async () => void (await schedules.runDue()) });
    // Full-text search (search-engine.ts): each collection is indexed again when its searched fields changed (and the
    // first time), in the background; a collection's change does the same.
    const entries = container.resolve<EntriesService>('entries');
    let rebuilding: Promise<void> = Promise.resolve();
    const rebuild = (name: string) => {
      rebuilding = rebuilding
        .then(() => entries.search.rebuild(name))
        .catch((err: unknown) => logger.warn({ err, collection: name }, 'search index not rebuilt'));
      return rebuilding;
    };
    for (const c of collections.list()) void rebuild(c.name);
    for (const event of Object.values(COLLECTION_EVENTS))
      onClose(container.resolve<EventBus>('events').subscribe(event, (e) => void rebuild(e.payload.collection)));
    onClose(() => rebuilding);
    onClose(
      container.resolve<EventBus>('events').subscribe(ENTRY_EVENTS.delete, (event) => {
        const p = event.payload;
        if (p?.entry?._id) void schedules.forget(p.tenantId, p.collection, [String(p.entry._id)]).catch(() => undefined);
        if (p?.entry?._id) void previews.revokeAll(p.tenantId, p.collection, [String(p.entry._id)]).catch(() => undefined);
      }),
    );
  },
});

type ComponentsCradle = {
  sequelize: Sequelize;
  events: EventBus;
  collections: CollectionsService;
  entries: EntriesService;
  logger: Logger;
};

/** The components service; the entries are read lazily (they need the collections, which read the components). */
const componentsService = (c: ComponentsCradle) =>
  new ComponentsService(
    c.sequelize,
    c.events,
    () => c.collections.list(),
    (tenant, collection) =>
      c.entries.invalidateLists(tenant, collection).catch((err: unknown) => {
        c.logger.warn({ err, collection }, 'list cache not invalidated after a component change');
      }),
  );

/**
 * The locales service, which moves entries' values when a locale is deleted or the default changes (locale-lifecycle.ts;
 * a change of the default recorded, locale-default-move.ts); the collections and entries are read lazily.
 */
const localesService = (c: { sequelize: Sequelize; events: EventBus; collections: CollectionsService; entries: EntriesService }) => {
  const invalidate = (tenant: string, collection: string) => c.entries.invalidateLists(tenant, collection);
  const lifecycle = new LocaleLifecycle(c.sequelize, invalidate);
  const move = new DefaultLocaleMove(c.sequelize, lifecycle, () => c.collections, invalidate);
  return new LocalesService(
    c.sequelize,
    c.events,
    () => lifecycle,
    () => move,
  );
};

/** The plugin's container keys: collections, components, entries, the content clients, schedules, preview links. */
function registerServices(container: PluginRegisterContext['container'], lists: { listCache: boolean; maxListOffset: number }): void {
  container.register(
    'collections',
    asFunction(
      (c: { sequelize: Sequelize; migrator: MigrationRunner; events: EventBus; components: ComponentsService }) =>
        // The components are read lazily (they need the collections for their in-use check).
        new CollectionsService(c.sequelize, c.migrator, c.events, () => c.components),
    ).singleton(),
  );
  container.register('components', asFunction(componentsService).singleton());
  container.register('locales', asFunction(localesService).singleton());
  // Roles' rules are checked against the content model when saved (the auth plugin asks; rule-checks.ts).
  container.register(
    'accessRuleChecks',
    asFunction((c: { collections: CollectionsService; locales: LocalesService }) => accessRuleChecks(c.collections, c.locales)).singleton(),
  );
  container.register('entries', asFunction(entriesFactory(lists)).singleton());
  // The in-process SDK for plugins and server-side page code: contentClient(identity) -> LocalClient.
  container.register(
    'contentClient',
    asFunction(
      (c: {
        collections: CollectionsService;
        entries: EntriesService;
        components: ComponentsService;
        locales: LocalesService;
      }): ContentClientFactory =>
        (identity = systemIdentity()) =>
          new LocalClient(c.collections, c.entries, identity, c.components, c.locales),
    ).singleton(),
  );
  // Request-scoped: the content client of the caller (scope.content in route handlers), so routes
  // never pass the identity by hand; permissions are checked again by the client itself.
  container.register(
    'content',
    requestScoped(({ contentClient, currentUser }) => contentClient(currentUser)),
  );
  container.register(
    'publishSchedules',
    asFunction(
      (c: { sequelize: Sequelize; logger: Logger; contentClient: ContentClientFactory }) =>
        new PublishSchedules(c.sequelize, () => c.contentClient, c.logger),
    ).singleton(),
  );
  container.register(
    'previewLinks',
    asFunction(
      (c: { sequelize: Sequelize; collections: CollectionsService; contentClient: ContentClientFactory }) =>
        new PreviewLinks(
          c.sequelize,
          c.collections,
          () => c.contentClient,
          () => optional(c, 'mediaClient'),
        ),
    ).singleton(),
  );
}

/** The entries service, with the list options (CMS_CONTENT_LIST_CACHE, CMS_CONTENT_MAX_LIST_OFFSET). */
const entriesFactory =
  (lists: { listCache: boolean; maxListOffset: number }) =>
  (c: {
    sequelize: Sequelize;
    collections: CollectionsService;
    cache: CacheService;
    logger: Logger;
    events: EventBus;
    pool: WorkerPool;
    locales: LocalesService;
    readRouting: ReadRouting;
  }) =>
    new EntriesService(
      c.sequelize,
      c.collections,
      new ListCache(c.cache, c.logger, lists.listCache, c.readRouting),
      c.events,
      c.logger,
      poolSanitizer(() => c.pool),
      () => optional(c, 'media'),
      () => c.locales,
      lists.maxListOffset,
    );
