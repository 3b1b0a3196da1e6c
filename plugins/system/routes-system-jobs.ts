import { z } from 'zod';
import {
  ForbiddenError,
  ValidationError,
  isInstallationAdmin,
  type Identity,
  defineRoute,
  type RouteDefinition,
} from '../../kernel/sdk.js';
import { SystemJobUnknownError } from './errors.js';
import { SYSTEM_JOB_TYPE, type SystemJobPayload } from './system-job-runner.js';

/** Recent runs shown by GET /api/system-jobs. */
const RECENT_RUNS = 20;

const runSchema = z
  .object({
    jobId: z.string(),
    name: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    params: z.record(z.string(), z.unknown()),
    startedBy: z.string().nullable(),
    result: z.unknown(),
    error: z.string().nullable(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'SystemJobRun' });

/**
 * The jobs act on the whole instance (every tenant's sessions, tokens and caches; the one audit chain):
 * admins of the default tenant only (the operator's), as for tenant management. An API key or another
 * role holding manage:system is refused.
 */
function operatorOnly(identity: Identity): void {
  if (!isInstallationAdmin(identity)) throw new ForbiddenError('Only admins of the default tenant run system jobs');
}

export const systemJobRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/system-jobs',
    permission: 'manage:system',
    installation: 'admin',
    summary: 'The maintenance jobs an administrator can start, and their recent runs with status and result',
    description: 'Admins of the default tenant only (403 FORBIDDEN otherwise).',
    tags: ['system'],
    request: {},
    response: z.object({
      jobs: z.array(z.object({ name: z.string(), description: z.string() })),
      runs: z.array(runSchema),
    }),
    async handler({ scope, identity }) {
      operatorOnly(identity);
      const jobs = scope.registries.systemJobs
        .list()
        .map((j) => ({ name: j.name, description: j.description }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const runs = (await scope.jobs.list({ type: SYSTEM_JOB_TYPE, limit: RECENT_RUNS })).map((job) => {
        const payload = (job.payload ?? {}) as Partial<SystemJobPayload>;
        return {
          jobId: job.jobId,
          name: String(payload.name ?? ''),
          status: job.status,
          params: payload.params ?? {},
          startedBy: payload.startedBy ?? null,
          result: job.result,
          error: job.error,
          createdAt: job.createdAt,
          completedAt: job.completedAt,
        };
      });
      return { jobs, runs };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/system-jobs',
    permission: 'manage:system',
    installation: 'admin',
    status: 202,
    summary: 'Starts a maintenance job by name in the background; poll GET /api/system/jobs/:jobId for its result',
    description:
      'Admins of the default tenant only (403 FORBIDDEN otherwise). An unknown name -> 404 SYSTEM_JOB_UNKNOWN; params that the job refuses -> 400 VALIDATION_ERROR. Each run is one attempt (no retry) and is recorded in the audit log.',
    tags: ['system'],
    request: {
      body: z.strictObject({
        name: z
          .string()
          .min(1)
          .max(100)
          .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lower-case words joined by dashes'),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    },
    response: z.object({ jobId: z.string(), name: z.string() }),
    async handler({ scope, body, identity }) {
      operatorOnly(identity);
      const job = scope.registries.systemJobs.get(body.name);
      if (!job) throw new SystemJobUnknownError(body.name);
      let params = body.params ?? {};
      if (job.params) {
        const parsed = job.params.safeParse(params);
        if (!parsed.success) {
          throw new ValidationError(
            `Invalid params for the system job '${job.name}'`,
            parsed.error.issues.map((i) => ({ path: ['body', 'params', ...i.path].join('.'), message: i.message })),
          );
        }
        params = parsed.data;
      }
      const payload: SystemJobPayload = { name: job.name, params, startedBy: identity.userId ?? null };
      const queued = await scope.jobs.enqueue(SYSTEM_JOB_TYPE, payload, { tenantId: identity.tenantId, maxAttempts: 1 });
      scope.audit.record({
        domain: 'system',
        operation: 'job',
        actor: { userId: identity.userId ?? null, tenantId: identity.tenantId },
        outcome: 'success',
        level: 'medium',
        action: `system-job.${job.name}`,
        message: `Started the system job '${job.name}' (job ${queued.jobId})`,
        details: { jobId: queued.jobId, params },
      });
      return { jobId: queued.jobId, name: job.name };
    },
  }),
];
