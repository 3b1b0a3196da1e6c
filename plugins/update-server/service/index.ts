import type { Sequelize } from 'sequelize';
import { definePlugin, KERNEL_VERSION } from '../../../kernel/sdk.js';
import { loadServerKeys } from '../keys.js';
import { UPDATE_SERVER_MIGRATIONS } from '../migrations.js';
import { updateServerOptionsSchema, type UpdateServerOptions } from '../options.js';
import { updateServerRoutes, type UpdateServerRuntime } from '../routes.js';
import { UpdateServerStore } from '../store.js';
import { VersionSource } from '../versions.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * The update server (README, "Update server"): loaded only by `npm run update-server`
 * (plugins/update-server/launch.ts), never by an instance.
 */
export default definePlugin(() => {
  let options: UpdateServerOptions;
  let runtime: UpdateServerRuntime | null = null;
  return {
    options: updateServerOptionsSchema,
    register({ options: merged, routes, migrations }) {
      options = merged;
      for (const m of UPDATE_SERVER_MIGRATIONS) migrations.add(m);
      for (const route of updateServerRoutes(options, () => runtime)) routes.add(route);
    },
    async boot({ config, container, logger, every }) {
      const keys = loadServerKeys(config.dataPath, { secretKey: options.secretKey, ipSalt: options.ipSalt });
      const versions = new VersionSource({
        file: options.versionsFile,
        root: config.root,
        fallback: { latest: options.latestVersion ?? KERNEL_VERSION, advisories: [] },
        cacheSeconds: options.versionCacheSeconds,
        logger,
      });
      await versions.prime();
      const store = new UpdateServerStore(container.resolve<Sequelize>('sequelize'), keys, options);
      const pruning = every({
        name: 'update server: pruning old rows',
        everyMs: PRUNE_EVERY_MS,
        // Caught here to keep the message saying it is tried again later.
        run: () =>
          store
            .prune(Date.now())
            .catch((err: unknown) => logger.warn({ err }, 'update server: pruning old rows failed; tried again later')),
      });
      await pruning.runNow();
      runtime = { store, versions, keys, now: () => Date.now() };
      // Settings only, never a secret's value.
      logger.info(
        {
          versionsFile: options.versionsFile ?? null,
          latestVersion: options.versionsFile ? undefined : (options.latestVersion ?? KERNEL_VERSION),
          checkIntervalSeconds: options.checkIntervalSeconds,
          statsOpen: Boolean(options.operatorToken),
        },
        'update server ready',
      );
    },
    close() {
      runtime = null;
    },
  };
});
