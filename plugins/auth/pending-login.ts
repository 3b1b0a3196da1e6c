import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { AuthSecrets } from './secrets.js';

export const PENDING_COOKIE = '2fa_pending';
const LIFETIME_MS = 5 * 60 * 1000;

/**
 * The two-step sign-in: after the password, a short-lived signed cookie binds the pending sign-in to
 * this client; POST /api/auth/2fa/verify from the same client then completes it.
 */
export async function issuePendingLogin(ctx: Context, secrets: AuthSecrets, userId: string): Promise<void> {
  const expires = Date.now() + LIFETIME_MS;
  const nonce = randomBytes(12).toString('base64url');
  const signature = await secrets.sign(`2fa.${userId}.${expires}.${nonce}`);
  ctx.cookies.set(PENDING_COOKIE, `${userId}.${expires}.${nonce}.${signature}`, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: ctx.secure,
    expires: new Date(expires),
    overwrite: true,
  });
}

/** The user id of this client's pending sign-in, if its cookie is intact and not expired. */
export async function readPendingLogin(ctx: Context, secrets: AuthSecrets): Promise<string | null> {
  const [userId, expiresText, nonce, signature] = (ctx.cookies.get(PENDING_COOKIE) ?? '').split('.');
  const expires = Number(expiresText);
  if (!userId || !nonce || !signature || !Number.isFinite(expires) || expires <= Date.now()) return null;
  return (await secrets.verifySignature(`2fa.${userId}.${expires}.${nonce}`, signature)) ? userId : null;
}

export function clearPendingLogin(ctx: Context): void {
  ctx.cookies.set(PENDING_COOKIE, null, { httpOnly: true, sameSite: 'lax', path: '/', overwrite: true });
}
