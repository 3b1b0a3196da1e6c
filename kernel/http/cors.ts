import cors from '@koa/cors';
import type { Context, Next } from 'koa';

/**
 * Cross-origin calls of the API from the pages of listed origins (CMS_CORS_ORIGINS, `http.corsOrigins`), for the client
 * SDK in a browser with a website token or API key. Off when the list is empty: no CORS header at all.
 *
 * - Only `/api/...` paths, and not the cookie session's own ceremonies (sign-in and sign-out, registration, password
 *   resets, magic links, the session list, 2FA, identity providers, passkeys, setup): those are for the instance's own
 *   pages, and a bearer credential has no use there.
 * - Only an `Origin` that is exactly one of the list (scheme, host and port); any other gets no CORS header, so the
 *   browser keeps the answer from the page.
 * - `Access-Control-Allow-Credentials` is never sent: a browser then never sends (nor keeps) the session cookie on a
 *   cross-origin call whose answer the page may read, and a preflighted request with credentials fails. Cookie
 *   sign-ins stay same-origin, and the CSRF check of unsafe requests signed in by the cookie (browser-security.ts)
 *   is unchanged: CORS only lets a page read answers, it never lets a request through that was refused before.
 * - Preflights (OPTIONS with Access-Control-Request-Method) are answered 204 here, with the methods and headers a
 *   client sends (Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id), kept 10 minutes.
 * - The answer headers a page may read besides the always-readable ones: ETag, Retry-After, X-Request-Id (the SDK's
 *   CmsError reads the last two), Location, X-API-Version, Idempotent-Replayed, Content-Disposition.
 */
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'];
export const CORS_EXPOSE_HEADERS = [
  'ETag',
  'Retry-After',
  'X-Request-Id',
  'Location',
  'X-API-Version',
  'Idempotent-Replayed',
  'Content-Disposition',
];
export const CORS_MAX_AGE_SECONDS = 600;

/** The paths of the cookie session's ceremonies (and setup): never answered with CORS headers. */
const SESSION_PATHS =
  /^\/api\/(user\/(login|logout|register|forgot-password|reset-password|magic-link|sessions)(\/|$)|auth(\/|$)|setup(\/|$))/;

/** Whether CORS applies to a (canonical) path: the API, but not the session's ceremonies. */
export const corsApplies = (path: string): boolean => path.startsWith('/api/') && !SESSION_PATHS.test(path);

/** The CORS middleware for `origins`, or null when the list is empty (nothing is mounted). Needs the canonical path. */
export function corsFor(origins: readonly string[]): ((ctx: Context, next: Next) => Promise<void>) | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const handler = cors({
    origin: (ctx) => (allowed.has(ctx.get('origin')) ? ctx.get('origin') : ''),
    credentials: false,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    keepHeadersOnError: true,
    secureContext: false,
    privateNetworkAccess: false,
  });
  return async function corsForListedOrigins(ctx: Context, next: Next): Promise<void> {
    if (!corsApplies(ctx.path)) return next();
    return handler(ctx, next) as Promise<void>;
  };
}
