import { defineError, ERROR_CATALOGUE, InternalError } from '../../kernel/sdk.js';

export class InvalidCredentialsError extends defineError(
  'INVALID_CREDENTIALS',
  401,
  'Unknown email or wrong password (one message for both).',
  'Invalid email or password',
) {}

export class AccountLockedError extends defineError(
  'ACCOUNT_LOCKED',
  403,
  'Too many failed sign-ins: the account is locked; retryAfterSeconds says for how long.',
  (retryAfterSeconds: number) => {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    return {
      message: `Account locked after too many failed sign-ins; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
      extra: { retryAfterSeconds },
    };
  },
) {}

export class AccountBlockedError extends defineError(
  'ACCOUNT_BLOCKED',
  403,
  'The account has been blocked by an administrator.',
  'This account is blocked',
) {}

export class UserExistsError extends defineError(
  'USER_EXISTS',
  409,
  'A user with this email already exists in the tenant.',
  'A user with this email already exists',
) {}

export class ReauthRequiredError extends defineError(
  'REAUTH_REQUIRED',
  403,
  'Sudo mode: revoking another session, creating API keys, website tokens and invitation tokens, registering a passkey, disabling 2FA and regenerating backup codes need a recent proof of the password: a session signed in with its password less than CMS_REAUTH_WINDOW_SECONDS ago, or a fresh X-Reauth-Proof from POST /api/user/sessions/reauth. Also sent as the X-Reauth-Required response header (the 2FA endpoints answer {message} only).',
  {
    message: 'Confirm your password first (POST /api/user/sessions/reauth) and send the proof in X-Reauth-Proof',
    headers: { 'X-Reauth-Required': '1' },
  },
) {}

export class TokenNotFoundError extends defineError(
  'TOKEN_NOT_FOUND',
  404,
  'The link or token is not valid (unknown, revoked, or for another purpose).',
  'This link is not valid',
) {}

export class TokenExpiredError extends defineError(
  'TOKEN_EXPIRED',
  410,
  'The link or token has expired; ask for a new one.',
  'This link has expired; ask for a new one',
) {}

export class TokenAlreadyConsumedError extends defineError(
  'TOKEN_ALREADY_CONSUMED',
  409,
  'The single-use link or token has already been used.',
  'This link has already been used',
) {}

/**
 * The spec's two-factor endpoints answer an unexpected failure with 500 INTERNAL_ERROR and a fixed message
 * of their own ("Failed to verify 2FA code"), in their `{message}` shape; the cause goes to the log only.
 */
export class TwoFactorFailureError extends defineError(
  InternalError.code,
  InternalError.status,
  ERROR_CATALOGUE.find((e) => e.code === InternalError.code)!.description,
  (message: string, cause: unknown) => ({ message, cause, expose: true }),
) {}
