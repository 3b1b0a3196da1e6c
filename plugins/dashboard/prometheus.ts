import { timingSafeEqual, createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { CacheService, HttpMetrics } from '../../kernel/sdk.js';
import type { SessionsReader, UsersReader } from './sources.js';

export interface MetricSources {
  httpMetrics: HttpMetrics;
  cache: CacheService;
  users: UsersReader;
  sessions: SessionsReader;
}

type Http = () => ReturnType<HttpMetrics['snapshot']>;

/** Requests by route: counts by status class, 429s, time spent and the slowest. */
function httpCollectors(registry: Registry, http: Http): void {
  const byRoute = { labelNames: ['method', 'route'] as const, registers: [registry] };
  new Counter({
    name: 'cms_http_requests_total',
    help: 'HTTP requests by method, route template and status class',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of http().routes) {
        for (const [status, n] of [
          ['2xx', r.status2xx],
          ['3xx', r.status3xx],
          ['4xx', r.status4xx],
          ['5xx', r.status5xx],
        ] as const) {
          if (n) this.inc({ method: r.method, route: r.route, status }, n);
        }
      }
    },
  });
  new Counter({
    name: 'cms_http_rate_limited_total',
    help: 'Requests answered 429 by route',
    ...byRoute,
    collect() {
      this.reset();
      for (const r of http().routes) if (r.rateLimited) this.inc({ method: r.method, route: r.route }, r.rateLimited);
    },
  });
  new Counter({
    name: 'cms_http_request_duration_seconds_sum',
    help: 'Total time spent answering requests, by route',
    ...byRoute,
    collect() {
      this.reset();
      for (const r of http().routes) if (r.totalMs) this.inc({ method: r.method, route: r.route }, r.totalMs / 1000);
    },
  });
  new Gauge({
    name: 'cms_http_request_duration_seconds_max',
    help: 'Slowest request by route since start',
    ...byRoute,
    collect() {
      this.reset();
      for (const r of http().routes) this.set({ method: r.method, route: r.route }, r.maxMs / 1000);
    },
  });
}

/** The cache: operations by category, and the hit ratio. */
function cacheCollectors(registry: Registry, cache: () => CacheService): void {
  new Counter({
    name: 'cms_cache_operations_total',
    help: 'Cache operations by category and kind',
    labelNames: ['category', 'op'],
    registers: [registry],
    async collect() {
      this.reset();
      const stats = await cache().stats();
      for (const [category, f] of Object.entries(stats.byCategory)) {
        for (const op of ['hits', 'misses', 'sets', 'deletes'] as const) if (f[op]) this.inc({ category, op }, f[op]);
      }
    },
  });
  new Gauge({
    name: 'cms_cache_hit_ratio',
    help: 'Cache hit rate overall (0..1)',
    registers: [registry],
    async collect() {
      const o = (await cache().stats()).overall;
      this.set(o.hits + o.misses ? o.hits / (o.hits + o.misses) : 0);
    },
  });
}

/** Users by state and active sessions of the default tenant. */
function accountCollectors(registry: Registry, sources: () => MetricSources): void {
  new Gauge({
    name: 'cms_users',
    help: 'Users of the default tenant by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const u = await sources().users.summary('default');
      for (const state of ['total', 'active', 'blocked', 'locked'] as const) this.set({ state }, u[state]);
    },
  });
  new Gauge({
    name: 'cms_sessions_active',
    help: 'Active sessions and signed-in users of the default tenant',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const online = await sources().sessions.online('default');
      this.set(
        { kind: 'sessions' },
        online.reduce((n, o) => n + o.sessions, 0),
      );
      this.set({ kind: 'users' }, online.length);
    },
  });
}

/**
 * A Prometheus registry per kernel (never the global default: several kernels share a process in
 * tests), filled at scrape time from the same counters the dashboard shows.
 */
export function buildMetricsRegistry(sources: () => MetricSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cms_' });
  httpCollectors(registry, () => sources().httpMetrics.snapshot());
  cacheCollectors(registry, () => sources().cache);
  accountCollectors(registry, sources);
  return registry;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics: unknown (404 through the router) unless a token is configured, then it needs
 * `Authorization: Bearer <token>` (compared in constant time) and answers the Prometheus text format.
 */
export function metricsMiddleware(token: string | undefined, registry: () => Registry | null) {
  // Not async: every other request passes without a promise of its own.
  return (ctx: Context, next: Next): Promise<void> => {
    if (!token || ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    return answerMetrics(ctx, token, registry);
  };
}

async function answerMetrics(ctx: Context, token: string, registry: () => Registry | null): Promise<void> {
  const given = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'))?.[1]?.trim() ?? '';
  const reg = registry();
  if (!given || !timingSafeEqual(digest(given), digest(token)) || !reg) {
    ctx.status = 401;
    ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
    ctx.body = { success: false, error: 'AUTHENTICATION_REQUIRED', message: 'A valid metrics token is required' };
    return;
  }
  ctx.set('Content-Type', reg.contentType);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = await reg.metrics();
}
