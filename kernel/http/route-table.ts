import type { RouteGate } from './gates.js';
import type { Context } from 'koa';
import type { z } from 'zod';
import { BootError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Identity } from './identity.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequestSchemas {
  query?: z.ZodType;
  params?: z.ZodType;
  body?: z.ZodType;
  /** The body may also come as an HTML form (application/x-www-form-urlencoded), not only as JSON. */
  form?: boolean;
  /**
   * A multipart/form-data body the handler streams itself (uploads): its fields, for the OpenAPI document
   * (the kernel does not read or validate it; files are `multipartFile`).
   */
  multipart?: z.ZodType;
  /**
   * The query is never refused for its characters: a parameter whose name or value holds control
   * characters or a lone surrogate is dropped (as if absent) instead of answering 400. For public
   * routes the spec says always answer 200 (GET /api/theme/public); the schema must tolerate absence.
   */
  tolerantQuery?: boolean;
}

/**
 * The services of the container by key, for typed `scope.<key>` in handlers. Empty here: each plugin
 * adds its own keys in its `public.ts` by declaration merging, e.g.
 * `declare module '../../kernel/http/route-table.js' { interface ContainerServices { importers: ImportersService } }`.
 */
export interface ContainerServices {}

export interface RouteContext<Q = any, P = any, B = any> {
  ctx: Context;
  query: Q;
  params: P;
  body: B;
  identity: Identity;
  requestId: string;
  logger: Logger;
  /** The request scope's cradle: services registered in the container, resolved for this request (typed for the keys plugins declare). */
  scope: ContainerServices & Record<string, any>;
}

export interface RouteDefinition {
  method: HttpMethod;
  /** Koa-router style path, e.g. /api/system/plugins/:id */
  path: string;
  /**
   * Required: `public` (anyone, by declaration), `authenticated` (any identity but the guest), or a
   * permission name such as `system:read`. The namespace's permission applies as well unless public.
   */
  permission: string;
  /**
   * A path parameter (e.g. `collection`) whose value scopes the permission: an identity holding
   * `<permission>:<value>` passes as if it held the permission (the namespace's too), for this route.
   */
  permissionScope?: string;
  /**
   * The route acts on the whole installation (every tenant's rows, server files): `'tenant'` lets only
   * identities of the installation's tenant (the default one) through, with the route's permissions;
   * `'admin'` only the installation's administrators (admins of the default tenant). Anyone else, a
   * tenant's own admin included, gets 403 FORBIDDEN. See isInstallationAdmin (kernel/http/identity.ts).
   */
  installation?: 'tenant' | 'admin';
  summary: string;
  description?: string;
  tags?: string[];
  /** Required: the query, params and body schemas (`{}` when the route takes no input). */
  request: RouteRequestSchemas;
  /** Schema of `data` in the success envelope (documentation; OpenAPI). */
  response?: z.ZodType;
  /** Success status when the handler does not set one. */
  status?: number;
  /**
   * false: the handler writes ctx.body itself in a shape the spec fixes (e.g. the 2FA endpoints);
   * otherwise the returned value becomes `{success: true, data}`.
   */
  envelope?: boolean;
  /**
   * Error body shape: the general envelope (default), `{message}` (the spec's 2FA endpoints), or the
   * setup form actions' `{success: false, error: <message>, code}`.
   */
  errorShape?: 'envelope' | 'message' | 'form';
  /**
   * The route's own limit per client IP, and optionally per browser (clientPoints, counted under the
   * signed rl_client cookie); false opts out.
   */
  rateLimit?: { points: number; durationSeconds: number; clientPoints?: number } | false;
  /**
   * A create route that honours the Idempotency-Key header: a retry with the same key, caller and
   * request replays the first 2xx answer instead of creating again (see kernel/http/idempotency.ts).
   */
  idempotent?: boolean;
  /**
   * The gates this route stays open through (kernel/http/gates.ts): `boot`, `setup`, `maintenance`,
   * `restore`. Each gate reads it from the matched route; nothing else lists paths. Not in OpenAPI.
   */
  openDuring?: readonly RouteGate[];
  /** The readiness probe: while the instance does not serve, the kernel answers it 503 NOT_READY itself. */
  readinessProbe?: boolean;
  handler(route: RouteContext): Promise<unknown> | unknown;
}

type Output<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;

/** A route whose handler's params, query and body are typed from its zod schemas. */
export type TypedRouteDefinition<S extends RouteRequestSchemas> = Omit<RouteDefinition, 'request' | 'handler'> & {
  request: S;
  handler(route: RouteContext<Output<S['query']>, Output<S['params']>, Output<S['body']>>): Promise<unknown> | unknown;
};

/**
 * Declares a route with types inferred from its request schemas: `params.collection` is a string
 * when the params schema says so, a body field has its schema's type, and `scope.<key>` is typed
 * for every key a plugin declared in ContainerServices. Returns a plain RouteDefinition.
 */
export function defineRoute<S extends RouteRequestSchemas>(route: TypedRouteDefinition<S>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export interface RegisteredRoute extends RouteDefinition {
  owner: string;
  /** /api/<namespace>/...; null for routes outside /api (pages, /files/), which only their permission guards. */
  namespace: string | null;
}

const PERMISSION = /^(public|authenticated|[a-z][a-z0-9-]*:[a-z][a-z0-9-]*)$/;

export function namespaceOf(path: string): string | null {
  const m = /^\/api\/([^/]+)/i.exec(path);
  return m ? m[1]!.toLowerCase() : null;
}

/** Every REST route, declared by plugins at register time; the router and OpenAPI read from it. */
export class RouteTable {
  private readonly routes: RegisteredRoute[] = [];

  add(route: RouteDefinition, owner: string): void {
    const where = `${route.method} ${route.path} (plugin '${owner}')`;
    if (!route.path?.startsWith('/')) throw new BootError(`Route ${where} must have a path starting with /`);
    if (typeof route.permission !== 'string' || !PERMISSION.test(route.permission)) {
      throw new BootError(`Route ${where} must declare a permission: public, authenticated, or a name like system:read`);
    }
    if (route.permissionScope !== undefined && !route.path.split('/').includes(`:${route.permissionScope}`))
      throw new BootError(`Route ${where}: permissionScope '${route.permissionScope}' is not one of its path parameters`);
    if (typeof route.handler !== 'function') throw new BootError(`Route ${where} has no handler`);
    if (!route.summary) throw new BootError(`Route ${where} needs a summary (it documents the OpenAPI operation)`);
    if (!route.request || typeof route.request !== 'object') {
      throw new BootError(`Route ${where} must declare its request schema (request: {} when it takes no input)`);
    }
    const namespace = namespaceOf(route.path);
    const clash = this.routes.find((r) => r.method === route.method && r.path === route.path);
    if (clash) throw new BootError(`Route ${where} is already declared by plugin '${clash.owner}'`);
    this.routes.push({ ...route, owner, namespace });
  }

  list(): readonly RegisteredRoute[] {
    return this.routes;
  }
}

/**
 * Wraps the handlers of the routes that `table` names by `METHOD /path` (e.g. `POST /api/theme/create`):
 * each becomes `wrap(handler, entry, route)`. For what is added around routes apart from their
 * definitions, such as the audit entries recorded once a route succeeded.
 */
export function wrapNamedRoutes<E>(
  routes: readonly RouteDefinition[],
  table: Readonly<Record<string, E>>,
  wrap: (handler: RouteDefinition['handler'], entry: E, route: RouteDefinition) => RouteDefinition['handler'],
): void {
  for (const route of routes) {
    const entry = table[`${route.method} ${route.path}`];
    if (entry !== undefined) route.handler = wrap(route.handler, entry, route);
  }
}
