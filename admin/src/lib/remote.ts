// Typed remote functions: every call names its route as declared on the server ("METHOD /path"), and
// the params, query, body and the answer are typed from admin/src/lib/api-types.gen.ts (generated from
// the route declarations by scripts/gen-admin-api-types.mjs). A changed route breaks `npm run typecheck`
// here instead of a page at run time. This is the admin's one API client: every request goes through
// request() below (same-origin, session cookie). Success bodies are `{success: true, data}` and resolve
// to `data`; errors throw ApiError with the API's `error` code, `message`, HTTP status and extras
// (retryAfterSeconds, issues, manualCommand); a 401 calls the unauthenticated handler, a 403
// REAUTH_REQUIRED the re-authentication handler.
import { t } from '../i18n/index.svelte';
import { UNENVELOPED_ROUTES, type ApiRoutes } from './api-types.gen';

export type { ApiErrorCode, ApiRoutes, ApiSchemas } from './api-types.gen';

export interface ApiIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfterSeconds?: number;
  readonly issues: ApiIssue[];
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>, retryAfterHeader?: string | null) {
    const message =
      typeof body.message === 'string'
        ? body.message
        : typeof body.error === 'string' && body.code
          ? body.error // setup form actions' shape
          : t('errors.requestFailed', { status });
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code =
      typeof body.error === 'string' && /^[A-Z0-9_]+$/.test(body.error)
        ? body.error
        : typeof body.code === 'string'
          ? body.code
          : status === 0
            ? 'NETWORK_ERROR'
            : `HTTP_${status}`;
    const retry = typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : Number(retryAfterHeader);
    if (Number.isFinite(retry) && retry > 0) this.retryAfterSeconds = retry;
    this.issues = Array.isArray(body.issues) ? (body.issues as ApiIssue[]) : [];
    this.body = body;
  }

  /** The message for a field (`body.email` or `email`), from VALIDATION_ERROR issues. */
  issueFor(field: string): string | undefined {
    return this.issues.find((i) => i.path === field || i.path === `body.${field}` || i.path.endsWith(`.${field}`))?.message;
  }
}

export interface RequestOptions {
  method?: string;
  /** JSON body (or FormData / Blob, sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Resolve to the whole JSON body instead of `data` (the 2FA endpoints' own shapes). */
  raw?: boolean;
  signal?: AbortSignal;
  /** The request outlives the page (fetch's keepalive): a page that closes still frees what it held. */
  keepalive?: boolean;
  /** Internal: this is the retry with a re-authentication proof (never asks twice). */
  reauthRetry?: boolean;
}

/** Called on a 401 from a signed-in page (session ended elsewhere): the shell sends the user to sign in. */
let onUnauthenticated: (() => void) | null = null;
export function setUnauthenticatedHandler(handler: (() => void) | null): void {
  onUnauthenticated = handler;
}

/**
 * Sudo mode: a route that needs a recent proof of the password answers 403 REAUTH_REQUIRED (the 2FA
 * routes: the X-Reauth-Required header). The handler (the ReauthDialog in App.svelte) asks for the
 * password, gets a proof from POST /api/user/sessions/reauth and resolves it (null: the user cancelled);
 * request() then repeats the call once with X-Reauth-Proof. `rejected` is the proof the refused call
 * carried (a cached one that no longer fits: ask again).
 */
type ReauthHandler = (rejected: string | null) => Promise<string | null>;
let onReauthRequired: ReauthHandler | null = null;
export function setReauthHandler(handler: ReauthHandler | null): void {
  onReauthRequired = handler;
}

export function url(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

export async function request<T = any>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData || options.body instanceof Blob) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(url(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
      keepalive: options.keepalive,
      redirect: 'manual',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, { message: t('errors.network') });
  }
  // A redirect here means setup is incomplete (every path goes to /setup): not JSON.
  if (res.type === 'opaqueredirect') throw new ApiError(503, { error: 'SETUP_INCOMPLETE', message: t('errors.setupIncomplete') });
  const text = await res.text();
  let json: Record<string, any> = {};
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = { message: res.ok ? t('errors.notJson') : t('errors.requestFailed', { status: res.status }) };
      if (res.ok) throw new ApiError(502, json);
    }
  }
  if (!res.ok) {
    const error = new ApiError(res.status, json, res.headers.get('retry-after'));
    const needsReauth = res.status === 403 && (error.code === 'REAUTH_REQUIRED' || res.headers.get('x-reauth-required') === '1');
    if (needsReauth && onReauthRequired && !options.reauthRetry) {
      const proof = await onReauthRequired(headers['x-reauth-proof'] ?? null);
      if (proof) return request<T>(path, { ...options, headers: { ...options.headers, 'x-reauth-proof': proof }, reauthRetry: true });
    }
    if (res.status === 401 && error.code === 'AUTHENTICATION_REQUIRED' && onUnauthenticated) onUnauthenticated();
    throw error;
  }
  if (options.raw) return json as T;
  return ('data' in json ? json.data : json) as T;
}

/**
 * The untyped client, for routes the admin cannot know when it is built: a widget's endpoint from the
 * widgets registry, and `ctx.api` of a third-party plugin's admin page (PluginPage.svelte). The built-in
 * pages call remote() instead (test/unit/admin-api-types.test.ts keeps it so).
 */
export const api = {
  get: <T = any>(path: string, query?: RequestOptions['query'], options: RequestOptions = {}) => request<T>(path, { ...options, query }),
  post: <T = any>(path: string, body?: unknown, options: RequestOptions = {}) => request<T>(path, { ...options, method: 'POST', body }),
  put: <T = any>(path: string, body?: unknown, options: RequestOptions = {}) => request<T>(path, { ...options, method: 'PUT', body }),
  patch: <T = any>(path: string, body?: unknown, options: RequestOptions = {}) => request<T>(path, { ...options, method: 'PATCH', body }),
  del: <T = any>(path: string, options: RequestOptions = {}) => request<T>(path, { ...options, method: 'DELETE' }),
};

/**
 * Upload with progress (fetch has no upload progress): XMLHttpRequest, same error handling.
 * `onProgress` gets 0..1.
 */
export function upload<T = any>(path: string, form: FormData, onProgress?: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, { message: t('errors.uploadInterrupted') }));
    xhr.onload = () => {
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(xhr.responseText || '{}');
      } catch {
        json = { message: t('errors.uploadFailed', { status: xhr.status }) };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(('data' in json ? json.data : json) as T);
      else reject(new ApiError(xhr.status, json, xhr.getResponseHeader('retry-after')));
    };
    xhr.send(form);
  });
}

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
  Pick<RequestOptions, 'headers' | 'signal' | 'keepalive'>;

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
  keepalive?: boolean;
}
const methodOf = (route: RouteKey) => route.slice(0, route.indexOf(' '));

/** Calls a route by its declaration, e.g. `remote('GET /api/collections/:collection', {params: {collection}, query: {page}})`. */
export function remote<K extends RouteKey>(route: K, ...[input]: InputArgs<K>): Promise<RouteResponse<K>> {
  const { params, query, body, headers, signal, keepalive } = (input ?? {}) as RawInput;
  return request<RouteResponse<K>>(routePath(route, params), {
    method: methodOf(route),
    query,
    body,
    headers,
    signal,
    keepalive,
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
