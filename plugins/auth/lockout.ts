import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { setBrowserCookie } from '../../kernel/sdk.js';
import type { AuthSecrets } from './secrets.js';
import { UNKNOWN_CLIENTS } from './users-service.js';

/**
 * Which client a sign-in attempt comes from, for the lockout (users-service.ts), following OWASP's
 * device cookies: a client that completed a sign-in to the account before holds a device cookie bound
 * to that account (HMAC-SHA256 under the installation's key: JWT_SECRET_KEY, or the random key in
 * auth_secrets shared by every instance), and its failures count on their own. Every other client
 * (no cookie, a forged one, one of another account) is an unknown client: together they share the
 * spec's count of the account, so an attacker without the owner's cookie can lock out unknown clients
 * only, never the owner on their device. Only a keyed hash of the device id is stored.
 */
export interface LockoutClient {
  /** UNKNOWN_CLIENTS, or the keyed hash stored in auth_login_failures.client_hash (43 characters, base64url). */
  hash: string;
  /** What identified the client (for the audit trail; the value itself is never recorded). */
  kind: 'device' | 'unknown';
}

const DEVICE_LIFETIME_MS = 180 * 24 * 3600 * 1000;

/** The client's address: the socket's, or X-Forwarded-For / X-Real-IP only behind a trusted proxy (http.trustProxy). */
export function clientIp(ctx: Context): string {
  if (ctx.app.proxy && !ctx.get('x-forwarded-for') && ctx.get('x-real-ip')) return ctx.get('x-real-ip');
  return ctx.ip;
}

/** One cookie per account that signed in on this browser: `device_<12 hex of SHA-256(user id)>`. */
export function deviceCookieName(userId: string): string {
  return `device_${createHash('sha256').update(userId).digest('hex').slice(0, 12)}`;
}

/** The device id of this browser for the account, if its device cookie is present and its signature valid. */
async function verifiedDevice(ctx: Context, secrets: AuthSecrets, userId: string): Promise<string | null> {
  const [deviceId, signature] = (ctx.cookies.get(deviceCookieName(userId)) ?? '').split('.');
  if (!deviceId || !signature || !/^[A-Za-z0-9_-]{22}$/.test(deviceId)) return null;
  return (await secrets.verifySignature(`device.${userId}.${deviceId}`, signature)) ? deviceId : null;
}

/** Sets (or renews) the device cookie after a completed sign-in of `userId` on this client. */
export async function issueDeviceCookie(ctx: Context, secrets: AuthSecrets, userId: string): Promise<void> {
  const deviceId = (await verifiedDevice(ctx, secrets, userId)) ?? randomBytes(16).toString('base64url');
  const signature = await secrets.sign(`device.${userId}.${deviceId}`);
  setBrowserCookie(ctx, deviceCookieName(userId), `${deviceId}.${signature}`, Date.now() + DEVICE_LIFETIME_MS, '/api/');
}

/** The lockout client of a request for the account `userId` (null: an email with no account; always unknown). */
export async function lockoutClient(ctx: Context, scope: { authSecrets: AuthSecrets }, userId: string | null): Promise<LockoutClient> {
  const deviceId = userId ? await verifiedDevice(ctx, scope.authSecrets, userId) : null;
  if (!deviceId) return { kind: 'unknown', hash: UNKNOWN_CLIENTS };
  return { kind: 'device', hash: await scope.authSecrets.sign(`lockout-device.${userId}.${deviceId}`) };
}
