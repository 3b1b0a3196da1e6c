import { asFunction, asValue } from 'awilix';
import type { Sequelize } from 'sequelize';
import { type CacheService, type EventBus, definePlugin, type JobQueue, type Logger, optional, type WorkerPool } from '../../kernel/sdk.js';
import type { CollectionsService } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import { backupCommand } from './backup-command.js';
import { BackupsService, CREATE_JOB } from './backups-service.js';
import { backupDomain, type DomainDeps } from './domain.js';
import { InstallationKey } from './installation-key.js';
import { Maintenance } from './maintenance.js';
import { backupOptionsSchema } from './options.js';
import { backupRoutes } from './routes.js';

interface Cradle {
  sequelize: Sequelize;
  pool: WorkerPool;
  jobs: JobQueue;
  logger: Logger;
  events: EventBus;
  collections: CollectionsService;
  mediaStorage: MediaStorage;
  cache: CacheService;
}

type Booted = () => Cradle & Record<string, any>;

/** The restore domain reads the services lazily: it is built at register, they exist after boot. */
function domainDeps(booted: Booted, pageSize: number): DomainDeps {
  return {
    service: () => booted().backups as BackupsService,
    sequelize: () => booted().sequelize,
    collections: () => booted().collections,
    components: () => optional(booted(), 'components'),
    locales: () => optional(booted(), 'locales'),
    mediaStorage: () => optional(booted(), 'mediaStorage'),
    entries: () => optional(booted(), 'entries'),
    sessions: () => optional(booted(), 'sessions'),
    tokens: () => optional(booted(), 'tokens'),
    themes: () => optional(booted(), 'themes'),
    logger: () => optional(booted(), 'logger'),
    events: () => booted().events,
    pageSize,
  };
}

// A factory: each kernel gets its own closure (tests run several kernels in one process).
export default definePlugin(() => {
  let cradle: (Cradle & Record<string, any>) | null = null;
  let maintenance: Maintenance | null = null;
  const booted = () => {
    if (!cradle) throw new Error('The backups plugin is not booted');
    return cradle;
  };
  return {
    options: backupOptionsSchema,
    register({ container, routes, registries, config, manifest, options, pluginConfig }) {
      const installationKey = new InstallationKey(config.dataPath);
      container.register(
        'backups',
        asFunction(
          (c: Cradle & Record<string, any>) =>
            new BackupsService({
              sequelize: c.sequelize,
              pool: c.pool,
              jobs: c.jobs,
              logger: c.logger,
              options,
              dataPath: config.dataPath,
              pluginVersion: manifest.version,
              collections: () => c.collections,
              mediaStorage: () => optional(c, 'mediaStorage'),
              setting: async (key) => optional(c, 'settings')?.get(key),
              installationKey,
              // BACKUP_RETENTION_COUNT or the file's option: the System Setting of the same name then does not count.
              retentionConfigured: pluginConfig.sourceOf('retentionCount') !== 'default',
            }),
        ).singleton(),
      );
      container.register(
        'backupsMaintenance',
        asFunction(
          (c: Cradle & Record<string, any>) =>
            new Maintenance(c.events, () => optional(c, 'cache'), c.logger, options.maintenanceTtlSeconds),
        ).singleton(),
      );
      const domain = backupDomain(domainDeps(booted, options.pageSize));
      container.register('backupsDomain', asValue(domain));
      registries.dataDomains.add(domain);
      registries.jobHandlers.add({
        type: CREATE_JOB,
        async run(job, helpers) {
          const service = booted().backups as BackupsService;
          return service.runJob(job.payload as Parameters<BackupsService['runJob']>[0], (p, t) => helpers.progress(p, t));
        },
      });
      registries.middleware.add({
        id: 'backups-maintenance',
        stage: 'afterIdentity',
        handler: (ctx, next) => (maintenance ? maintenance.middleware()(ctx, next) : next()),
      });
      for (const route of backupRoutes) routes.add(route);
      registries.cliCommands.add(backupCommand);
    },

    async boot({ container, logger, onClose }) {
      cradle = container.cradle as Cradle & Record<string, any>;
      maintenance = container.resolve<Maintenance>('backupsMaintenance');
      await maintenance.connect();
      const service = container.resolve<BackupsService>('backups');
      // Owner-only backups folder (also for one an older version made world-readable).
      await service.ensureRoot().catch((err) => logger.warn({ err }, 'could not make the backups folder owner-only'));
      await service.prune().catch((err) => logger.warn({ err }, 'backup retention failed'));
      onClose(() => {
        maintenance?.close();
        maintenance = null;
        cradle = null;
      });
    },
  };
});
