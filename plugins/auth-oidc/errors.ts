import { defineError } from '../../kernel/sdk.js';

export class OidcProviderNotFoundError extends defineError(
  'OIDC_PROVIDER_NOT_FOUND',
  404,
  'No identity provider with this id, or it is not configured (its secrets are missing).',
  (id: string) => `No active identity provider '${id}'`,
) {}

export class OidcProviderUnavailableError extends defineError(
  'OIDC_PROVIDER_UNAVAILABLE',
  502,
  'The identity provider could not be reached (discovery or token request failed); try again later.',
  (displayName: string) => ({ message: `${displayName} cannot be reached right now; try again later`, expose: true }),
) {}

export class OidcStateInvalidError extends defineError(
  'OIDC_STATE_INVALID',
  400,
  'The sign-in callback does not belong to a sign-in started in this browser (bad or expired state, missing cookie); start again.',
  'This sign-in link is invalid or has expired; start the sign-in again',
) {}

export class OidcProviderError extends defineError(
  'OIDC_PROVIDER_ERROR',
  400,
  'The identity provider answered with an error (e.g. access_denied); providerError holds its error code.',
  (displayName: string, providerError: string) => ({
    message: `${displayName} did not sign you in (${providerError})`,
    extra: { providerError },
  }),
) {}

export class OidcCallbackFailedError extends defineError(
  'OIDC_CALLBACK_FAILED',
  400,
  'The authorization code could not be exchanged or the ID token failed validation; start the sign-in again.',
  (displayName: string) => `The sign-in with ${displayName} could not be completed; start again`,
) {}

export class OidcNoAccountError extends defineError(
  'OIDC_NO_ACCOUNT',
  403,
  'The provider identity is not linked to a user, its email is not verified by the provider, and sign-up is off for this provider.',
) {}
