import type { Context, Next } from 'koa';
import { CsrfRejectedError } from '../errors.js';

export interface BrowserSecurityOptions {
  /** CMS_PUBLIC_URL: the address browsers use. When it is https, every cookie is Secure and HSTS is sent. */
  publicUrl?: string;
  /** Strict-Transport-Security max-age in seconds on HTTPS answers; 0 sends none. */
  hstsMaxAgeSeconds: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Headers of every answer, and the cookies' Secure flag:
 * - `X-Content-Type-Options: nosniff` on every answer;
 * - `Strict-Transport-Security: max-age=<hstsMaxAgeSeconds>` when the request came over HTTPS (as a
 *   trusted proxy reports it with X-Forwarded-Proto, CMS_TRUST_PROXY) or CMS_PUBLIC_URL is https;
 * - API answers (/api/...) that set no Cache-Control of their own: `no-store` for unsafe methods (new
 *   keys, tokens, 2FA secrets and backup codes are answers to POST), `private, no-cache` for GET and
 *   HEAD (kept by the browser only, revalidated each time: the ETag and its 304 still work);
 * - with an https CMS_PUBLIC_URL every cookie the instance sets is Secure, whatever the request's own
 *   scheme (a TLS proxy that does not say X-Forwarded-Proto); otherwise Secure follows the request.
 */
export function browserSecurity(options: BrowserSecurityOptions) {
  const headers = securityHeaders(options);
  return async function browserSecurityHeaders(ctx: Context, next: Next): Promise<void> {
    headers.before(ctx);
    try {
      await next();
    } finally {
      headers.after(ctx);
    }
  };
}

/** browserSecurity's work before and after the rest of the pipeline (the kernel's compiled stage calls them directly). */
export function securityHeaders(options: BrowserSecurityOptions): { before(ctx: Context): void; after(ctx: Context): void } {
  const httpsPublic = options.publicUrl ? new URL(options.publicUrl).protocol === 'https:' : false;
  const hsts = options.hstsMaxAgeSeconds > 0 ? `max-age=${options.hstsMaxAgeSeconds}` : null;
  return {
    before(ctx) {
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (hsts && (httpsPublic || ctx.secure)) ctx.set('Strict-Transport-Security', hsts);
      if (httpsPublic) forceSecureCookies(ctx);
    },
    after(ctx) {
      if (ctx.path.startsWith('/api/') && !ctx.response.get('Cache-Control')) {
        ctx.set('Cache-Control', SAFE_METHODS.has(ctx.method) ? 'private, no-cache' : 'no-store');
      }
    },
  };
}

/** Every cookie set on this request gets Secure (the cookies library refuses Secure on plain HTTP unless told). */
function forceSecureCookies(ctx: Context): void {
  const cookies = ctx.cookies as typeof ctx.cookies & { secure?: boolean };
  cookies.secure = true;
  const set = cookies.set.bind(cookies);
  cookies.set = (name, value, opts) => set(name, value, { ...opts, secure: true });
}

/** The origin this request was addressed to, as the browser saw it (through a trusted proxy: X-Forwarded-Proto/Host). */
function ownOrigin(ctx: Context): string | null {
  try {
    return new URL(`${ctx.protocol}://${ctx.host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Cross-site request forgery: an unsafe request (not GET, HEAD or OPTIONS) whose identity the browser
 * sent by itself (the session cookie) is refused with 403 CSRF_REJECTED when the browser says it comes
 * from another origin. `Sec-Fetch-Site` decides when present (`same-origin` and `none`, a typed address
 * or bookmark, pass; `same-site`, another port or subdomain, and `cross-site` do not); without it the
 * `Origin` must be the public URL's origin or the request's own (`Origin: null` never is). A request
 * with neither header (curl, scripts, server-side clients) passes: a browser always sends one of them
 * on a cross-origin unsafe request. Bearer tokens and API keys are never sent by a browser on its own,
 * so their requests are not checked.
 */
export function assertSameOrigin(ctx: Context, publicOrigin: string | null): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const site = ctx.get('sec-fetch-site').trim().toLowerCase();
  if (site) {
    if (site === 'same-origin' || site === 'none') return;
    throw new CsrfRejectedError(`a request from a page of another site (Sec-Fetch-Site: ${site.slice(0, 20)})`);
  }
  const origin = ctx.get('origin').trim();
  if (!origin) return;
  const given = originOf(origin);
  if (given && given !== 'null' && (given === publicOrigin || given === ownOrigin(ctx))) return;
  throw new CsrfRejectedError('a request from a page of another origin');
}

/** The origin of CMS_PUBLIC_URL, or null. */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
