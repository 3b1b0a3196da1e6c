import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import type { MigrationRunner } from '../../kernel/db/migrations.js';
import type { EventBus } from '../../kernel/events.js';
import { definePlugin } from '../../kernel/index.js';
import { requestScoped } from '../../kernel/plugin.js';
import type { Logger } from '../../kernel/logger.js';
import { CollectionsService } from './collections-service.js';
import { EntriesService } from './entries-service.js';
import { ListCache } from './list-cache.js';
import { LocalClient, systemIdentity, type ContentClientFactory } from './local-client.js';
import { CONTENT_MIGRATIONS } from './migrations.js';
import { CollectionRow } from './models/collection-row.js';
import { Revision } from './models/revision.js';
import { collectionRoutes } from './routes-collections.js';
import { entryRoutes } from './routes-entries.js';
import { publicAccessRoutes } from './routes-public-access.js';

export default definePlugin({
  register({ container, routes, migrations, models }) {
    models.add(CollectionRow);
    models.add(Revision);
    for (const m of CONTENT_MIGRATIONS) migrations.add(m);
    container.register(
      'collections',
      asFunction(
        ({ sequelize, migrator, events }: { sequelize: Sequelize; migrator: MigrationRunner; events: EventBus }) =>
          new CollectionsService(sequelize, migrator, events),
      ).singleton(),
    );
    container.register(
      'entries',
      asFunction(
        (c: { sequelize: Sequelize; collections: CollectionsService; cache: CacheService; logger: Logger; events: EventBus }) =>
          new EntriesService(c.sequelize, c.collections, new ListCache(c.cache, c.logger), c.events, c.logger),
      ).singleton(),
    );
    // The in-process SDK for plugins and server-side page code: contentClient(identity) -> LocalClient.
    container.register(
      'contentClient',
      asFunction(
        ({ collections, entries }: { collections: CollectionsService; entries: EntriesService }): ContentClientFactory =>
          (identity = systemIdentity()) =>
            new LocalClient(collections, entries, identity),
      ).singleton(),
    );
    // Request-scoped: the content client of the caller (scope.content in route handlers), so routes
    // never pass the identity by hand; permissions are checked again by the client itself.
    container.register(
      'content',
      requestScoped(({ contentClient, currentUser }) => contentClient(currentUser)),
    );
    for (const route of [...collectionRoutes, ...publicAccessRoutes, ...entryRoutes]) routes.add(route);
  },
  async boot({ container, onClose }) {
    const collections = container.resolve<CollectionsService>('collections');
    await collections.refresh();
    onClose(collections.connectEvents());
  },
});
