import { asFunction } from 'awilix';
import { type EventBus, type IdentifyRequest, definePlugin } from '../../kernel/sdk.js';
import { CompletionStreams } from './completion-stream.js';
import { DataOpsService } from './engine.js';
import type { EngineDeps } from './engine-parts.js';
import { dataOpsGraphql } from './graphql.js';
import { DATA_OPS_MIGRATIONS } from './migrations.js';
import { dataOpsOptionsSchema } from './options.js';
import { PlanStore } from './plan-store.js';
import { DATA_OPS_APPLY_JOB } from './public.js';
import { dataOpsRoutes } from './routes.js';

/** Unapplied plans are kept this long after they expired (apply answers 410, not 404), then pruned. */
const EXPIRED_GRACE_MS = 24 * 3600 * 1000;
/** Applied plans are kept this long (what was applied, for verify and history). */
const APPLIED_RETENTION_MS = 30 * 24 * 3600 * 1000;
const PRUNE_BATCH = 500;

/** The container services the engine is made of (its store and options are the plugin's), and the request identifier. */
type Deps = Omit<EngineDeps, 'store' | 'options'> & { identify: IdentifyRequest };

// A factory: each kernel gets its own closure (the engine the job handler uses, the bus of the subscription).
export default definePlugin(() => {
  let engine: DataOpsService | null = null;
  let bus: EventBus | null = null;
  let pruneIntervalMs = 600_000;
  return {
    options: dataOpsOptionsSchema,
    register({ container, routes, registries, migrations, options }) {
      for (const m of DATA_OPS_MIGRATIONS) migrations.add(m);
      container.register('dataOpsPlans', asFunction((c: Deps) => new PlanStore(c.sequelize)).singleton());
      container.register(
        'dataOps',
        asFunction(
          (c: Deps & { dataOpsPlans: PlanStore }) =>
            new DataOpsService({
              store: c.dataOpsPlans,
              sequelize: c.sequelize,
              registries: c.registries,
              lock: c.lock,
              jobs: c.jobs,
              audit: c.audit,
              events: c.events,
              logger: c.logger.child({ plugin: 'data-ops' }),
              options: { lockWaitMs: options.lockWaitMs, lockTtlMs: options.lockTtlMs },
            }),
        ).singleton(),
      );
      container.register(
        'dataOpsStreams',
        asFunction(
          (c: Deps) => new CompletionStreams(c.events, options, () => c.identify, c.logger.child({ plugin: 'data-ops' })),
        ).singleton(),
      );
      registries.jobHandlers.add({
        type: DATA_OPS_APPLY_JOB,
        async run(job, helpers) {
          if (!engine) throw new Error('The data-ops plugin is not booted');
          return engine.runJob(job, helpers);
        },
      });
      registries.graphql.add(
        dataOpsGraphql(() => {
          if (!bus) throw new Error('The data-ops plugin is not booted');
          return bus;
        }),
      );
      for (const route of dataOpsRoutes) routes.add(route);
      pruneIntervalMs = options.pruneIntervalMs;
    },

    async boot({ container, logger, every, onClose }) {
      engine = container.resolve<DataOpsService>('dataOps');
      bus = container.resolve<EventBus>('events');
      const store = container.resolve<PlanStore>('dataOpsPlans');
      const streams = container.resolve<CompletionStreams>('dataOpsStreams');
      onClose(() => {
        streams.close();
        engine = null;
        bus = null;
      });
      // The first round one interval after boot; registered after the onClose above, so it stops first.
      every({
        name: 'pruning data-operation plans',
        everyMs: pruneIntervalMs,
        run: async () => {
          const removed = await store.prune(Date.now(), EXPIRED_GRACE_MS, APPLIED_RETENTION_MS, PRUNE_BATCH);
          if (removed) logger.info({ removed }, 'pruned expired data-operation plans');
        },
      });
    },
  };
});
