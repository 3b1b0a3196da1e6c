import { SETTING_CHANGED, type BusEvent, type Followed, type PluginBootContext, type SettingChangedEvent } from '../../kernel/sdk.js';
import { OidcProviderNotFoundError } from './errors.js';
import type { ProviderSettings } from './provider-settings.js';

export interface ProviderListing {
  id: string;
  displayName: string;
  type: 'oidc';
  active: boolean;
  startUrl: string | null;
}

/** System Settings that configure the well-known providers (the setup plugin seeds them; admins set them). */
export const PROVIDER_SETTINGS = [
  'OAUTH_GOOGLE_CLIENT_ID',
  'OAUTH_GOOGLE_CLIENT_SECRET',
  'OIDC_ISSUER_URL',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
] as const;
const PROVIDER_KEYS: ReadonlySet<string> = new Set(PROVIDER_SETTINGS);
const SETTINGS_TTL_MS = 30_000;

/**
 * The providers this instance knows (registered as the container key `identityProviders`, read by
 * the auth plugin's GET /api/get-tokens-provided), and the redirect URI each one is registered with.
 */
export class IdentityProviders {
  /** The providers, followed across instances once boot connected them (`follow`). */
  private copy: Followed<ProviderSettings[]> | null = null;

  constructor(
    /** Resolves the providers from an environment (options, presets, secrets). */
    private readonly resolve: (env: Record<string, string | undefined>) => ProviderSettings[],
    /** The public address, computed when asked (CMS_PUBLIC_URL, the option, or host and port). */
    private readonly publicUrl: () => string,
    /** The provider System Settings that are set (empty when the settings store is absent). */
    private readonly settings: () => Promise<Record<string, string>> = async () => ({}),
    /** The provider variables the kernel read from the environment at start (plugin.json `env`), by variable name. */
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  /**
   * Follows the provider System Settings: re-read every 30 s, and at once when one changes on any instance
   * (SETTING_CHANGED), so a provider an admin configures in the settings becomes active without a restart.
   */
  follow(follow: PluginBootContext['follow']): void {
    this.copy = follow({
      name: 'identity providers',
      load: () => this.read(),
      on: [SETTING_CHANGED],
      apply: (copy, event: BusEvent<SettingChangedEvent>) => (PROVIDER_KEYS.has(String(event.payload?.key)) ? undefined : copy),
      maxAgeMs: SETTINGS_TTL_MS,
      initial: [],
    });
  }

  /** The providers now: environment variables win over System Settings. */
  private providers(): Promise<ProviderSettings[]> {
    return this.copy ? this.copy.get() : this.read();
  }

  private read(): Promise<ProviderSettings[]> {
    return (
      this.settings()
        .catch(() => ({}))
        // A setting the presets refuse (an http issuer) must not take the sign-in down: fall back to the environment.
        .then((fromSettings) => {
          try {
            return this.resolve({ ...fromSettings, ...this.env });
          } catch {
            return this.resolve({ ...this.env });
          }
        })
    );
  }

  async list(): Promise<ProviderListing[]> {
    return (await this.providers()).map((p) => ({
      id: p.id,
      displayName: p.displayName,
      type: 'oidc' as const,
      active: p.active,
      startUrl: p.active ? `/api/auth/oidc/${p.id}/start` : null,
    }));
  }

  /** An active provider, or 404 OIDC_PROVIDER_NOT_FOUND. */
  async active(id: string): Promise<ProviderSettings> {
    const found = (await this.providers()).find((p) => p.id === id && p.active);
    if (!found) throw new OidcProviderNotFoundError(id);
    return found;
  }

  redirectUri(id: string): string {
    return `${this.publicUrl().replace(/\/+$/, '')}/api/auth/oidc/${id}/callback`;
  }
}
