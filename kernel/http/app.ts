import { ServerResponse, type IncomingMessage } from 'node:http';
import Koa, { type Context, type Next } from 'koa';
import compose from 'koa-compose';
import type { KernelContainer } from '../container.js';
import { MethodNotAllowedError, NotFoundError, ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { callerKey, type ReadRouting } from '../db/read-routing.js';
import type { IdentityResolver, Registries } from '../registries/index.js';
import { checkInstallation, checkNamespace, checkRoute } from './dispatcher.js';
import { assertSameOrigin, originOf } from './browser-security.js';
import { SerialisedEnvelope } from './envelope.js';
import type { HttpMetrics } from './http-metrics.js';
import { IdempotencyStore, runIdempotently } from './idempotency.js';
import { GUEST, type Identity } from './identity.js';
import type { NamespaceMap } from './namespaces.js';
import { kernelStage } from './kernel-stage.js';
import type { RateLimitOptions } from './rate-limit.js';
import { RequestScope } from './request-scope.js';
import { readInput, type RequestInput } from './request-input.js';
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

/** Resolves the identity of a raw request (the container key `identify`). */
export type IdentifyRequest = (req: IncomingMessage, overrides?: { authorization?: string }) => Promise<Identity>;

/**
 * Builds the Koa app with the spec's HTTP conventions, in this order: request id, version header
 * and /api/v1 rewrite -> CORS of the listed origins (only with CMS_CORS_ORIGINS; preflights answered
 * there) -> browser security headers (nosniff, HSTS, Cache-Control, Secure cookies) ->
 * error handler -> boot gate -> ETag -> route match -> rate limit (these kernel stages are one compiled
 * middleware: kernel-stage.ts) -> plugin middleware -> request scope + identity (+ the cross-origin check
 * of cookie sign-ins) -> plugin middleware -> dispatcher -> handler (the rest one composed chain, built on
 * the first request, when the registries are complete).
 */
export function buildApp(deps: AppDeps): Koa & { identify: IdentifyRequest } {
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: deps.proxyHops });
  app.silent = true;
  const stages = pluginStages(deps.registries);
  app.use(kernelStage(deps));
  let rest: compose.ComposedMiddleware<Context> | null = null;
  app.use((ctx, next) => {
    rest ??= compose([...stages().before, requestScope(deps, stages), ...stages().after, dispatch(deps)]);
    return rest(ctx, next);
  });
  return Object.assign(app, { identify: identifier(app, deps, stages) });
}

type Middleware = (ctx: Context, next: Next) => unknown;
type Resolved = { identity: Identity; ambient: boolean };

interface PluginStages {
  before: Middleware[];
  after: Middleware[];
  /**
   * The identity, and whether its credential was one the browser sends by itself (a cookie). Synchronous
   * when every resolver asked answered synchronously (a guest whose grants are held: no promise at all).
   */
  resolveWith(ctx: Context): Resolved | Promise<Resolved>;
}

const isPromise = <T>(value: unknown): value is Promise<T> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** Plugin middleware by stage and the identity resolvers: registries are complete before the first request, so built once then. */
function pluginStages(registries: Registries): () => PluginStages {
  let built: PluginStages | null = null;
  const stage = (name: 'beforeIdentity' | 'afterIdentity') =>
    registries.middleware
      .list()
      .filter((m) => m.stage === name)
      .map((m) => m.handler as Middleware);
  return () => {
    if (built) return built;
    const resolvers: IdentityResolver[] = registries.identityResolvers.list().sort((a, b) => a.priority - b.priority);
    const guest: Resolved = { identity: GUEST, ambient: false };
    // From resolver `from` on; `pending` is that resolver's answer on its way.
    const resolveFrom = async (ctx: Context, from: number, pending: Promise<Identity | null>): Promise<Resolved> => {
      const found = await pending;
      if (found) return { identity: found, ambient: resolvers[from]!.ambient === true };
      for (let i = from + 1; i < resolvers.length; i++) {
        const next = await resolvers[i]!.resolve(ctx);
        if (next) return { identity: next, ambient: resolvers[i]!.ambient === true };
      }
      return guest;
    };
    built = {
      before: stage('beforeIdentity'),
      after: stage('afterIdentity'),
      resolveWith(ctx) {
        for (let i = 0; i < resolvers.length; i++) {
          const found = resolvers[i]!.resolve(ctx);
          if (isPromise<Identity | null>(found)) return resolveFrom(ctx, i, found);
          if (found) return { identity: found, ambient: resolvers[i]!.ambient === true };
        }
        return guest;
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
      const resolving = stages().resolveWith(ctx);
      const { identity, ambient } = isPromise<Resolved>(resolving) ? await resolving : resolving;
      // Cross-site request forgery: a cookie sign-in's unsafe request from a page of another origin is refused.
      if (ambient) assertSameOrigin(ctx, publicOrigin);
      ctx.state.identity = identity;
      scope.identify(identity, ctx.state.requestId);
      await next();
    } finally {
      if (scope.made) await scope.dispose();
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
    const reading = readInput(ctx, route.request, params, deps.bodyLimit);
    const input = isPromise<RequestInput>(reading) ? await reading : reading;
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
