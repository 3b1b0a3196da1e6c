import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asFunction, asValue } from 'awilix';
import type { Sequelize } from 'sequelize';
import {
  BootError,
  type EventBus,
  definePlugin,
  type Logger,
  type WorkerPool,
  type Registries,
  optional,
  type ModelMap,
  type PluginRegisterContext,
} from '../../kernel/sdk.js';
import { closeRedis, createRedisConnection, redisConfigured } from '../../kernel/redis.js';
import { FoldersService } from './folders-service.js';
import { MediaClient, systemIdentity, type MediaClientFactory } from './media-client.js';
import { mediaOptionsSchema, readMediaEnv, storageType, type MediaOptions, type SettingsReader } from './media-options.js';
import { MediaService } from './media-service.js';
import { MediaStorage } from './media-storage.js';
import { MediaTrash } from './media-trash.js';
import { MEDIA_MIGRATIONS } from './migrations.js';
import { MediaFolder } from './models/media-folder.js';
import { MediaItem } from './models/media-item.js';
import { folderRoutes } from './routes-folders.js';
import { fileRoutes } from './routes-files.js';
import { mediaRoutes } from './routes-media.js';
import { shareRoutes } from './routes-share.js';
import { trashRoutes } from './routes-trash.js';
import { ShareAttempts } from './share-attempts.js';
import { SharesService } from './shares-service.js';

const TASKS_FILE = fileURLToPath(new URL('./media-tasks.js', import.meta.url));
/** Upload leftovers of a crash are removed at boot once they are this old. */
const STALE_TEMP_MS = 24 * 3600 * 1000;

/** The setup plugin's System Settings, when it is enabled. */
const settingsOf = (cradle: object): SettingsReader | null => optional(cradle, 'settings') ?? null;

async function removeStaleUploads(tmpDir: string, logger: Logger): Promise<void> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith('media-upload-'))) {
    const path = join(tmpDir, name);
    const st = await stat(path).catch(() => null);
    if (st && Date.now() - st.mtimeMs > STALE_TEMP_MS)
      await rm(path, { force: true }).catch((err) => logger.warn({ err, path }, 'stale upload not removed'));
  }
}

/** What register hands to the media services it declares. */
interface MediaServiceDeps {
  storage: MediaStorage;
  attempts: ShareAttempts;
  options: MediaOptions;
  tmpDir: string;
}

/** The media container keys: mediaStorage, mediaFolders, media, mediaTrash, mediaShares, mediaClient. */
function registerMediaServices(
  container: PluginRegisterContext['container'],
  { storage, attempts, options, tmpDir }: MediaServiceDeps,
): void {
  container.register('mediaStorage', asValue(storage));
  container.register('mediaFolders', asFunction(({ sequelize }: { sequelize: Sequelize }) => new FoldersService(sequelize)).singleton());
  container.register(
    'media',
    asFunction(
      (cradle: { sequelize: Sequelize; pool: WorkerPool; events: EventBus; logger: Logger; mediaFolders: FoldersService }) =>
        new MediaService({
          sequelize: cradle.sequelize,
          pool: cradle.pool,
          events: cradle.events,
          logger: cradle.logger,
          storage,
          folders: cradle.mediaFolders,
          options,
          settings: () => settingsOf(cradle),
          tmpDir,
          tasksFile: TASKS_FILE,
        }),
    ).singleton(),
  );
  container.register(
    'mediaTrash',
    asFunction(
      ({ mediaFolders, logger: l, models }: { mediaFolders: FoldersService; logger: Logger; models: ModelMap }) =>
        new MediaTrash(models, storage, mediaFolders, l),
    ).singleton(),
  );
  container.register('mediaShares', asFunction(({ models }: { models: ModelMap }) => new SharesService(models, attempts)).singleton());
  // The in-process SDK for plugins and server-side code: mediaClient(identity?) -> MediaClient.
  container.register(
    'mediaClient',
    asFunction(
      ({ media }: { media: MediaService }): MediaClientFactory =>
        (identity = systemIdentity()) =>
          new MediaClient(media, identity),
    ).singleton(),
  );
}

/** The storage driver MEDIA_STORAGE_TYPE (or the setting, or the option) names; a BootError lists the ones there are. */
function storageDriver(registries: Registries, id: string) {
  const drivers = registries.storageDrivers;
  const driver = drivers.get(id);
  if (!driver) {
    const available = drivers.keys().map((k) => `'${k}' (plugin ${drivers.ownerOf(k)})`);
    throw new BootError(
      `MEDIA_STORAGE_TYPE is '${id}' but no plugin provides a storage driver with that id; ` +
        (available.length ? `available: ${available.join(', ')}` : "no storage driver plugin is enabled (storage-local provides 'local')"),
    );
  }
  return driver;
}

/** A factory: each kernel has its own storage holder and share-attempt counter (made in register, wired in boot). */
export default definePlugin(() => {
  let own: { storage: MediaStorage; attempts: ShareAttempts } | null = null;
  return {
    options: mediaOptionsSchema,
    readEnv: readMediaEnv,
    register({ container, routes, registries, migrations, models, config, options, logger }) {
      models.add(MediaItem);
      models.add(MediaFolder);
      for (const m of MEDIA_MIGRATIONS) migrations.add(m);
      const storage = new MediaStorage(logger);
      const attempts = new ShareAttempts(options.shareAttempts.points, options.shareAttempts.durationSeconds, config.redis.prefix, logger);
      own = { storage, attempts };
      const tmpDir = join(config.dataPath, 'tmp');

      registerMediaServices(container, { storage, attempts, options, tmpDir });
      registries.healthChecks.add({
        id: 'media-storage',
        async check() {
          await storage.check();
          return { status: 'ok', driver: storage.id, kind: storage.driver.kind };
        },
      });
      // Static /api/media/<word> paths before /api/media/:id: the router takes the first declared match.
      for (const route of [...folderRoutes, ...trashRoutes, ...shareRoutes, ...mediaRoutes, ...fileRoutes(options)]) routes.add(route);
    },

    async boot({ container, config, options, logger, onClose }) {
      if (!own) throw new BootError('media: boot without register');
      const tmpDir = join(config.dataPath, 'tmp');
      await mkdir(tmpDir, { recursive: true });
      await removeStaleUploads(tmpDir, logger);
      const id = storageType(options);
      const driver = storageDriver(container.resolve<Registries>('registries'), id);
      own.storage.attach(driver);
      if (redisConfigured(config.redis)) {
        const redis = createRedisConnection(config.redis);
        redis.on('error', (err: unknown) => logger.error({ err }, 'media share-attempt counter: redis error'));
        await redis.connect();
        onClose(() => closeRedis(redis));
        own.attempts.useRedis(redis);
      }
      logger.info({ driver: driver.id, kind: driver.kind }, 'media storage ready');
    },
  };
});
