import { z } from 'zod';
import { inInstallationTenant, isInstallationAdmin, defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { QueryTypes } from 'sequelize';
import { gated } from './gated.js';
import { contentReader, contentTotals, mediaFigures } from './sources.js';
import { humanBytes, systemInfo } from './system-figures.js';

const tags = ['dashboard'];

/** Database and cache reachability with latencies; the overall status is ok or degraded. */
export async function healthReport(scope: RouteContext['scope']) {
  const state = scope.kernelState;
  const timed = async (check: () => Promise<unknown>) => {
    const started = performance.now();
    try {
      await check();
      return { status: 'ok' as const, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch {
      return { status: 'down' as const, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    }
  };
  const database = {
    type: state.database().type,
    ...(await timed(() => scope.sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT }))),
  };
  const cache = await timed(() => scope.cache.check());
  const serving = ['READY', 'FULL', 'WARMED'].includes(state.phase());
  const status = !serving ? 'starting' : database.status === 'ok' && cache.status === 'ok' ? 'healthy' : 'degraded';
  return {
    status,
    phase: state.phase(),
    version: state.version,
    instanceId: state.instanceId,
    uptime: Math.round(process.uptime()),
    database,
    cache,
    timestamp: new Date().toISOString(),
  };
}

const statsShape = z
  .object({
    contentCount: z.number().int(),
    userCount: z.number().int(),
    mediaCount: z.number().int(),
    storageUsed: z.string(),
    storageUsedBytes: z.number().int(),
    healthStatus: z.string(),
    uptime: z.number(),
    timestamp: z.string(),
  })
  .meta({ id: 'DashboardStats' });

export const overviewRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/stats',
    permission: 'dashboard:read',
    tags,
    request: {},
    response: statsShape,
    summary: 'Entries, users and media of the tenant, measured storage, health and uptime',
    description: 'storageUsed is measured on disk (the data folder, which holds local media); storageUsedBytes gives the bytes.',
    async handler({ scope, identity }) {
      const [content, users, media, storage, health] = await Promise.all([
        contentTotals(contentReader(scope, identity)),
        scope.users.summary(identity.tenantId),
        mediaFigures(scope, identity, 0),
        scope.dashboardState.storageBytes(),
        healthReport(scope),
      ]);
      return {
        contentCount: content.total,
        userCount: users.total,
        mediaCount: media.total,
        storageUsed: humanBytes(storage),
        storageUsedBytes: storage,
        healthStatus: health.status,
        uptime: Math.round(process.uptime()),
        timestamp: new Date().toISOString(),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/health',
    permission: 'dashboard:read',
    tags,
    request: {},
    summary: 'Health: status (healthy|degraded|starting), boot phase, database and cache reachability with latency',
    response: z.object({
      status: z.string(),
      phase: z.string(),
      version: z.string(),
      instanceId: z.string(),
      uptime: z.number(),
      database: z.record(z.string(), z.unknown()),
      cache: z.record(z.string(), z.unknown()),
      timestamp: z.string(),
    }),
    handler: ({ scope }) => healthReport(scope),
  }),
  gated(
    'unified-metrics',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/metrics',
      permission: 'dashboard:read',
      tags,
      request: { query: z.object({ detailed: z.enum(['true', 'false']).optional() }) },
      summary: 'API hits and error rates per route, cache statistics; detailed=true adds memory, uptime and runtime version',
      async handler({ scope, query }) {
        const http = scope.httpMetrics.snapshot();
        const cache = await scope.cache.stats();
        const body: Record<string, unknown> = {
          since: http.since,
          apiHits: http.totals.count,
          errorRate: http.totals.errorRate,
          status: {
            '2xx': http.totals.status2xx,
            '3xx': http.totals.status3xx,
            '4xx': http.totals.status4xx,
            '5xx': http.totals.status5xx,
            rateLimited: http.totals.rateLimited,
          },
          routes: http.routes
            .slice(0, 50)
            .map((r) => ({ method: r.method, route: r.route, hits: r.count, errorRate: r.errorRate, avgMs: r.avgMs, maxMs: r.maxMs })),
          cache: cache.overall,
          timestamp: new Date().toISOString(),
        };
        if (query.detailed === 'true') {
          const m = process.memoryUsage();
          body.memory = { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external };
          body.uptime = Math.round(process.uptime());
          body.runtime = { name: 'node', version: process.version, platform: process.platform, arch: process.arch };
        }
        return body;
      },
    }),
  ),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/system-info',
    permission: 'dashboard:read',
    tags,
    request: { query: z.object({ type: z.enum(['cpu', 'memory', 'os', 'disk']).optional() }) },
    summary: 'Operating system, CPU model and cores, memory, disk usage of the data volume; type keeps one part',
    response: z.object({
      osInfo: z.record(z.string(), z.unknown()).optional(),
      cpuInfo: z.record(z.string(), z.unknown()).optional(),
      memoryInfo: z.record(z.string(), z.unknown()).optional(),
      diskInfo: z.record(z.string(), z.unknown()).optional(),
    }),
    // The data folder's path is a server path: the installation's administrators only.
    handler: ({ scope, query, identity }) => systemInfo(scope.config.dataPath, query.type, isInstallationAdmin(identity)),
  }),
  gated(
    'cache-monitor',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/cache-metrics',
      permission: 'dashboard:read',
      tags,
      request: {},
      summary: 'The kernel cache counters overall, by category and by tenant',
      description:
        "The installation's own tenant (the default one) sees every tenant's figures; another tenant sees its own only: byTenant holds just it, " +
        'overall is its figures and byCategory is empty (categories sum every tenant).',
      response: z.object({
        overall: z.record(z.string(), z.unknown()),
        byCategory: z.record(z.string(), z.unknown()),
        byTenant: z.record(z.string(), z.unknown()),
        timestamp: z.number(),
      }),
      async handler({ scope, identity }) {
        const s = await scope.cache.stats();
        if (!inInstallationTenant(identity)) {
          // Another tenant's figures are the installation's business: this tenant sees its own.
          const own =
            s.byTenant[identity.tenantId] ?? (Object.fromEntries(Object.keys(s.overall).map((k) => [k, 0])) as unknown as typeof s.overall);
          return { backend: s.backend, overall: own, byCategory: {}, byTenant: { [identity.tenantId]: own }, timestamp: s.timestamp };
        }
        return { backend: s.backend, overall: s.overall, byCategory: s.byCategory, byTenant: s.byTenant, timestamp: s.timestamp };
      },
    }),
  ),
  gated(
    'database-pool-diagnostics',
    defineRoute({
      method: 'GET',
      path: '/api/database/pool-diagnostics',
      permission: 'dashboard:read',
      tags,
      request: {},
      summary:
        'Database connection pool: dialect, size, available, in use, waiting (where the dialect has a pool) and a round-trip latency',
      async handler({ scope }) {
        const sequelize = scope.sequelize;
        const pool = (sequelize as unknown as { connectionManager?: { pool?: Record<string, unknown> } }).connectionManager?.pool;
        const num = (k: string) => (pool && typeof pool[k] === 'number' ? (pool[k] as number) : null);
        const figures = pool
          ? {
              size: num('size'),
              available: num('available'),
              using: num('using'),
              waiting: num('waiting'),
              max: num('maxSize'),
              min: num('minSize'),
            }
          : null;
        const started = performance.now();
        let reachable = true;
        await sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT }).catch(() => (reachable = false));
        const latencyMs = Math.round((performance.now() - started) * 10) / 10;
        const waiting = figures?.waiting ?? 0;
        return {
          dialect: sequelize.getDialect(),
          pool: figures,
          reachable,
          latencyMs,
          status: !reachable ? 'down' : waiting > 0 ? 'saturated' : 'ok',
          timestamp: new Date().toISOString(),
        };
      },
    }),
  ),
];
