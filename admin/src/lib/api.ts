// The API client: every page talks to the CMS only through these functions (same-origin, session cookie).
// Success bodies are `{success: true, data}` and resolve to `data`; errors throw ApiError with the
// API's `error` code, `message`, HTTP status and extras (retryAfterSeconds, issues, manualCommand).

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
          : `Request failed (HTTP ${status})`;
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
      redirect: 'manual',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, { message: 'The server cannot be reached. Check that the CMS is running.' });
  }
  // A redirect here means setup is incomplete (every path goes to /setup): not JSON.
  if (res.type === 'opaqueredirect') throw new ApiError(503, { error: 'SETUP_INCOMPLETE', message: 'Setup is not complete yet.' });
  const text = await res.text();
  let json: Record<string, any> = {};
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = { message: res.ok ? 'The server answered something that is not JSON.' : `Request failed (HTTP ${res.status})` };
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
    xhr.onerror = () => reject(new ApiError(0, { message: 'The upload was interrupted: the server cannot be reached.' }));
    xhr.onload = () => {
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(xhr.responseText || '{}');
      } catch {
        json = { message: `Upload failed (HTTP ${xhr.status})` };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(('data' in json ? json.data : json) as T);
      else reject(new ApiError(xhr.status, json, xhr.getResponseHeader('retry-after')));
    };
    xhr.send(form);
  });
}

/** "4 min 10 s" for a number of seconds. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const m = Math.floor(s / 60);
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return m ? `${m} min ${s % 60} s` : `${s} s`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes,
    i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 && i ? 1 : 0)} ${units[i]}`;
}

/** "3 min ago", "2 h ago", "5 d ago" or the date. */
export function ago(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 30 * 86400) return `${Math.floor(s / 86400)} d ago`;
  return new Date(iso).toLocaleDateString();
}
