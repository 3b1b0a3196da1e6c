import { AppError, retryAfter, type ErrorBody, type ErrorCatalogueEntry } from '../../kernel/sdk.js';

/*
 * The update server's refusals (README, "Update server", its own error table). The first three are the
 * wire format's codes (docs/decisions/api-decisions.md, "Update check wire format"): after any 403 an
 * instance discards its secret, registers again and retries once.
 *
 * These are the codes of another service, not of an instance: they are kept in this catalogue, not in
 * the kernel's ERROR_CATALOGUE (which the README's "Error catalogue" lists for the instance), so the
 * instance's catalogue stays the same whether or not this module was ever imported in the process.
 */
export const UPDATE_SERVER_ERROR_CATALOGUE: ErrorCatalogueEntry[] = [];

/** As the kernel's defineError (code and status written once, a typed constructor), registered in UPDATE_SERVER_ERROR_CATALOGUE. */
function defineServerError<A extends unknown[]>(code: string, status: number, description: string, render: (...args: A) => ErrorBody) {
  UPDATE_SERVER_ERROR_CATALOGUE.push({ code, status, description });
  return class extends AppError {
    static readonly code = code;
    static readonly status = status;
    constructor(...args: A) {
      const body = render(...args);
      if (typeof body === 'string') super(code, status, body);
      else {
        const { message, ...options } = body;
        super(code, status, message, options);
      }
    }
  };
}

export class SignatureExpiredError extends defineServerError(
  'SIGNATURE_EXPIRED',
  403,
  'Update server: the check-update timestamp is more than 5 minutes from the server clock (either way); sign again with the current time.',
  (skewSeconds: number) => `The timestamp is ${skewSeconds} s from the server clock; at most 300 s are accepted`,
) {}

export class UnknownInstallationError extends defineServerError(
  'UNKNOWN_INSTALLATION',
  403,
  'Update server: the payload names an installation_id that is not registered (POST /api/register first).',
  () => 'This installation is not registered; POST /api/register first',
) {}

export class InvalidSignatureError extends defineServerError(
  'INVALID_SIGNATURE',
  403,
  'Update server: the signature is not the HMAC-SHA256 of `<timestamp>.<canonical JSON of payload>` under the current secret of the installation (a re-registration rotates it); register again.',
  () => 'The signature does not match; register again to get a fresh secret',
) {}

export class ReplayedRequestError extends defineServerError(
  'REPLAYED_REQUEST',
  403,
  'Update server: a check-update whose timestamp is not later than the last one accepted for this installation (a replayed envelope); sign a new one.',
  () => 'This signed request was already received; sign a new one with the current time',
) {}

export class CheckRateLimitedError extends defineServerError(
  'CHECK_RATE_LIMITED',
  429,
  'Update server: one check-update per client IP per 12 hours (UPDATE_SERVER_CHECK_INTERVAL_SECONDS); Retry-After gives the seconds left.',
  (retryAfterSeconds: number) => ({
    message: `One update check per period from this address; try again in ${retryAfterSeconds} s`,
    ...retryAfter(retryAfterSeconds),
  }),
) {}

export class OperatorTokenRequiredError extends defineServerError(
  'OPERATOR_TOKEN_REQUIRED',
  401,
  'Update server: GET /api/stats needs `Authorization: Bearer <UPDATE_SERVER_OPERATOR_TOKEN>`.',
  () => ({
    message: 'This needs the operator token: Authorization: Bearer <token>',
    headers: { 'WWW-Authenticate': 'Bearer realm="update-server"' },
  }),
) {}

export class OperatorTokenInvalidError extends defineServerError(
  'OPERATOR_TOKEN_INVALID',
  403,
  'Update server: the bearer token is not the operator token, or no UPDATE_SERVER_OPERATOR_TOKEN is set (the statistics are then closed).',
  (configured: boolean) =>
    configured ? 'The operator token does not match' : 'No operator token is configured; the statistics are closed',
) {}
