import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import * as client from 'openid-client';
import { z } from 'zod';
import type { AuthSecrets } from '../auth/public.js';
import { OidcStateInvalidError } from './errors.js';

/** Binds a sign-in to the browser that started it: PKCE verifier, nonce and the state's random id. */
export const FLOW_COOKIE = 'oidc_flow';
const COOKIE_PATH = '/api/auth/oidc';
const LIFETIME_MS = 10 * 60 * 1000;

const stateSchema = z.object({ p: z.string(), t: z.string(), r: z.string(), e: z.number(), n: z.string() });
const cookieSchema = z.object({ n: z.string(), v: z.string(), o: z.string(), e: z.number() });

export interface Flow {
  state: string;
  tenantId: string;
  returnTo: string;
  verifier: string;
  nonce: string;
}

/** `<base64url JSON>.<HMAC-SHA256 of "<purpose>.<payload>">` */
async function seal(secrets: Pick<AuthSecrets, 'sign'>, purpose: string, value: object): Promise<string> {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${await secrets.sign(`${purpose}.${payload}`)}`;
}

/**
 * The payload when the signature matches character for character (compared as text, timing-safe: a
 * base64url decoder would accept a changed last character whose bits are padding).
 */
async function unseal<T>(secrets: Pick<AuthSecrets, 'sign'>, purpose: string, sealed: string, schema: z.ZodType<T>): Promise<T | null> {
  const parts = sealed.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  const expected = Buffer.from(await secrets.sign(`${purpose}.${parts[0]}`));
  const given = Buffer.from(parts[1]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Starts a sign-in: the signed state for the provider, and the signed flow cookie for this browser. */
export async function startFlow(
  ctx: Context,
  secrets: Pick<AuthSecrets, 'sign'>,
  input: { providerId: string; tenantId: string; returnTo: string },
) {
  const id = randomBytes(16).toString('base64url');
  const expires = Date.now() + LIFETIME_MS;
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = await seal(secrets, 'oidc-state', { p: input.providerId, t: input.tenantId, r: input.returnTo, e: expires, n: id });
  const cookie = await seal(secrets, 'oidc-flow', { n: id, v: verifier, o: nonce, e: expires });
  ctx.cookies.set(FLOW_COOKIE, cookie, {
    httpOnly: true,
    sameSite: 'lax',
    path: COOKIE_PATH,
    secure: ctx.secure,
    expires: new Date(expires),
    overwrite: true,
  });
  return { state, nonce, verifier };
}

/** The flow this callback belongs to: state signature, expiry, provider and this browser's cookie all check out. */
export async function finishFlow(
  ctx: Context,
  secrets: Pick<AuthSecrets, 'sign'>,
  state: string | undefined,
  providerId: string,
): Promise<Flow> {
  if (!state) throw new OidcStateInvalidError();
  const s = await unseal(secrets, 'oidc-state', state, stateSchema);
  const c = await unseal(secrets, 'oidc-flow', ctx.cookies.get(FLOW_COOKIE) ?? '', cookieSchema);
  const now = Date.now();
  if (!s || !c || s.p !== providerId || s.e <= now || c.e <= now || s.n !== c.n) throw new OidcStateInvalidError();
  return { state, tenantId: s.t, returnTo: s.r, verifier: c.v, nonce: c.o };
}

export function clearFlow(ctx: Context): void {
  ctx.cookies.set(FLOW_COOKIE, null, { httpOnly: true, sameSite: 'lax', path: COOKIE_PATH, overwrite: true });
}
