import type { Context } from 'koa';
import { clearBrowserCookie, setBrowserCookie } from '../../kernel/sdk.js';
import type { EmailTokensService } from './email-tokens-service.js';
import type { User } from './models/user.js';
import type { AuthSecrets } from './secrets.js';

export const PENDING_COOKIE = '2fa_pending';
const LIFETIME_MS = 5 * 60 * 1000;

type PendingScope = { authSecrets: AuthSecrets; emailTokens: EmailTokensService };

/** A pending two-step sign-in read from this client's cookie. */
export interface PendingLogin {
  userId: string;
  /** The single-use token (its SHA-256 is stored in auth_tokens, kind `2fa-pending`). */
  token: string;
  /** The first factor was the password (the session then opens the sudo-mode window). */
  passwordProven: boolean;
}

/**
 * The two-step sign-in: after the first factor, a short-lived signed cookie binds the pending sign-in to
 * this client; POST /api/auth/2fa/verify from the same client then completes it. The cookie carries a
 * single-use token stored (as its SHA-256) in auth_tokens: completing the sign-in consumes it, so the
 * cookie is worth nothing afterwards on every instance, even if a copy of it survives.
 */
export async function issuePendingLogin(ctx: Context, scope: PendingScope, user: User, passwordProven: boolean): Promise<void> {
  const expires = Date.now() + LIFETIME_MS;
  const { token } = await scope.emailTokens.issue('2fa-pending', {
    email: user.email,
    tenantId: user.tenant_id,
    userId: user.id,
    ttlMs: LIFETIME_MS,
  });
  const proven = passwordProven ? '1' : '0';
  const signature = await scope.authSecrets.sign(`2fa.${user.id}.${expires}.${token}.${proven}`);
  setBrowserCookie(ctx, PENDING_COOKIE, `${user.id}.${expires}.${token}.${proven}.${signature}`, expires);
}

/** This client's pending sign-in, if its cookie is intact, not expired and not used yet. */
export async function readPendingLogin(ctx: Context, scope: PendingScope): Promise<PendingLogin | null> {
  const [userId, expiresText, token, proven, signature] = (ctx.cookies.get(PENDING_COOKIE) ?? '').split('.');
  const expires = Number(expiresText);
  if (!userId || !token || !proven || !signature || !Number.isFinite(expires) || expires <= Date.now()) return null;
  if (!(await scope.authSecrets.verifySignature(`2fa.${userId}.${expires}.${token}.${proven}`, signature))) return null;
  const row = await scope.emailTokens.peek('2fa-pending', token).catch(() => null);
  if (!row || row.user_id !== userId) return null;
  return { userId, token, passwordProven: proven === '1' };
}

/** Uses the pending sign-in up (once, atomically, on every instance); false when it was used already. */
export async function consumePendingLogin(scope: PendingScope, pending: PendingLogin): Promise<boolean> {
  return scope.emailTokens.claim('2fa-pending', pending.token).then(
    () => true,
    () => false,
  );
}

export function clearPendingLogin(ctx: Context): void {
  clearBrowserCookie(ctx, PENDING_COOKIE);
}
