import { AuthenticationRequiredError, ForbiddenError, NotFoundError, hasPermission, type Identity } from '../../kernel/sdk.js';

/**
 * Private media need media:read in the item's tenant: another tenant's item is not revealed (404),
 * a guest is asked to sign in (401), a signed-in identity without the permission is refused (403).
 */
export function requirePrivateRead(identity: Identity, item: { tenant_id: string }): void {
  if (identity.tenantId !== item.tenant_id) throw new NotFoundError('No file at this address');
  if (identity.kind === 'guest') throw new AuthenticationRequiredError();
  if (!hasPermission(identity, 'media:read')) throw new ForbiddenError("This file is private: it needs the permission 'media:read'");
}
