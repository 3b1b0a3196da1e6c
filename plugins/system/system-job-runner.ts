import type { JobHandler, SystemJob, SystemJobContext } from '../../kernel/sdk.js';

/** The job type every system job runs as; the payload names the job. */
export const SYSTEM_JOB_TYPE = 'system-job';

export interface SystemJobPayload {
  name: string;
  params: Record<string, unknown>;
  /** The administrator who started it. */
  startedBy: string | null;
}

/**
 * The `system-job` handler: looks the named job up in the systemJobs registry and runs it with the
 * kernel container (given once the plugin has booted). Its result becomes the job's result.
 */
export function systemJobHandler(
  jobs: { get(name: string): SystemJob | undefined },
  container: () => SystemJobContext['container'] | undefined,
): JobHandler {
  return {
    type: SYSTEM_JOB_TYPE,
    async run(job, helpers) {
      const payload = job.payload as SystemJobPayload;
      const definition = jobs.get(payload.name);
      if (!definition) throw new Error(`No system job '${payload.name}' on this instance`);
      const kernel = container();
      if (!kernel) throw new Error('The system plugin has not booted yet');
      return definition.handler({
        params: payload.params ?? {},
        tenantId: job.tenantId,
        startedBy: payload.startedBy ?? null,
        container: kernel,
        logger: helpers.logger,
        signal: helpers.signal,
        progress: helpers.progress,
      });
    },
  };
}
