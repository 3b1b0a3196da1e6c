import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { NotReadyError, ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { securityHeaders } from './browser-security.js';
import { corsFor } from './cors.js';
import { renderError } from './error-handler.js';
import { applyEtag } from './etag.js';
import { routeOpenDuring } from './gates.js';
import type { HttpMetrics } from './http-metrics.js';
import { rateLimit, type RateLimitOptions } from './rate-limit.js';
import type { Router } from './router.js';

export interface KernelStageDeps {
  logger: Logger;
  router: Router;
  bodyLimit: string;
  rateLimit: RateLimitOptions;
  isServing(): boolean;
  metrics?: HttpMetrics;
  publicUrl?: string;
  hstsMaxAgeSeconds?: number;
  corsOrigins?: readonly string[];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const API_PREFIX = /^\/api(\/v1)?(?=\/|$)/i;

/**
 * The kernel's own stages before the plugins' middleware, compiled into one Koa middleware (one async
 * frame instead of eight, same order and the same effects as the separate stages were):
 * request id, the version header and one canonical path, the request's metrics and log line ->
 * CORS of the listed origins (only with CMS_CORS_ORIGINS; preflights answered there) -> browser security
 * headers (nosniff, HSTS, Secure cookies; Cache-Control after) -> the error handler -> the boot gate ->
 * the ETag (after) -> the route match -> the rate limit -> `next` (the plugins' middleware, identity,
 * the dispatcher).
 */
export function kernelStage(deps: KernelStageDeps): (ctx: Context, next: Next) => Promise<void> {
  const crossOrigin = corsFor(deps.corsOrigins ?? []);
  const headers = securityHeaders({ publicUrl: deps.publicUrl, hstsMaxAgeSeconds: deps.hstsMaxAgeSeconds ?? 0 });
  const limit = rateLimit(deps.rateLimit);
  const boot = bootGate(deps);
  const { router, logger, bodyLimit, metrics } = deps;

  async function guarded(ctx: Context, next: Next): Promise<void> {
    headers.before(ctx);
    try {
      boot(ctx);
      // The route match, once: later stages (gates, rate limit, dispatcher) read it from ctx.state.
      const outcome = router.find(ctx.method, ctx.path);
      ctx.state.outcome = outcome;
      if (outcome.kind === 'found') {
        ctx.state.match = outcome.match;
        ctx.state.route = outcome.match.route;
      }
      const limited = limit(ctx);
      if (limited) await limited;
      await next();
      applyEtag(ctx);
    } catch (raw) {
      renderError(ctx, raw, logger, bodyLimit);
    } finally {
      headers.after(ctx);
    }
  }

  return async function kernelStages(ctx: Context, next: Next): Promise<void> {
    startRequest(ctx, logger);
    const started = performance.now();
    try {
      await (crossOrigin ? crossOrigin(ctx, () => guarded(ctx, next)) : guarded(ctx, next));
    } finally {
      // The route template, not the path: parameter values (a token in /api/token/:tokenValue) stay out of logs and metrics.
      const path = ctx.state.route?.path ?? '(no route)';
      const ms = performance.now() - started;
      metrics?.record(ctx.method, path, ctx.status, ms);
      if (logger.isLevelEnabled('info')) {
        ctx.state.logger.info({ method: ctx.method, route: path, status: ctx.status, ms: Math.round(ms) }, 'request');
      }
    }
  };
}

/**
 * ctx.state of a request: one shape for every request, and the request's child logger made when first read
 * (a getter on the prototype: no property defined per request).
 */
class RequestState {
  #root: Logger;
  #logger: Logger | undefined;
  constructor(
    root: Logger,
    readonly requestId: string,
    readonly originalPath: string,
  ) {
    this.#root = root;
  }
  get logger(): Logger {
    return (this.#logger ??= this.#root.child({ requestId: this.requestId }));
  }
  set logger(logger: Logger) {
    this.#logger = logger;
  }
}

/** Request id, the version header, one canonical path, and the request's child logger (made when first used). */
function startRequest(ctx: Context, root: Logger): void {
  const incoming = ctx.get('x-request-id');
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const path = ctx.path;
  ctx.state = Object.assign(new RequestState(root, requestId, path), ctx.state);
  ctx.set('X-API-Version', '1');
  ctx.set('X-Request-Id', requestId);
  // One canonical path for every later stage: repeated slashes folded, and /API/..., /api/v1/... and
  // /Api/V1/... are /api/... (so the namespace gate, the rate limiter and the router agree).
  // Setting ctx.path re-serialises the URL and drops Koa's parsed copy: only when it changes.
  const folded = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  const prefix = API_PREFIX.exec(folded);
  const canonical = prefix && prefix[0] !== '/api' ? `/api${folded.slice(prefix[0].length)}` : folded;
  if (canonical !== path) ctx.path = canonical;
}

/**
 * Before READY and while shutting down only routes declared `openDuring: ['boot']` answer; the readiness
 * probe (`readinessProbe`) is answered NOT_READY here, as its plugin may not have booted yet.
 */
function bootGate(deps: Pick<KernelStageDeps, 'isServing' | 'router'>): (ctx: Context) => void {
  let served = false;
  return (ctx) => {
    if (deps.isServing()) {
      served = true;
      return;
    }
    const outcome = deps.router.find(ctx.method, ctx.path);
    const route = outcome.kind === 'found' ? outcome.match.route : undefined;
    if (route?.readinessProbe) throw new NotReadyError(served ? 'The instance is shutting down' : 'The instance is booting (before READY)');
    if (!routeOpenDuring(route, 'boot'))
      throw new ServiceUnavailableError(served ? 'The service is shutting down; try again shortly' : undefined);
  };
}
