/** Who is calling. Resolved once per request by the identity resolvers; guest when none matches. */
export interface Identity {
  kind: 'guest' | 'user' | 'apiKey' | 'websiteToken';
  userId: string | null;
  role: string;
  permissions: string[];
  tenantId: string;
  /** Resolver-specific extras (session id, key id...). Never credential material. */
  meta?: Record<string, unknown>;
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

/** Admins bypass permission checks; everyone else needs the named permission. */
export function hasPermission(identity: Identity, permission: string): boolean {
  return isAdmin(identity) || identity.permissions.includes(permission);
}

/**
 * `permission` itself, or its grant for one resource: `<permission>:<scope>` (e.g. content:read:posts,
 * the guest role's public read of one collection). Routes opt in with `permissionScope`.
 */
export function hasScopedPermission(identity: Identity, permission: string, scope: string | undefined): boolean {
  return hasPermission(identity, permission) || (scope !== undefined && identity.permissions.includes(`${permission}:${scope}`));
}
