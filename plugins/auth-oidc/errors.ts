import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('OIDC_PROVIDER_NOT_FOUND', 404, 'No identity provider with this id, or it is not configured (its secrets are missing).');
export class OidcProviderNotFoundError extends AppError {
  constructor(id: string) {
    super('OIDC_PROVIDER_NOT_FOUND', 404, `No active identity provider '${id}'`);
  }
}

defineErrorCode('OIDC_PROVIDER_UNAVAILABLE', 502, 'The identity provider could not be reached (discovery or token request failed); try again later.');
export class OidcProviderUnavailableError extends AppError {
  constructor(displayName: string) {
    super('OIDC_PROVIDER_UNAVAILABLE', 502, `${displayName} cannot be reached right now; try again later`, { expose: true });
  }
}

defineErrorCode('OIDC_STATE_INVALID', 400, 'The sign-in callback does not belong to a sign-in started in this browser (bad or expired state, missing cookie); start again.');
export class OidcStateInvalidError extends AppError {
  constructor() {
    super('OIDC_STATE_INVALID', 400, 'This sign-in link is invalid or has expired; start the sign-in again');
  }
}

defineErrorCode('OIDC_PROVIDER_ERROR', 400, 'The identity provider answered with an error (e.g. access_denied); providerError holds its error code.');
export class OidcProviderError extends AppError {
  constructor(displayName: string, providerError: string) {
    super('OIDC_PROVIDER_ERROR', 400, `${displayName} did not sign you in (${providerError})`, { extra: { providerError } });
  }
}

defineErrorCode('OIDC_CALLBACK_FAILED', 400, 'The authorization code could not be exchanged or the ID token failed validation; start the sign-in again.');
export class OidcCallbackFailedError extends AppError {
  constructor(displayName: string) {
    super('OIDC_CALLBACK_FAILED', 400, `The sign-in with ${displayName} could not be completed; start again`);
  }
}

defineErrorCode('OIDC_NO_ACCOUNT', 403, 'The provider identity is not linked to a user, its email is not verified by the provider, and sign-up is off for this provider.');
export class OidcNoAccountError extends AppError {
  constructor(message: string) {
    super('OIDC_NO_ACCOUNT', 403, message);
  }
}
