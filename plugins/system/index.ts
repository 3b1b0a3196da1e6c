import { z } from 'zod';
import { definePlugin, everyMsOption, type SystemJobContext } from '../../kernel/sdk.js';
import { auditRetention } from './audit-retention.js';
import { rebuildListCachesJob, reindexSearchJob } from './content-jobs.js';
import { systemRoutes } from './routes.js';
import { systemJobRoutes } from './routes-system-jobs.js';
import { systemJobHandler } from './system-job-runner.js';

/** plugins.options.system */
const optionsSchema = z.strictObject({
  /** How often the audit retention prune runs (AUDIT_RETENTION_DAYS); a day by default. */
  auditPruneIntervalMs: everyMsOption(24 * 3600 * 1000),
  /** Days audit entries are kept when there is no AUDIT_RETENTION_DAYS setting (the setup plugin's store); 0 keeps them all. */
  auditRetentionDays: z.number().min(0).max(36500).default(365),
});

export default definePlugin(() => {
  // The kernel container, for the jobs' context once the plugin has booted (one per kernel).
  let container: SystemJobContext['container'] | undefined;
  let retention = { intervalMs: 0, fallbackDays: 365 };
  return {
    options: optionsSchema,
    register({ routes, registries, options }) {
      retention = { intervalMs: options.auditPruneIntervalMs, fallbackDays: options.auditRetentionDays };
      for (const route of [...systemRoutes, ...systemJobRoutes]) routes.add(route);
      registries.jobHandlers.add(systemJobHandler(registries.systemJobs, () => container));
      for (const job of [rebuildListCachesJob, reindexSearchJob]) registries.systemJobs.add(job);
    },
    boot({ container: kernel, logger, every }) {
      container = kernel;
      every(auditRetention(kernel.cradle, logger, retention));
    },
  };
});
