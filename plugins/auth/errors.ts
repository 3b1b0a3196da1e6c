import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('INVALID_CREDENTIALS', 401, 'Unknown email or wrong password (one message for both).');
export class InvalidCredentialsError extends AppError {
  constructor() {
    super('INVALID_CREDENTIALS', 401, 'Invalid email or password');
  }
}

defineErrorCode('ACCOUNT_LOCKED', 403, 'Too many failed sign-ins: the account is locked; retryAfterSeconds says for how long.');
export class AccountLockedError extends AppError {
  constructor(retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super('ACCOUNT_LOCKED', 403, `Account locked after too many failed sign-ins; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`, {
      extra: { retryAfterSeconds },
    });
  }
}

defineErrorCode('ACCOUNT_BLOCKED', 403, 'The account has been blocked by an administrator.');
export class AccountBlockedError extends AppError {
  constructor() {
    super('ACCOUNT_BLOCKED', 403, 'This account is blocked');
  }
}

defineErrorCode('USER_EXISTS', 409, 'A user with this email already exists in the tenant.');
export class UserExistsError extends AppError {
  constructor() {
    super('USER_EXISTS', 409, 'A user with this email already exists');
  }
}

defineErrorCode('REAUTH_REQUIRED', 403, 'Revoking another session needs a fresh re-authentication proof (X-Reauth-Proof from POST /api/user/sessions/reauth).');
export class ReauthRequiredError extends AppError {
  constructor() {
    super('REAUTH_REQUIRED', 403, 'Confirm your password first (POST /api/user/sessions/reauth) and send the proof in X-Reauth-Proof');
  }
}

defineErrorCode('TOKEN_NOT_FOUND', 404, 'The link or token is not valid (unknown, revoked, or for another purpose).');
export class TokenNotFoundError extends AppError {
  constructor() {
    super('TOKEN_NOT_FOUND', 404, 'This link is not valid');
  }
}

defineErrorCode('TOKEN_EXPIRED', 410, 'The link or token has expired; ask for a new one.');
export class TokenExpiredError extends AppError {
  constructor() {
    super('TOKEN_EXPIRED', 410, 'This link has expired; ask for a new one');
  }
}

defineErrorCode('TOKEN_ALREADY_CONSUMED', 409, 'The single-use link or token has already been used.');
export class TokenAlreadyConsumedError extends AppError {
  constructor() {
    super('TOKEN_ALREADY_CONSUMED', 409, 'This link has already been used');
  }
}
