import { ForbiddenError } from '../errors.js';
import { assertPermission, inInstallationTenant, isAdmin, isInstallationAdmin, type Identity } from './identity.js';
import type { NamespaceMap } from './namespaces.js';

/**
 * The namespace gate, before routing: an /api namespace that no manifest maps for this method is
 * refused with 403 for everyone but admins (fail closed), so an unmapped route leaks nothing.
 */
export function checkNamespace(namespaces: NamespaceMap, identity: Identity, namespace: string | null, method: string): string | undefined {
  if (namespace === null) return undefined;
  const permission = namespaces.permissionFor(namespace, method);
  if (permission === undefined && !isAdmin(identity)) {
    throw new ForbiddenError(`No permission is mapped for ${method} on /api/${namespace} (access denied by default)`);
  }
  return permission;
}

/**
 * After routing: a route declared public is open; otherwise the identity needs the namespace's
 * permission for the method and the route's own permission. Admins pass every check. `scope` (the
 * value of the route's permissionScope parameter) lets `<permission>:<scope>` stand for either.
 */
export function checkRoute(identity: Identity, routePermission: string, namespacePermission: string | undefined, scope?: string): void {
  if (routePermission === 'public') return;
  if (namespacePermission) assertPermission(identity, namespacePermission, scope);
  assertPermission(identity, routePermission, scope);
}

/**
 * After checkRoute, for a route declared `installation` (an operation on the whole installation): the
 * identity must belong to the installation's tenant ('tenant') or be an installation administrator
 * ('admin'); another tenant's admin is refused like anyone else.
 */
export function checkInstallation(identity: Identity, installation: 'tenant' | 'admin' | undefined): void {
  if (!installation) return;
  if (installation === 'admin' ? isInstallationAdmin(identity) : inInstallationTenant(identity)) return;
  throw new ForbiddenError(
    installation === 'admin'
      ? "Only the installation's administrators (admins of the default tenant) may do this"
      : "This acts on the whole installation: only the installation's own tenant (the default one) may use it",
  );
}
