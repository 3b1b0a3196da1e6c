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
