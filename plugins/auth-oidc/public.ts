/**
 * The auth-oidc plugin's public surface (type-only): declares its container keys, so
 * `scope.identityProviders`, `scope.oidcClients` and `scope.oidcLinks` are typed in route handlers.
 */
import type { IdentityLinks } from './identity-links.js';
import type { IdentityProviders } from './identity-providers.js';
import type { OidcClients } from './oidc-clients.js';

export type { IdentityLinks } from './identity-links.js';
export type { IdentityProviders } from './identity-providers.js';
export type { OidcClients } from './oidc-clients.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    /** Optional for other plugins: absent when auth-oidc is disabled (the auth plugin's provider list). */
    identityProviders?: IdentityProviders;
    oidcClients: OidcClients;
    oidcLinks: IdentityLinks;
  }
}
