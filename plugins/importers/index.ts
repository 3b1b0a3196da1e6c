import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import { definePlugin, type KernelState } from '../../kernel/index.js';
import { JobInterruptedError, type JobQueue } from '../../kernel/jobs.js';
import type { Logger } from '../../kernel/logger.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { Registries } from '../../kernel/registries/index.js';
import { ImportersService, JOB_TYPE } from './importers-service.js';
import { IMPORTER_MIGRATIONS } from './migrations.js';
import { parseImporterOptions } from './options.js';
import type { ContentClientFactory, MediaClientFactory } from './ports.js';
import { importerRoutes } from './routes.js';
import { ImportStore } from './store.js';

const SWEEP_INTERVAL_MS = 3600 * 1000;
/** Per kernel (several may share a process in tests): the service for the job handler, the sweep timer. */
const state = new WeakMap<object, { service: ImportersService | null; timer: NodeJS.Timeout | null }>();

export default definePlugin({
  register({ container, routes, registries, migrations, config, options: raw }) {
    const options = parseImporterOptions(raw);
    for (const m of IMPORTER_MIGRATIONS) migrations.add(m);
    const own = { service: null as ImportersService | null, timer: null as NodeJS.Timeout | null };
    state.set(config, own);
    container.register(
      'importers',
      asFunction((c: { sequelize: Sequelize; pool: WorkerPool; registries: Registries; jobs: JobQueue; logger: Logger; contentClient: ContentClientFactory; mediaClient: MediaClientFactory; kernelState: KernelState }) =>
        new ImportersService({
          store: new ImportStore(c.sequelize), pool: c.pool, formats: c.registries.importFormats, jobs: c.jobs, logger: c.logger, options, dataPath: config.dataPath,
          stopping: c.kernelState.stopping,
          // Resolved when first used: the content and media SDKs.
          contentClient: () => c.contentClient, mediaClient: () => c.mediaClient,
        }),
      ).singleton(),
    );
    registries.jobHandlers.add({
      type: JOB_TYPE,
      async run(job, helpers) {
        if (!own.service) throw new Error('The importers plugin is not booted');
        const { importJobId } = job.payload as { importJobId: string };
        const outcome = await own.service.execute(importJobId, { progress: (processed, total) => helpers.progress(processed, total), interrupted: () => helpers.signal.aborted });
        if (outcome === 'interrupted') throw new JobInterruptedError();
        return { importJobId, completed: outcome !== null };
      },
    });
    for (const route of importerRoutes) routes.add(route);
  },

  async boot({ container, config, logger }) {
    const own = state.get(config)!;
    const service = container.resolve<ImportersService>('importers');
    own.service = service;
    const sweep = () => service.sweep().catch((err) => logger.warn({ err }, 'import retention sweep failed'));
    await sweep();
    own.timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    own.timer.unref();
  },

  close({ config }) {
    const own = state.get(config);
    if (own?.timer) clearInterval(own.timer);
    state.delete(config);
  },
});
