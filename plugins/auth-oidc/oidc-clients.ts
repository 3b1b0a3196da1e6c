import * as client from 'openid-client';
import type { Logger } from '../../kernel/sdk.js';
import { OidcCallbackFailedError, OidcProviderUnavailableError } from './errors.js';
import type { ProviderSettings } from './provider-settings.js';

/** The ID token claims the account linking reads (validated by openid-client: signature, iss, aud, exp, nonce). */
export interface IdTokenClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
}

const TIMEOUT_SECONDS = 10;

/** A failure to talk to the provider at all (refused, DNS, timeout), as opposed to an answer we refuse. */
function unreachable(err: unknown): boolean {
  const e = err as { name?: string; message?: string };
  return (err instanceof TypeError && e.message === 'fetch failed') || e?.name === 'TimeoutError' || e?.name === 'AbortError';
}

/** A short reason for the log: never tokens or secrets (openid-client's messages and OAuth error codes only). */
function reasonOf(err: unknown): Record<string, unknown> {
  const e = err as { name?: string; message?: string; code?: string; error?: string; cause?: { code?: string } };
  return { name: e?.name, message: e?.message, code: e?.code ?? e?.cause?.code, oauthError: e?.error };
}

/**
 * One openid-client Configuration per provider, discovered on first use and kept; a failed discovery
 * is forgotten, so the next request tries again.
 */
export class OidcClients {
  private readonly discovered = new Map<string, Promise<client.Configuration>>();

  constructor(private readonly logger: Logger) {}

  configuration(p: ProviderSettings): Promise<client.Configuration> {
    let found = this.discovered.get(p.id);
    if (!found) {
      found = this.discover(p);
      this.discovered.set(p.id, found);
      found.catch(() => {
        if (this.discovered.get(p.id) === found) this.discovered.delete(p.id);
      });
    }
    return found;
  }

  private async discover(p: ProviderSettings): Promise<client.Configuration> {
    try {
      return await client.discovery(new URL(p.issuer), p.clientId, p.clientSecret, client.ClientSecretPost(p.clientSecret), {
        timeout: TIMEOUT_SECONDS,
        ...(p.allowInsecureRequests ? { execute: [client.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      this.logger.warn({ provider: p.id, issuer: p.issuer, reason: reasonOf(err) }, 'OpenID provider discovery failed');
      throw new OidcProviderUnavailableError(p.displayName);
    }
  }

  /** The provider's authorization URL with state, nonce and the PKCE (S256) challenge. */
  async authorizationUrl(
    p: ProviderSettings,
    input: { redirectUri: string; state: string; nonce: string; verifier: string },
  ): Promise<URL> {
    const config = await this.configuration(p);
    return client.buildAuthorizationUrl(config, {
      redirect_uri: input.redirectUri,
      scope: p.scopes.join(' '),
      state: input.state,
      nonce: input.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(input.verifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * Exchanges the code (with the PKCE verifier) and validates the ID token (nonce included). The
   * provider's access and refresh tokens are dropped here: only the ID token claims leave.
   */
  async exchange(
    p: ProviderSettings,
    callbackUrl: URL,
    checks: { state: string; nonce: string; verifier: string },
  ): Promise<IdTokenClaims> {
    const config = await this.configuration(p);
    let claims: IdTokenClaims | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedNonce: checks.nonce,
        expectedState: checks.state,
        idTokenExpected: true,
      });
      claims = tokens.claims() as IdTokenClaims | undefined;
    } catch (err) {
      this.logger.warn({ provider: p.id, reason: reasonOf(err) }, 'OpenID sign-in callback failed');
      if (unreachable(err)) throw new OidcProviderUnavailableError(p.displayName);
      throw new OidcCallbackFailedError(p.displayName);
    }
    if (!claims || typeof claims.sub !== 'string' || !claims.sub) throw new OidcCallbackFailedError(p.displayName);
    return claims;
  }
}
