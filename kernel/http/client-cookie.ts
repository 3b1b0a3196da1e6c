import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { setBrowserCookie } from './browser-cookie.js';

export const CLIENT_COOKIE = 'rl_client';
const LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface ClientCookieSecrets {
  rateLimitSecret?: string;
  jwtSecretKey?: string;
}

/** Until setup has written JWT_SECRET_KEY (and without RATE_LIMIT_SECRET): a key of this process only. */
const processKey = randomBytes(32).toString('hex');

/**
 * The spec's rule: the rate limiter cookie is signed with RATE_LIMIT_SECRET, falling back to the JWT key
 * plus a suffix, so it is never signed with the session signing secret itself. Read per request: setup
 * fills the secrets in at run time.
 */
export function clientCookieKey(secrets: ClientCookieSecrets): Buffer {
  const secret = secrets.rateLimitSecret || (secrets.jwtSecretKey ? `${secrets.jwtSecretKey}:rate-limit` : processKey);
  return createHash('sha256').update(secret).digest();
}

export function signClientId(id: string, key: Buffer): string {
  return createHmac('sha256', key).update(`rate-limit.${id}`).digest('base64url');
}

/**
 * The id of the request's client cookie when it is present and its signature is valid, otherwise null;
 * never sets a cookie (the account lockout reads it this way: a missing or forged cookie falls back to the IP).
 */
export function verifiedClientId(ctx: Context, secrets: ClientCookieSecrets, key = clientCookieKey(secrets)): string | null {
  const [id, signature] = (ctx.cookies.get(CLIENT_COOKIE) ?? '').split('.');
  if (id && signature && /^[A-Za-z0-9_-]{22}$/.test(id)) {
    // The text is compared, not the decoded bytes: a changed padding character must not pass.
    const expected = Buffer.from(signClientId(id, key), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return id;
  }
  return null;
}

/**
 * The rate limiter's client cookie: a random id and its HMAC-SHA256 signature. Routes that declare a
 * per-client limit count each browser under its id as well as under its IP, so clients behind one NAT
 * do not use up one another's tries; a cookie that is missing, forged or signed with another key is
 * replaced by a fresh one (dropping it gains nothing: the IP limit still counts).
 */
export function clientIdOf(ctx: Context, secrets: ClientCookieSecrets): string {
  const key = clientCookieKey(secrets);
  const valid = verifiedClientId(ctx, secrets, key);
  if (valid) return valid;
  const fresh = randomBytes(16).toString('base64url');
  setBrowserCookie(ctx, CLIENT_COOKIE, `${fresh}.${signClientId(fresh, key)}`, Date.now() + LIFETIME_MS);
  return fresh;
}
