import { defineError } from '../../kernel/sdk.js';

const PasskeyVerificationFailed = defineError(
  'PASSKEY_VERIFICATION_FAILED',
  401,
  'A passkey sign-in did not verify (unknown passkey, bad signature, missing, expired or reused challenge: one message for all).',
  'Passkey sign-in failed; try again',
);
/** The one answer of a failed passkey sign-in: it does not tell which part failed. */
export const signInFailed = () => new PasskeyVerificationFailed();

export class PasskeyRegistrationFailedError extends defineError(
  'PASSKEY_REGISTRATION_FAILED',
  400,
  'A new passkey did not verify (used or expired challenge, wrong origin or RP ID, already registered); the message says why.',
  (reason: string) => reason,
) {}

export class PasskeyNotFoundError extends defineError(
  'PASSKEY_NOT_FOUND',
  404,
  "No passkey with this id among the caller's own passkeys.",
  'Passkey not found',
) {}
