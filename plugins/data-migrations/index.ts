import { join } from 'node:path';
import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import { type CacheService, definePlugin, type Logger, type Registries, type ModelMap } from '../../kernel/sdk.js';
import type { CollectionsService, EntriesService } from '../content/public.js';
import { migrationDomain } from './domain.js';
import { DATA_MIGRATION_TABLES } from './migrations.js';
import { DataMigrationLedgerRow } from './models/ledger-row.js';
import { migrationRoutes } from './routes.js';
import { DataMigrationsService } from './service.js';
import './public.js';

export default definePlugin(() => {
  let service: DataMigrationsService | null = null;
  let collections: CollectionsService | null = null;
  let sequelize: Sequelize | null = null;
  return {
    register({ container, routes, registries, migrations, models, config }) {
      models.add(DataMigrationLedgerRow);
      for (const m of DATA_MIGRATION_TABLES) migrations.add(m);
      container.register(
        'dataMigrations',
        asFunction(
          (c: {
            collections: CollectionsService;
            entries: EntriesService;
            cache: CacheService;
            logger: Logger;
            registries: Registries;
            models: ModelMap;
          }) => {
            const registry = c.registries.dataMigrations;
            return new DataMigrationsService(c.models, {
              collections: c.collections,
              entries: c.entries,
              cache: c.cache,
              logger: c.logger,
              folder: join(config.dataPath, 'migrations'),
              declarations: () => registry.list().map((item) => ({ item, owner: registry.ownerOf(item.id) ?? 'kernel' })),
            });
          },
        ).singleton(),
      );
      // Resolved at boot; the engine calls the domain only once the kernel serves.
      const ready = <T>(value: T | null, what: string): T => {
        if (!value) throw new Error(`The data-migrations plugin is not booted (${what})`);
        return value;
      };
      registries.dataDomains.add(
        migrationDomain({
          sequelize: () => ready(sequelize, 'sequelize'),
          collections: () => ready(collections, 'collections'),
          service: () => ready(service, 'service'),
        }),
      );
      for (const route of migrationRoutes) routes.add(route);
    },
    async boot({ container, logger, onClose }) {
      service = container.resolve<DataMigrationsService>('dataMigrations');
      collections = container.resolve<CollectionsService>('collections');
      sequelize = container.resolve<Sequelize>('sequelize');
      const { migrations, errors } = await service.declared();
      for (const e of errors) logger.warn({ source: e.source, problem: e.message }, 'data migration declaration ignored');
      logger.debug({ migrations: migrations.length }, 'data migrations declared');
      onClose(() => {
        service = null;
        collections = null;
        sequelize = null;
      });
    },
  };
});
