// createClient: one instance, one identity. The identity is a website token or an API key (both sent as
// `Authorization: Bearer …`), or the session of login(): in a browser the session cookie the browser keeps (same
// origin: the kernel refuses unsafe requests a browser marks as cross-site, CSRF_REJECTED, and there is no CSRF
// token to send), elsewhere the cookie the client keeps itself. Without either, calls are a guest's (public
// collections).
import { UNENVELOPED_ROUTES } from './api-types.gen.js';
import { collectionClient, type CollectionClient } from './content.js';
import { CmsError } from './errors.js';
import { routePath, type CallArgs, type RawCallInput, type RouteKey, type RouteResponse } from './routes.js';
import { Transport, type RequestOptions, type TransportOptions } from './transport.js';
import type { CollectionName, TypeMap, UntypedMap } from './types.js';

export interface ClientOptions extends TransportOptions {
  /** An API key (`sck_…`); the same as `token` (both are bearer credentials). */
  apiKey?: string;
  /** The locale of reads and writes when a call names none (default: the instance's default locale). */
  locale?: string;
}

/** The answer of login(): the signed-in user, or the second step when the account has two-factor sign-in. */
export type LoginResult = RouteResponse<'POST /api/user/login'>;

/** A GraphQL answer's error (with `extensions.code`, the stable code). */
export interface GraphQLErrorItem {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; [key: string]: unknown };
}

export interface CmsClient<T extends TypeMap = UntypedMap> {
  /** The instance's address, as given (without a trailing slash). */
  readonly url: string;
  /** The bearer credential, if any (subscriptions send it in the connection parameters). */
  readonly token: string | undefined;
  /** Reads and writes the entries of a collection. */
  collection<N extends CollectionName<T>>(name: N): CollectionClient<T, N>;
  /** Calls a route of the OpenAPI document by its declaration, typed: `call('GET /api/user/me')`. */
  call<K extends RouteKey>(route: K, ...args: CallArgs<K>): Promise<RouteResponse<K>>;
  /** Any path of the API, untyped (a third-party plugin's route): resolves to `data` of the envelope. */
  request<R = unknown>(path: string, options?: RequestOptions): Promise<R>;
  /** A GraphQL query or mutation over HTTP (`POST /api/graphql`): resolves to `data`; errors throw CmsError. */
  graphql<D = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<D>;
  /** Signs in with email and password: the session is this client's from then on. */
  login(email: string, password: string): Promise<LoginResult>;
  /** The second step of a sign-in with two-factor: a TOTP or backup code (`success: false` when it is wrong). */
  verifyTwoFactor(userId: string, code: string): Promise<RouteResponse<'POST /api/auth/2fa/verify'>>;
  /** Ends the session (everywhere) and forgets its cookie. */
  logout(): Promise<void>;
  /** The signed-in user (or the token's): id, role, permissions. */
  me(): Promise<RouteResponse<'GET /api/user/me'>>;
  /**
   * Full-text search across the collections this identity may read (`GET /api/search`): words match as prefixes,
   * "quoted phrases" as they stand; the best matches of each collection, each item with `_highlight`.
   */
  search(q: string, options?: SearchOptions): Promise<SearchAnswer>;
}

export interface SearchOptions {
  /** Only these collections (default: every one this identity may read). */
  collections?: string[];
  /** Entries per collection (5; at most 50). */
  limit?: number;
  /** The locale whose values are searched and answered (default: the client's, else the instance's default). */
  locale?: string;
}

/** The answer of search(): per collection with matches, its total and its best matches. */
export interface SearchAnswer {
  q: string;
  results: Array<{
    collection: string;
    label: string;
    total: number;
    items: Array<Record<string, unknown> & { _id: string; _highlight?: Record<string, string> }>;
  }>;
}

/**
 * A client of one instance: `createClient<CmsTypes>({url, token})`, where CmsTypes comes from the instance's
 * `GET /api/types.ts` (or `cms types FILE`); without it the entries are typed loosely.
 */
export function createClient<T extends TypeMap = UntypedMap>(options: ClientOptions): CmsClient<T> {
  if (options?.token && options.apiKey && options.token !== options.apiKey) {
    throw new TypeError('createClient: give a token or an apiKey, not both');
  }
  const transport = new Transport({ ...options, token: options?.token ?? options?.apiKey });
  const locale = options.locale;
  const client: CmsClient<T> = {
    url: transport.base,
    token: transport.token,
    collection: (name) => collectionClient(transport, name, locale),
    call: (route, ...[input]) => {
      const { params, query, body, headers, signal } = (input ?? {}) as RawCallInput;
      return transport.request(routePath(route, params), {
        method: route.slice(0, route.indexOf(' ')),
        query,
        body,
        headers,
        signal,
        raw: UNENVELOPED_ROUTES.has(route),
      });
    },
    request: (path, requestOptions) => transport.request(path, requestOptions),
    graphql: async <D>(query: string, variables?: Record<string, unknown>, operationName?: string) => {
      const answer = await transport.request<{ data?: D | null; errors?: GraphQLErrorItem[] }>('/api/graphql', {
        method: 'POST',
        body: { query, variables, operationName },
        raw: true,
      });
      if (answer.errors?.length) throw graphqlError(answer.errors, answer.data);
      return answer.data as D;
    },
    login: async (email, password) => {
      if (transport.token) throw new TypeError('login(): this client signs in with its token already');
      return transport.request('/api/user/login', { method: 'POST', body: { email, password } });
    },
    verifyTwoFactor: (userId, code) => transport.request('/api/auth/2fa/verify', { method: 'POST', body: { userId, code }, raw: true }),
    logout: async () => {
      try {
        await transport.request('/api/user/logout', { method: 'POST' });
      } finally {
        transport.forgetSession();
      }
    },
    me: () => transport.request('/api/user/me'),
    search: (q, searchOptions = {}) => {
      const query: Record<string, string> = { q };
      if (searchOptions.collections) query.collections = searchOptions.collections.join(',');
      if (searchOptions.limit !== undefined) query.limit = String(searchOptions.limit);
      const inLocale = searchOptions.locale ?? locale;
      if (inLocale) query.locale = inLocale;
      return transport.request<SearchAnswer>('/api/search', { query });
    },
  };
  return client;
}

/** The CmsError for a GraphQL answer's errors: the first error's code and message, all of them in details. */
export function graphqlError(errors: readonly GraphQLErrorItem[], data?: unknown): CmsError {
  const first = errors[0]!;
  const code = typeof first.extensions?.code === 'string' ? first.extensions.code : 'INTERNAL_ERROR';
  const { code: _code, ...extra } = first.extensions ?? {};
  return new CmsError(code as 'INTERNAL_ERROR', first.message, 200, { ...extra, errors, data: data ?? null });
}
