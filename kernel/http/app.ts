import { randomUUID } from 'node:crypto';
import { ServerResponse, type IncomingMessage } from 'node:http';
import Koa, { type Context, type Next } from 'koa';
import compose from 'koa-compose';
import type { KernelContainer } from '../container.js';
import { MethodNotAllowedError, NotFoundError, NotReadyError, ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { callerKey, type ReadRouting } from '../db/read-routing.js';
import type { IdentityResolver, Registries } from '../registries/index.js';
import { checkInstallation, checkNamespace, checkRoute } from './dispatcher.js';
import { errorHandler } from './error-handler.js';
import { assertSameOrigin, browserSecurity, originOf } from './browser-security.js';
import { corsFor } from './cors.js';
import { SerialisedEnvelope } from './envelope.js';
import { etag } from './etag.js';
import { routeOpenDuring } from './gates.js';
import type { HttpMetrics } from './http-metrics.js';
import { IdempotencyStore, runIdempotently } from './idempotency.js';
import { GUEST, type Identity } from './identity.js';
import type { NamespaceMap } from './namespaces.js';
import { rateLimiter, type RateLimitOptions } from './rate-limit.js';
import { RequestScope } from './request-scope.js';
import { readInput } from './request-input.js';
import type { Router, RouteMatch } from './router.js';
import { namespaceOf } from './route-table.js';

export interface AppDeps {
  logger: Logger;
  container: KernelContainer;
  router: Router;
  namespaces: NamespaceMap;
  registries: Registries;
  bodyLimit: string;
  trustProxy: boolean;
  /** Right-most X-Forwarded-For entries to believe (the ones our proxies appended); the rest is client-written. */
  proxyHops: number;
  rateLimit: RateLimitOptions;
  /** True from READY until shutdown starts. */
  isServing(): boolean;
  /** Whether the plugin that owns a route has booted (routes of later phases answer 503 until then). */
  isBooted(pluginId: string): boolean;
  /** Request counters by route template. */
  metrics?: HttpMetrics;
  /** Answers kept for routes declared `idempotent` (the Idempotency-Key header). */
  idempotency?: IdempotencyStore;
  /** CMS_PUBLIC_URL: its origin is accepted as a request's Origin; https makes every cookie Secure and sends HSTS. */
  publicUrl?: string;
  /** Strict-Transport-Security max-age on HTTPS answers (0: none). */
  hstsMaxAgeSeconds?: number;
  /** CMS_CORS_ORIGINS: origins whose pages may read the API with a bearer credential (cors.ts); empty: no CORS. */
  corsOrigins?: readonly string[];
  /** DB_READ_URLS: a GET handler's reads may go to a replica; the caller's writes are remembered (read-your-writes). */
  readRouting?: ReadRouting;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Resolves the identity of a raw request (the container key `identify`). */
export type IdentifyRequest = (req: IncomingMessage, overrides?: { authorization?: string }) => Promise<Identity>;

/**
 * Builds the Koa app with the spec's HTTP conventions, in this order: request id, version header
 * and /api/v1 rewrite -> CORS of the listed origins (only with CMS_CORS_ORIGINS; preflights answered
 * there) -> browser security headers (nosniff, HSTS, Cache-Control, Secure cookies) ->
 * error handler -> boot gate -> ETag -> route match -> rate limit -> plugin middleware -> request
 * scope + identity (+ the cross-origin check of cookie sign-ins) -> plugin middleware -> dispatcher ->
 * handler.
 */
export function buildApp(deps: AppDeps): Koa & { identify: IdentifyRequest } {
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: deps.proxyHops });
  app.silent = true;
  const stages = pluginStages(deps.registries);
  app.use(requestContext(deps));
  const crossOrigin = corsFor(deps.corsOrigins ?? []);
  if (crossOrigin) app.use(crossOrigin);
  app.use(browserSecurity({ publicUrl: deps.publicUrl, hstsMaxAgeSeconds: deps.hstsMaxAgeSeconds ?? 0 }));
  app.use(errorHandler(deps.logger, deps.bodyLimit));
  app.use(bootGate(deps));
  app.use(etag);
  app.use(matchRoute(deps.router));
  app.use(rateLimiter(deps.rateLimit));
  app.use((ctx, next) => stages().before(ctx, next));
  app.use(requestScope(deps, stages));
  app.use((ctx, next) => stages().after(ctx, next));
  app.use(dispatch(deps));
  return Object.assign(app, { identify: identifier(app, deps, stages) });
}

/** Request id, the version header, one canonical path, and the request's log line and metrics. */
function requestContext(deps: AppDeps) {
  return async function requestContext(ctx: Context, next: Next) {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    let logger: Logger | undefined;
    Object.defineProperty(ctx.state, 'logger', { get: () => (logger ??= deps.logger.child({ requestId })) });
    ctx.set('X-API-Version', '1');
    ctx.set('X-Request-Id', requestId);
    ctx.state.originalPath = ctx.path;
    // One canonical path for every later stage: repeated slashes folded, and /API/..., /api/v1/... and
    // /Api/V1/... are /api/... (so the namespace gate, the rate limiter and the router agree).
    if (ctx.path.includes('//')) ctx.path = ctx.path.replace(/\/{2,}/g, '/');
    const prefix = /^\/api(\/v1)?(?=\/|$)/i.exec(ctx.path);
    // Setting ctx.path re-serialises the URL and drops Koa's parsed copy: only when it changes.
    if (prefix && prefix[0] !== '/api') ctx.path = `/api${ctx.path.slice(prefix[0].length)}`;
    const started = performance.now();
    try {
      await next();
    } finally {
      // The route template, not the path: parameter values (a token in /api/token/:tokenValue) stay out of logs and metrics.
      const path = ctx.state.route?.path ?? '(no route)';
      const ms = performance.now() - started;
      deps.metrics?.record(ctx.method, path, ctx.status, ms);
      if (deps.logger.isLevelEnabled('info')) {
        ctx.state.logger.info({ method: ctx.method, route: path, status: ctx.status, ms: Math.round(ms) }, 'request');
      }
    }
  };
}

/**
 * Before READY and while shutting down only routes declared `openDuring: ['boot']` answer; the readiness
 * probe (`readinessProbe`) is answered NOT_READY here, as its plugin may not have booted yet.
 */
function bootGate(deps: Pick<AppDeps, 'isServing' | 'router'>) {
  let served = false;
  return async function bootGate(ctx: Context, next: Next) {
    if (deps.isServing()) {
      served = true;
      return next();
    }
    const outcome = deps.router.find(ctx.method, ctx.path);
    const route = outcome.kind === 'found' ? outcome.match.route : undefined;
    if (route?.readinessProbe) throw new NotReadyError(served ? 'The instance is shutting down' : 'The instance is booting (before READY)');
    if (!routeOpenDuring(route, 'boot'))
      throw new ServiceUnavailableError(served ? 'The service is shutting down; try again shortly' : undefined);
    return next();
  };
}

/** The route match, once: later stages (gates, rate limit, dispatcher) read it from ctx.state. */
function matchRoute(router: Router) {
  return async function matchRoute(ctx: Context, next: Next) {
    const outcome = router.find(ctx.method, ctx.path);
    ctx.state.outcome = outcome;
    if (outcome.kind === 'found') {
      ctx.state.match = outcome.match;
      ctx.state.route = outcome.match.route;
    }
    return next();
  };
}

interface PluginStages {
  before: compose.ComposedMiddleware<Context>;
  after: compose.ComposedMiddleware<Context>;
  /** The identity, and whether its credential was one the browser sends by itself (a cookie). */
  resolveWith(ctx: Context): Promise<{ identity: Identity; ambient: boolean }>;
}

/** Plugin middleware by stage and the identity resolvers: registries are complete before the first request, so built once then. */
function pluginStages(registries: Registries): () => PluginStages {
  let built: PluginStages | null = null;
  const stage = (name: 'beforeIdentity' | 'afterIdentity') =>
    compose(
      registries.middleware
        .list()
        .filter((m) => m.stage === name)
        .map((m) => m.handler),
    );
  return () => {
    if (built) return built;
    const resolvers: IdentityResolver[] = registries.identityResolvers.list().sort((a, b) => a.priority - b.priority);
    built = {
      before: stage('beforeIdentity'),
      after: stage('afterIdentity'),
      async resolveWith(ctx) {
        for (const resolver of resolvers) {
          const found = await resolver.resolve(ctx);
          if (found) return { identity: found, ambient: resolver.ambient === true };
        }
        return { identity: GUEST, ambient: false };
      },
    };
    return built;
  };
}

/** The request scope (currentUser, tenantId, requestId; an Awilix scope only once a service needs one) and the caller's identity. */
function requestScope(deps: Pick<AppDeps, 'container' | 'publicUrl'>, stages: () => PluginStages) {
  const publicOrigin = originOf(deps.publicUrl);
  return async function requestScope(ctx: Context, next: Next) {
    const scope = new RequestScope(deps.container);
    ctx.state.scope = scope;
    try {
      const { identity, ambient } = await stages().resolveWith(ctx);
      // Cross-site request forgery: a cookie sign-in's unsafe request from a page of another origin is refused.
      if (ambient) assertSameOrigin(ctx, publicOrigin);
      ctx.state.identity = identity;
      scope.identify(identity, ctx.state.requestId);
      await next();
    } finally {
      await scope.dispose();
    }
  };
}

/** The dispatcher: permissions, the owner's boot, the input, then the handler (through Idempotency-Key when declared). */
function dispatch(deps: AppDeps) {
  return async function dispatch(ctx: Context) {
    const identity: Identity = ctx.state.identity;
    const namespacePermission = checkNamespace(deps.namespaces, identity, namespaceOf(ctx.path), ctx.method);
    const outcome = ctx.state.outcome;
    if (outcome.kind === 'method') throw new MethodNotAllowedError(outcome.allowed);
    if (outcome.kind === 'none') throw new NotFoundError(`No route for ${ctx.method} ${ctx.state.originalPath}`);
    const { route, params } = outcome.match as RouteMatch;
    checkRoute(identity, route.permission, namespacePermission, route.permissionScope ? params[route.permissionScope] : undefined);
    checkInstallation(identity, route.installation);
    if (!deps.isBooted(route.owner)) throw new ServiceUnavailableError(`Plugin '${route.owner}' is still booting; try again shortly`);
    const input = await readInput(ctx, route.request, params, deps.bodyLimit);
    const run = async () => {
      if (route.status) ctx.status = route.status;
      const data = await route.handler({
        ctx,
        ...input,
        identity,
        requestId: ctx.state.requestId,
        // The request's child logger is made when a handler logs, not for every request.
        get logger() {
          return ctx.state.logger;
        },
        scope: ctx.state.scope.cradle,
      });
      if (route.envelope === false) return;
      // A handler that answered 304 (its own validator matched If-None-Match) sends no body.
      if (ctx.status === 304) ctx.body = null;
      else if (data instanceof SerialisedEnvelope) {
        ctx.type = 'application/json';
        ctx.body = data.json;
      } else ctx.body = { success: true, data: data ?? null };
    };
    const safe = ctx.method === 'GET' || ctx.method === 'HEAD';
    const routed = deps.readRouting?.enabled ? () => deps.readRouting!.run(callerKey(identity, ctx.ip), safe, run) : run;
    const key = route.idempotent && deps.idempotency ? IdempotencyStore.parseKey(ctx.get('idempotency-key')) : undefined;
    if (!key) return routed();
    return runIdempotently(deps.idempotency!, key, { ctx, route, identity, input }, routed);
  };
}

/**
 * The identity of a request outside the HTTP pipeline (a WebSocket upgrade): the same resolvers in
 * their own request scope; `authorization` stands in for the header (a token sent in connection
 * parameters). An invalid bearer value throws AuthenticationRequiredError, as over HTTP.
 */
function identifier(app: Koa, deps: Pick<AppDeps, 'container' | 'logger'>, stages: () => PluginStages): IdentifyRequest {
  return async (req, overrides = {}) => {
    const headers = { ...req.headers, ...(overrides.authorization ? { authorization: overrides.authorization } : {}) };
    const request = Object.assign(Object.create(req) as IncomingMessage, { headers, method: 'GET' });
    const ctx = app.createContext(request, new ServerResponse(request));
    const scope = new RequestScope(deps.container);
    ctx.state.scope = scope;
    ctx.state.logger = deps.logger;
    try {
      return (await stages().resolveWith(ctx)).identity;
    } finally {
      await scope.dispose();
    }
  };
}
