import { z } from 'zod';
import { NotFoundError, hasPermission, isInstallationAdmin, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { QueryTypes } from 'sequelize';

const pluginRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    enabled: z.boolean(),
    state: z.string(),
    phase: z.string(),
    source: z.string(),
    requires: z.array(z.string()),
    provides: z.record(z.string(), z.array(z.string())),
    permissions: z.array(z.string()),
    namespaces: z.array(z.string()),
    routes: z.number(),
    containerKeys: z.array(z.string()),
    registerMs: z.number().optional(),
    bootMs: z.number().optional(),
  })
  .meta({ id: 'PluginRecord' });

/** Fields of the health answer that a check's `exposeAs` may not replace. */
const RESERVED = new Set(['status', 'phase', 'phases', 'version', 'instanceId', 'uptimeSeconds', 'checks']);

async function timed(check: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const started = performance.now();
  try {
    return { status: 'ok', ...(await check()), latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (err) {
    return { status: 'down', error: (err as Error).message.slice(0, 200) };
  }
}

export const systemRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/system/health',
    openDuring: ['boot', 'setup', 'maintenance', 'restore'],
    permission: 'public',
    summary: 'Boot phase, phase history and the health of each part',
    description:
      'Public so the setup wizard and probes can poll it. Plugins add checks through the healthChecks registry (e.g. setup progress).',
    tags: ['system'],
    rateLimit: false,
    request: {},
    response: z
      .object({
        status: z.enum(['ok', 'degraded', 'starting']),
        phase: z.string(),
        phases: z.array(z.object({ phase: z.string(), at: z.string() })),
        version: z.string(),
        instanceId: z.string(),
        uptimeSeconds: z.number(),
        checks: z.record(z.string(), z.record(z.string(), z.unknown())),
      })
      .catchall(z.unknown())
      .meta({ description: 'Plus one field per health check that sets exposeAs (e.g. setup: {progress, ...}).' }),
    async handler({ scope, identity }) {
      const state = scope.kernelState;
      const registries = scope.registries;
      const phase = state.phase();
      const checks: Record<string, Record<string, unknown>> = {
        database: await timed(async () => {
          await scope.sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT });
          return { type: state.database().type };
        }),
        cache: await timed(() => scope.cache.check()),
        events: scope.events.connected
          ? { status: 'ok', transport: scope.events.transport }
          : { status: 'down', transport: scope.events.transport, error: 'the Redis pub/sub connection is down (reconnecting)' },
      };
      const exposed: Record<string, unknown> = {};
      for (const hc of registries.healthChecks.list()) {
        checks[hc.id] = await timed(() => hc.check());
        if (hc.exposeAs && !RESERVED.has(hc.exposeAs)) exposed[hc.exposeAs] = checks[hc.id];
      }
      // The endpoint is public: failure details (driver messages, host names) only for system:read.
      if (!hasPermission(identity, 'system:read')) {
        for (const check of Object.values(checks)) if (check.error !== undefined) check.error = 'unavailable';
      }
      const serving = ['READY', 'FULL', 'WARMED'].includes(phase);
      const allOk = Object.values(checks).every((c) => c.status === 'ok');
      return {
        ...exposed,
        status: !serving ? 'starting' : allOk ? 'ok' : 'degraded',
        phase,
        phases: state.phaseHistory(),
        version: state.version,
        instanceId: state.instanceId,
        uptimeSeconds: Math.round(process.uptime()),
        checks,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/plugins',
    permission: 'manage:system',
    summary: 'The plugin tree: id, version, enabled, state, phase, what each provides, boot time',
    tags: ['system'],
    request: {},
    response: z.array(pluginRecord),
    handler: ({ scope }) => scope.kernelState.plugins().map(({ dir: _dir, ...rest }) => rest),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/plugins/:id',
    permission: 'manage:system',
    summary: 'One plugin of the tree',
    tags: ['system'],
    request: { params: z.object({ id: z.string().max(100) }) },
    response: pluginRecord,
    handler({ scope, params }) {
      const found = scope.kernelState.plugins().find((p) => p.id === params.id);
      if (!found) throw new NotFoundError(`Plugin '${params.id}' is not installed`);
      const { dir: _dir, ...rest } = found;
      return rest;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/pool',
    permission: 'system:read',
    summary: 'Worker pool figures: threads, queue, completed tasks, utilisation, run and wait times',
    tags: ['system'],
    request: {},
    handler: ({ scope }) => scope.pool.stats(),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/cache',
    permission: 'system:read',
    installation: 'tenant',
    summary:
      'Cache figures overall, by category and by tenant (hits, misses, sets, deletes, size, hit rate), and the memory store and in-process layers against their bounds',
    description: "Every tenant's figures: the installation's own tenant (the default one) only; other tenants -> 403 FORBIDDEN.",
    tags: ['system'],
    request: {},
    handler: ({ scope }) => scope.cache.stats(),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/jobs/:jobId',
    permission: 'system:read',
    summary: 'One background job: status, progress, result',
    tags: ['system'],
    description:
      "Only jobs of the caller's tenant (the installation's administrators see every job); the payload is shown to manage:system only.",
    request: { params: z.object({ jobId: z.string().uuid() }) },
    async handler({ scope, params, identity }) {
      const job = await scope.jobs.get(params.jobId);
      // Another tenant's job is only the installation's administrators' to see (a tenant's admin gets 404).
      if (job.tenantId !== identity.tenantId && !isInstallationAdmin(identity)) throw new NotFoundError(`Job '${params.jobId}' not found`);
      return hasPermission(identity, 'manage:system') ? job : { ...job, payload: undefined };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/audit/verify',
    permission: 'manage:system',
    summary: 'Walks the audit hash chain and names the first entry that does not hold',
    tags: ['system'],
    request: {},
    response: z.object({
      valid: z.boolean(),
      checked: z.number(),
      firstInvalid: z.object({ id: z.number(), reason: z.string() }).optional(),
    }),
    handler: ({ scope }) => scope.audit.verify(),
  }),
];
