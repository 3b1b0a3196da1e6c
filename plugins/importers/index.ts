import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import {
  definePlugin,
  type KernelState,
  JobInterruptedError,
  type JobQueue,
  type Logger,
  type WorkerPool,
  type Registries,
  optional,
} from '../../kernel/sdk.js';
import type { DataOpsEngine } from '../data-ops/public.js';
import { importerDomain } from './domain.js';
// The error classes' codes are in the error catalogue (x-error-catalogue of the OpenAPI document) from boot on.
import './errors.js';
import { ImportersService, JOB_TYPE } from './importers-service.js';
import { IMPORTER_MIGRATIONS } from './migrations.js';
import { importerOptionsSchema, readImporterEnv } from './options.js';
import type { ContentClientFactory, LocalesService } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';
import { importerRoutes } from './routes.js';
import { ImportStore } from './store.js';

const SWEEP_INTERVAL_MS = 3600 * 1000;

// A factory: each kernel gets its own closure (the service the job handler uses), no module-level state.
export default definePlugin(() => {
  let service: ImportersService | null = null;
  return {
    options: importerOptionsSchema,
    readEnv: readImporterEnv,
    register({ container, routes, registries, migrations, config, options: merged }) {
      // The installation's one switch (CMS_OUTBOUND_ALLOW_PRIVATE); the older IMPORT_FETCH_ALLOW_PRIVATE still works here.
      const options = config.outbound.allowPrivate ? { ...merged, fetchAllowPrivate: true } : merged;
      for (const m of IMPORTER_MIGRATIONS) migrations.add(m);
      container.register(
        'importers',
        asFunction(
          (c: {
            sequelize: Sequelize;
            pool: WorkerPool;
            registries: Registries;
            jobs: JobQueue;
            logger: Logger;
            contentClient: ContentClientFactory;
            mediaClient: MediaClientFactory;
            kernelState: KernelState;
            locales: LocalesService;
          }) =>
            new ImportersService({
              store: new ImportStore(c.sequelize),
              pool: c.pool,
              formats: c.registries.importFormats,
              jobs: c.jobs,
              logger: c.logger,
              options,
              dataPath: config.dataPath,
              stopping: c.kernelState.stopping,
              // Resolved when first used: the content and media SDKs.
              contentClient: () => c.contentClient,
              mediaClient: () => c.mediaClient,
              localesList: () => c.locales.list(),
              dataOps: () => optional(c as never, 'dataOps') as DataOpsEngine | undefined,
              userName: async (userId) => {
                const users = optional(c as never, 'users') as { findById(id: string): Promise<{ username?: string } | null> } | undefined;
                return (await users?.findById(userId))?.username ?? null;
              },
            }),
        ).singleton(),
      );
      // The importer data domain: runs go through the engine's plan, lock, audit, completion event and jobs.
      registries.dataDomains.add(
        importerDomain(() => {
          if (!service) throw new Error('The importers plugin is not booted');
          return service;
        }, options.inlineThreshold),
      );
      // Runs handed over by an inline run or stream whose instance stopped (and jobs queued before the engine ran imports).
      registries.jobHandlers.add({
        type: JOB_TYPE,
        async run(job, helpers) {
          if (!service) throw new Error('The importers plugin is not booted');
          const { importJobId } = job.payload as { importJobId: string };
          const outcome = await service.execute(importJobId, {
            progress: (processed, total) => helpers.progress(processed, total),
            interrupted: () => helpers.signal.aborted,
          });
          if (outcome === 'interrupted') throw new JobInterruptedError();
          return { importJobId, completed: outcome !== null };
        },
      });
      for (const route of importerRoutes) routes.add(route);
    },

    async boot({ container, every, onClose }) {
      const booted = container.resolve<ImportersService>('importers');
      service = booted;
      onClose(() => {
        service = null;
      });
      // Registered after the onClose above, so the sweep stops before the service is let go.
      const sweep = every({ name: 'import retention sweep', everyMs: SWEEP_INTERVAL_MS, run: async () => void (await booted.sweep()) });
      await sweep.runNow();
    },
  };
});
