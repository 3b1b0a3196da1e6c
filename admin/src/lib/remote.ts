// Typed remote functions: every call names its route as declared on the server ("METHOD /path"), and
// the params, query, body and the answer are typed from admin/src/lib/api-types.gen.ts (generated from
// the route declarations by scripts/gen-admin-api-types.mjs). A changed route breaks `npm run typecheck`
// here instead of a page at run time. Requests go through api.ts's request(), so errors are the same
// ApiError (code, message, status, issues) and a 401 still calls the unauthenticated handler.
import { request, upload, type RequestOptions } from './api';
import { UNENVELOPED_ROUTES, type ApiRoutes } from './api-types.gen';

export type { ApiErrorCode, ApiRoutes, ApiSchemas } from './api-types.gen';

export type RouteKey = keyof ApiRoutes;
export type RouteParams<K extends RouteKey> = ApiRoutes[K]['params'];
export type RouteQuery<K extends RouteKey> = ApiRoutes[K]['query'];
export type RouteBody<K extends RouteKey> = ApiRoutes[K]['body'];
/** What remote() resolves to: `data` of the success envelope (the whole body for unenveloped routes). */
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

/** The input of a route: its params, query and body, plus request options (headers, signal). */
export type RemoteInput<K extends RouteKey> = Part<'params', RouteParams<K>> &
  Part<'query', RouteQuery<K>> &
  Part<'body', RouteBody<K>, true> &
  Pick<RequestOptions, 'headers' | 'signal'>;

/** `[input?]` when every part is optional (or the route takes none), `[input]` otherwise. */
type InputArgs<K extends RouteKey> = {} extends RemoteInput<K> ? [input?: RemoteInput<K>] : [input: RemoteInput<K>];

/**
 * The address of a route: `:name` takes params.name (encoded), `*name` the rest of the path (each
 * segment encoded). A missing param throws at once (a programming error, never a request to a wrong URL).
 */
export function routePath(route: RouteKey, params: Record<string, string | number> = {}): string {
  const path = route.slice(route.indexOf(' ') + 1);
  return path.replace(/([:*])(\w+)/g, (_, kind: string, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new Error(`remote(${route}): params.${name} is missing`);
    return kind === ':' ? encodeURIComponent(String(value)) : String(value).split('/').map(encodeURIComponent).join('/');
  });
}

/** The input as request() takes it (the typed shapes are checked at the call). */
interface RawInput {
  params?: Record<string, string | number>;
  query?: RequestOptions['query'];
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}
const methodOf = (route: RouteKey) => route.slice(0, route.indexOf(' '));

/** Calls a route by its declaration, e.g. `remote('GET /api/collections/:collection', {params: {collection}, query: {page}})`. */
export function remote<K extends RouteKey>(route: K, ...[input]: InputArgs<K>): Promise<RouteResponse<K>> {
  const { params, query, body, headers, signal } = (input ?? {}) as RawInput;
  return request<RouteResponse<K>>(routePath(route, params), {
    method: methodOf(route),
    query,
    body,
    headers,
    signal,
    raw: UNENVELOPED_ROUTES.has(route),
  });
}

/** The whole success body: the route's declared `answer`, else the envelope around its response. */
export type RouteAnswer<K extends RouteKey> = ApiRoutes[K] extends { answer: infer A } ? A : { success: true; data: RouteResponse<K> };

/**
 * Like remote(), resolving to the whole success body instead of `data`: for the routes that put more
 * beside `data` (e.g. POST /api/theme/import-preset answers {success, data, warnings}).
 */
export function remoteAnswer<K extends RouteKey>(route: K, ...[input]: InputArgs<K>): Promise<RouteAnswer<K>> {
  const { params, query, body, headers, signal } = (input ?? {}) as RawInput;
  return request<RouteAnswer<K>>(routePath(route, params), { method: methodOf(route), query, body, headers, signal, raw: true });
}

/** Routes whose body is multipart/form-data (uploads). */
type UploadRoute = { [K in RouteKey]: RouteBody<K> extends FormData ? (K extends `POST ${string}` ? K : never) : never }[RouteKey];

/** An upload with progress (0..1) to a multipart route: XMLHttpRequest, the same ApiError on failure. */
export function remoteUpload<K extends UploadRoute>(
  route: K,
  form: FormData,
  onProgress?: (fraction: number) => void,
  params?: RouteParams<K> & Record<string, string | number>,
): Promise<RouteResponse<K>> {
  return upload<RouteResponse<K>>(routePath(route, params), form, onProgress);
}

/** Named helpers for the calls the built-in pages make most. */
export const remoteApi = {
  collections: {
    list: () => remote('GET /api/collections'),
    schema: (collection: string) => remote('GET /api/collections/:collection/schema', { params: { collection } }),
  },
  content: {
    list: ({ collection, ...query }: { collection: string } & NonNullable<RouteQuery<'GET /api/collections/:collection'>>) =>
      remote('GET /api/collections/:collection', { params: { collection }, query }),
    get: (collection: string, entryId: string) => remote('GET /api/collections/:collection/:entryId', { params: { collection, entryId } }),
    create: (collection: string, body: RouteBody<'POST /api/collections/:collection'>) =>
      remote('POST /api/collections/:collection', { params: { collection }, body }),
    update: (collection: string, entryId: string, body: RouteBody<'PATCH /api/collections/:collection/:entryId'>) =>
      remote('PATCH /api/collections/:collection/:entryId', { params: { collection, entryId }, body }),
    remove: (collection: string, entryId: string) =>
      remote('DELETE /api/collections/:collection/:entryId', { params: { collection, entryId } }),
  },
};
