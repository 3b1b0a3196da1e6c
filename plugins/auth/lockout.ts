import type { Context } from 'koa';
import { verifiedClientId, type ClientCookieSecrets } from '../../kernel/http/client-cookie.js';
import type { AuthSecrets } from './secrets.js';

/**
 * Which client a failed sign-in comes from, for the per-client lockout (users-service.ts): the browser's
 * signed rate-limit cookie (`rl_client`) when it is present and valid, otherwise the client IP as the
 * kernel resolves it (X-Forwarded-For / X-Real-IP only behind a trusted proxy). Only a keyed hash is
 * ever stored (HMAC-SHA256 under the auth plugin's reauth key: JWT_SECRET_KEY, or the random key in
 * auth_secrets shared by every instance on the database), never the address or the cookie id itself,
 * whatever AUDIT_IP_MODE says: nobody without the server's key can test a guessed address against it.
 */
export interface LockoutClient {
  /** The keyed hash stored in auth_login_failures.client_hash (43 characters, base64url). */
  hash: string;
  /** What identified the client (for the audit trail; the value itself is never recorded). */
  kind: 'cookie' | 'ip';
}

/** The client's address: the socket's, or X-Forwarded-For / X-Real-IP only behind a trusted proxy (http.trustProxy). */
export function clientIp(ctx: Context): string {
  if (ctx.app.proxy && !ctx.get('x-forwarded-for') && ctx.get('x-real-ip')) return ctx.get('x-real-ip');
  return ctx.ip;
}

export async function lockoutClient(
  ctx: Context,
  scope: { authSecrets: AuthSecrets; config?: { secrets: ClientCookieSecrets } },
): Promise<LockoutClient> {
  const id = verifiedClientId(ctx, scope.config?.secrets ?? {});
  const kind = id ? 'cookie' : 'ip';
  return { kind, hash: await scope.authSecrets.sign(`lockout-client.${kind}:${id ?? clientIp(ctx)}`) };
}
