import { hasRuleFor, scopeAllows, WRITE_ACTIONS, type AccessRule, type KeyScope } from '../access-rules.js';
import { AuthenticationRequiredError, ForbiddenError } from '../errors.js';
/** Who is calling. Resolved once per request by the identity resolvers; guest when none matches. */
export interface Identity {
  kind: 'guest' | 'user' | 'apiKey' | 'websiteToken';
  userId: string | null;
  role: string;
  permissions: string[];
  tenantId: string;
  /** Resolver-specific extras (session id, key id...). Never credential material. */
  meta?: Record<string, unknown>;
  /** The rules of the identity's role (kernel/access-rules.ts), put here by the auth plugin; none without. */
  rules?: readonly AccessRule[];
  /** An API key's scope: the collections and actions it may use (kernel/access-rules.ts); none: every one its permissions allow. */
  scope?: readonly KeyScope[];
}

export const GUEST: Readonly<Identity> = Object.freeze({
  kind: 'guest',
  userId: null,
  role: 'guest',
  permissions: [],
  tenantId: 'default',
});

export function isAdmin(identity: Identity): boolean {
  return identity.role === 'admin';
}

/**
 * The installation's own tenant: with MULTI_TENANT=true every other tenant is a customer of the
 * installation; without it every identity belongs to this one.
 */
export const INSTALLATION_TENANT = 'default';

/** Whether the identity belongs to the installation's tenant (the default one), not to another tenant. */
export function inInstallationTenant(identity: Identity): boolean {
  return identity.tenantId === INSTALLATION_TENANT;
}

/**
 * An installation administrator: the admin role in the installation's tenant (the default one). The
 * only identities that may run operations on the whole installation (backups, restores, system jobs):
 * the admin of another tenant is not one.
 */
export function isInstallationAdmin(identity: Identity): boolean {
  return isAdmin(identity) && inInstallationTenant(identity);
}

/** Admins bypass permission checks; everyone else needs the named permission. */
export function hasPermission(identity: Identity, permission: string): boolean {
  return isAdmin(identity) || identity.permissions.includes(permission);
}

/**
 * `permission` itself, or its grant for one resource: `<permission>:<scope>` (e.g. content:read:posts,
 * the guest role's public read of one collection). Routes opt in with `permissionScope`.
 */
export function hasScopedPermission(identity: Identity, permission: string, scope: string | undefined): boolean {
  // An API key's scope narrows content permissions to its collections and actions.
  if (identity.scope && scope !== undefined && (permission === 'content:read' || permission === 'content:write'))
    if (!scopeAllows(identity, scope, permission === 'content:read' ? ['read'] : WRITE_ACTIONS)) return false;
  if (hasPermission(identity, permission)) return true;
  if (scope === undefined) return false;
  if (identity.permissions.includes(`${permission}:${scope}`)) return true;
  // A rule of the role is a grant of its collection and action (kernel/access-rules.ts): the content routes then apply it.
  if (permission === 'content:read') return hasRuleFor(identity, scope, ['read']);
  if (permission === 'content:write') return hasRuleFor(identity, scope, WRITE_ACTIONS);
  return false;
}

/**
 * The one permission check of routes, GraphQL resolvers and in-process clients. `public` is open to
 * everyone and `authenticated` to any signed-in identity; any other permission needs hasScopedPermission
 * (`scope`: the route's permissionScope value). A guest without it is asked to sign in (401), anyone
 * else is refused (403).
 */
export function assertPermission(identity: Identity, permission: string, scope?: string): void {
  if (permission === 'public') return;
  if (permission !== 'authenticated' && hasScopedPermission(identity, permission, scope)) return;
  if (identity.kind === 'guest') throw new AuthenticationRequiredError();
  if (permission === 'authenticated') return;
  throw new ForbiddenError(`This needs the permission '${permission}'`);
}
