import { OidcProviderNotFoundError } from './errors.js';
import type { ProviderSettings } from './provider-settings.js';

export interface ProviderListing {
  id: string;
  displayName: string;
  type: 'oidc';
  active: boolean;
  startUrl: string | null;
}

/**
 * The providers this instance knows (registered as the container key `identityProviders`, read by
 * the auth plugin's GET /api/get-tokens-provided), and the redirect URI each one is registered with.
 */
export class IdentityProviders {
  constructor(
    private readonly providers: ProviderSettings[],
    /** The public address, computed when asked (CMS_PUBLIC_URL, the option, or host and port). */
    private readonly publicUrl: () => string,
  ) {}

  async list(): Promise<ProviderListing[]> {
    return this.providers.map((p) => ({
      id: p.id, displayName: p.displayName, type: 'oidc' as const, active: p.active, startUrl: p.active ? `/api/auth/oidc/${p.id}/start` : null,
    }));
  }

  /** An active provider, or 404 OIDC_PROVIDER_NOT_FOUND. */
  active(id: string): ProviderSettings {
    const found = this.providers.find((p) => p.id === id && p.active);
    if (!found) throw new OidcProviderNotFoundError(id);
    return found;
  }

  redirectUri(id: string): string {
    return `${this.publicUrl().replace(/\/+$/, '')}/api/auth/oidc/${id}/callback`;
  }
}
