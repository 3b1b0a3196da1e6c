import { ForbiddenError } from '../../kernel/errors.js';
import { isAdmin, type Identity } from '../../kernel/http/identity.js';

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

/** Nobody grants a role with more rights than they hold; only admins grant `admin` or act on admins. */
export function assertCanGrant(identity: Identity, role: string, rolePermissions: string[]): void {
  if (isAdmin(identity)) return;
  if (role === 'admin') throw new ForbiddenError('Only admins can grant the admin role');
  const missing = rolePermissions.filter((p) => !identity.permissions.includes(p));
  if (missing.length) throw new ForbiddenError(`The role '${role}' has permissions you do not hold: ${missing.join(', ')}`);
}

export function assertCanManage(identity: Identity, targetRole: string): void {
  if (targetRole === 'admin' && !isAdmin(identity))
    throw new ForbiddenError('Only admins can block, delete or change the role of an admin');
}
