import type { Context } from 'koa';
import { clearBrowserCookie, setBrowserCookie } from '../../kernel/sdk.js';
import type { AuthSecrets } from '../auth/public.js';

export const CHALLENGE_COOKIE = 'passkey_challenge';

const purpose = (id: string) => `passkey-challenge.${id}`;

/** Binds a sign-in challenge to this browser: its id, signed, in an httpOnly SameSite=Lax cookie. */
export async function setChallengeCookie(
  ctx: Context,
  secrets: Pick<AuthSecrets, 'sign' | 'verifySignature'>,
  id: string,
  expiresAt: number,
): Promise<void> {
  setBrowserCookie(ctx, CHALLENGE_COOKIE, `${id}.${await secrets.sign(purpose(id))}`, expiresAt);
}

/** The challenge id of this browser's cookie when its signature holds, otherwise null. */
export async function readChallengeCookie(ctx: Context, secrets: Pick<AuthSecrets, 'sign' | 'verifySignature'>): Promise<string | null> {
  const value = ctx.cookies.get(CHALLENGE_COOKIE) ?? '';
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return null;
  const id = value.slice(0, dot);
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  return (await secrets.verifySignature(purpose(id), value.slice(dot + 1))) ? id : null;
}

export function clearChallengeCookie(ctx: Context): void {
  clearBrowserCookie(ctx, CHALLENGE_COOKIE);
}
