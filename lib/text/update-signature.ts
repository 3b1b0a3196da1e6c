import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * The update check's signature, one definition for the instance that signs and the update server that
 * verifies (see docs/decisions/api-decisions.md, "Update check wire format", and the README's "Update server").
 *
 * The envelope is `{payload, signature, timestamp}`: `timestamp` milliseconds since the epoch (an
 * integer), `signature` the lower-case hex HMAC-SHA256 of `<timestamp>.<canonical JSON of payload>`
 * (RFC 8785, lib/text/canonical-json.ts), keyed with the registration secret: the 64 hex characters
 * `/api/register` answered, used as they are (their UTF-8 bytes, not hex-decoded).
 */
export interface UpdateCheckEnvelope<P = Record<string, unknown>> {
  payload: P;
  signature: string;
  timestamp: number;
}

/** How far a timestamp may be from the server's clock, either way. */
export const UPDATE_SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

/** The text that is signed: `<timestamp>.<canonical JSON of payload>`. */
export function updateSigningInput(timestamp: number, payload: unknown): string {
  if (!Number.isSafeInteger(timestamp)) throw new TypeError('The timestamp must be an integer (milliseconds since the epoch)');
  return `${timestamp}.${canonicalJson(payload)}`;
}

/** The lower-case hex HMAC-SHA256 of the signing input, keyed with the registration secret. */
export function signUpdateCheck(secret: string, timestamp: number, payload: unknown): string {
  return createHmac('sha256', secret).update(updateSigningInput(timestamp, payload), 'utf8').digest('hex');
}

/** The envelope an instance posts to /api/check-update. */
export function signedUpdateEnvelope<P>(secret: string, payload: P, timestamp = Date.now()): UpdateCheckEnvelope<P> {
  return { payload, signature: signUpdateCheck(secret, timestamp, payload), timestamp };
}

/** Whether `signature` is the signature of payload and timestamp under `secret` (constant-time comparison). */
export function verifyUpdateSignature(secret: string, timestamp: number, payload: unknown, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(signUpdateCheck(secret, timestamp, payload), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
