import { ForbiddenError, isAdmin, type Identity } from '../../kernel/sdk.js';
import type { Context } from 'koa';
import type { SessionsService } from './sessions-service.js';

/**
 * Personal account and credential management (sessions, re-authentication, keys, tokens, attributes)
 * needs a person signed in with a session: an API key or a website token may not mint, list or revoke
 * credentials, nor read the account's sessions.
 */
export function requireSession(identity: Identity): void {
  if (typeof identity.meta?.sessionHash !== 'string') {
    throw new ForbiddenError('This needs a signed-in session; API keys and website tokens cannot manage accounts or credentials');
  }
}

/**
 * Nobody grants a role with more rights than they hold; only admins grant `admin` or act on admins. A
 * permission's grant for one resource (`content:read:posts`) is theirs to give when they hold it or the
 * permission itself.
 */
export function assertCanGrant(identity: Identity, role: string, rolePermissions: string[]): void {
  if (isAdmin(identity)) return;
  if (role === 'admin') throw new ForbiddenError('Only admins can grant the admin role');
  const holds = (p: string) => identity.permissions.includes(p) || identity.permissions.includes(p.split(':').slice(0, 2).join(':'));
  const missing = rolePermissions.filter((p) => !holds(p));
  if (missing.length) throw new ForbiddenError(`The role '${role}' has permissions you do not hold: ${missing.join(', ')}`);
}

export function assertCanManage(identity: Identity, targetRole: string): void {
  if (targetRole === 'admin' && !isAdmin(identity))
    throw new ForbiddenError('Only admins can block, delete or change the role of an admin');
}

/**
 * Sudo mode for a route (README "Re-authentication"): the caller's session proved its password within
 * CMS_REAUTH_WINDOW_SECONDS, or the request carries a fresh X-Reauth-Proof; else 403 REAUTH_REQUIRED.
 * Without a session (API key, website token) 403 FORBIDDEN unless `bearers: 'pass'` (invitations, which
 * an API key holding user:manage may issue: the key itself was created in sudo mode).
 */
export async function requireSudo(
  route: { ctx: Context; identity: Identity; scope: { sessions: SessionsService } },
  options: { bearers?: 'refuse' | 'pass' } = {},
): Promise<void> {
  if (options.bearers === 'pass' && typeof route.identity.meta?.sessionHash !== 'string') return;
  await route.scope.sessions.requireRecentPassword(route.identity, route.ctx.get('x-reauth-proof') || undefined);
}
