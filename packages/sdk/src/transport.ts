// The one way the client talks to the server: fetch, with the identity of the client's options (a bearer token,
// or the session cookie), JSON in and out, the success envelope `{success: true, data}` unwrapped and every error
// turned into a CmsError. No Node built-ins: fetch, Headers, URL and URLSearchParams are in every runtime (Node 20+,
// Deno, Bun, browsers, edge workers).
import { CmsError, errorFromBody } from './errors.js';

export type QueryValue = string | number | boolean | undefined | null;

export interface TransportOptions {
  /** The instance's address, e.g. `https://cms.example.com` (a path prefix is kept). */
  url: string;
  /** A website token or an API key (`sck_…`): sent as `Authorization: Bearer …`. */
  token?: string;
  /** fetch's `credentials` in a browser (fetch's default, `same-origin`, when not given; `include` across origins). */
  credentials?: RequestCredentials;
  /** Another fetch (a runtime's own, a test double, one with a proxy agent). */
  fetch?: typeof fetch;
  /** Headers sent with every request (e.g. a tenant's host header through a gateway). */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, QueryValue>;
  /** A JSON body (FormData and Blob are sent as they are). */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Resolve to the whole JSON body instead of `data` (routes without the envelope). */
  raw?: boolean;
}

/** The cookies the server set, for runtimes without a cookie jar (browsers keep their own: Set-Cookie is hidden there). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Takes the Set-Cookie headers of an answer (a cookie set to expire is removed). */
  take(headers: Headers): void {
    const list = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
    for (const line of list) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [k = '', v = ''] = a.split('=').map((s) => s.trim());
        if (/^max-age$/i.test(k)) return Number(v) <= 0;
        if (/^expires$/i.test(k)) return Date.parse(v) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else if (this.cookies.size < 50 || this.cookies.has(name)) this.cookies.set(name, value);
    }
  }

  header(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  clear(): void {
    this.cookies.clear();
  }
}

export class Transport {
  readonly base: string;
  readonly token: string | undefined;
  private readonly fetcher: typeof fetch;
  private readonly jar = new CookieJar();

  constructor(private readonly options: TransportOptions) {
    if (!options || typeof options.url !== 'string' || !/^https?:\/\//i.test(options.url)) {
      throw new TypeError('createClient: `url` must be the http(s) address of the instance');
    }
    this.base = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The address of a path of the API (`/api/...`) with a query string. */
  url(path: string, query?: Record<string, QueryValue>): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return `${this.base}${path}${qs ? `?${qs}` : ''}`;
  }

  /** The identity headers: the bearer token, else the session cookie the client holds (outside browsers). */
  identityHeaders(): Record<string, string> {
    if (this.token) return { authorization: `Bearer ${this.token}` };
    const cookie = this.jar.header();
    return cookie ? { cookie } : {};
  }

  forgetSession(): void {
    this.jar.clear();
  }

  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...this.identityHeaders() };
    let body: BodyInit | undefined;
    if (options.body instanceof FormData || options.body instanceof Blob) body = options.body;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    Object.assign(headers, options.headers);
    let res: Response;
    try {
      res = await this.fetcher(this.url(path, options.query), {
        method: options.method ?? 'GET',
        headers,
        body,
        // Only when asked: fetch's default is same-origin, and some edge runtimes refuse the field altogether.
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
        signal: options.signal,
        redirect: 'manual',
      });
    } catch (err) {
      if ((err as Error)?.name === 'AbortError') throw err;
      throw new CmsError('NETWORK_ERROR', `No answer from ${this.base}: ${(err as Error)?.message ?? err}`, 0, { cause: String(err) });
    }
    this.jar.take(res.headers);
    return this.answer<T>(res, options.raw === true);
  }

  private async answer<T>(res: Response, raw: boolean): Promise<T> {
    // Every path answers a redirect to /setup until setup is complete (a browser's fetch sees an opaque redirect).
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
      const to = res.headers.get('location') ?? '';
      if (res.type === 'opaqueredirect' || /\/setup(\?|$)/.test(to)) {
        throw new CmsError('SETUP_INCOMPLETE', 'The instance is not set up yet: finish the setup at /setup', 503);
      }
      throw new CmsError('INVALID_RESPONSE', `Unexpected redirect (HTTP ${res.status}) to ${to}`, res.status);
    }
    // A route that answers a file (GET /api/types.ts, a download): its text, or its bytes as a Blob.
    const type = res.headers.get('content-type') ?? '';
    if (res.ok && raw && type && !/[/+]json\b/i.test(type)) return (/^text\//i.test(type) ? await res.text() : await res.blob()) as T;
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      if (res.ok) throw new CmsError('INVALID_RESPONSE', `The answer is not JSON (HTTP ${res.status})`, res.status);
      json = {};
    }
    if (!res.ok) throw errorFromBody(res.status, json, res.headers);
    if (raw) return json as T;
    const envelope = json as { success?: unknown; data?: unknown };
    return (envelope && typeof envelope === 'object' && 'data' in envelope ? envelope.data : json) as T;
  }
}
