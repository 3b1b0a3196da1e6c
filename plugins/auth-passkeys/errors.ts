import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('PASSKEY_VERIFICATION_FAILED', 401, 'A passkey sign-in did not verify (unknown passkey, bad signature, missing, expired or reused challenge: one message for all).');
/** The one answer of a failed passkey sign-in: it does not tell which part failed. */
export const signInFailed = () => new AppError('PASSKEY_VERIFICATION_FAILED', 401, 'Passkey sign-in failed; try again');

defineErrorCode('PASSKEY_REGISTRATION_FAILED', 400, 'A new passkey did not verify (used or expired challenge, wrong origin or RP ID, already registered); the message says why.');
export class PasskeyRegistrationFailedError extends AppError {
  constructor(reason: string) {
    super('PASSKEY_REGISTRATION_FAILED', 400, reason);
  }
}

defineErrorCode('PASSKEY_NOT_FOUND', 404, "No passkey with this id among the caller's own passkeys.");
export class PasskeyNotFoundError extends AppError {
  constructor() {
    super('PASSKEY_NOT_FOUND', 404, 'Passkey not found');
  }
}
