// Typed calls of the fixed routes: every route of the instance's OpenAPI document by "METHOD /path", its params,
// query, body and answer typed from the generated route map (the same file the admin UI is typed with,
// admin/src/lib/api-types.gen.ts, copied in at build). Types only, besides routePath.
import type { ApiRoutes } from './api-types.gen.js';
import type { QueryValue } from './transport.js';

export type { ApiRoutes, ApiSchemas } from './api-types.gen.js';

export type RouteKey = keyof ApiRoutes;
export type RouteParams<K extends RouteKey> = ApiRoutes[K]['params'];
export type RouteQuery<K extends RouteKey> = ApiRoutes[K]['query'];
export type RouteBody<K extends RouteKey> = ApiRoutes[K]['body'];
/** What call() resolves to: `data` of the success envelope (the whole body for routes without it). */
export type RouteResponse<K extends RouteKey> = ApiRoutes[K]['response'];

type IsNever<T> = [T] extends [never] ? true : false;
/** A part the route takes is required when it has a required member (a body always is). */
type Part<Name extends string, T, Always extends boolean = false> =
  IsNever<T> extends true
    ? { [P in Name]?: never }
    : Always extends true
      ? { [P in Name]: T }
      : {} extends T
        ? { [P in Name]?: T }
        : { [P in Name]: T };

/** The input of a route: its params, query and body, plus headers and an abort signal. */
export type CallInput<K extends RouteKey> = Part<'params', RouteParams<K>> &
  Part<'query', RouteQuery<K>> &
  Part<'body', RouteBody<K>, true> & { headers?: Record<string, string>; signal?: AbortSignal };

/** `[input?]` when every part is optional (or the route takes none), `[input]` otherwise. */
export type CallArgs<K extends RouteKey> = {} extends CallInput<K> ? [input?: CallInput<K>] : [input: CallInput<K>];

/** The loose input call() passes on (the typed shapes are checked at the call). */
export interface RawCallInput {
  params?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The address of a route: `:name` takes params.name (encoded), `*name` the rest of a path (each segment encoded). */
export function routePath(route: string, params: Record<string, string | number> = {}): string {
  const path = route.slice(route.indexOf(' ') + 1);
  return path.replace(/([:*])(\w+)/g, (_, kind: string, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`call(${route}): params.${name} is missing`);
    return kind === ':' ? encodeURIComponent(String(value)) : String(value).split('/').map(encodeURIComponent).join('/');
  });
}
