import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * The built-in public key (Ed25519, SPKI DER in base64) licence keys are checked against. Its private
 * half is kept by the vendor outside this repository. CMS_LICENSE_PUBLIC_KEY (or the option
 * licensePublicKey) replaces it, so self-hosting vendors and tests can issue their own keys.
 */
export const BUILT_IN_LICENSE_PUBLIC_KEY = 'MCowBQYDK2VwAyEA95ROIcNNyAOBct71tRsZ1ES5vL+GHXJAkw6GXzoHicI=';

const payloadSchema = z.object({
  licensee: z.string().min(1).max(200),
  issuedAt: z.string().datetime({ offset: true }),
  expiresAt: z.string().datetime({ offset: true }).optional(),
  /** Widget ids the key unlocks; '*' (or no list) for all. */
  widgets: z.array(z.string().min(1).max(100)).max(200).optional(),
});
export type LicensePayload = z.output<typeof payloadSchema>;

export type LicenseKeyCheck = { valid: true; payload: LicensePayload; expired: boolean } | { valid: false; problem: string };

/** A PEM text or base64 SPKI DER. */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  return createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
}

/**
 * Verifies `<base64url(JSON payload)>.<base64url(Ed25519 signature of the first segment's text)>`
 * offline. Never throws; a key that does not hold says why (the key itself is never echoed).
 */
export function checkLicenseKey(key: string, publicKey: KeyObject, now = Date.now()): LicenseKeyCheck {
  const parts = key.trim().split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { valid: false, problem: 'malformed' };
  const [body, signature] = parts as [string, string];
  let ok = false;
  try {
    ok = verify(null, Buffer.from(body, 'utf8'), publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    ok = false;
  }
  if (!ok) return { valid: false, problem: 'bad-signature' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { valid: false, problem: 'malformed' };
  }
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) return { valid: false, problem: 'malformed' };
  const expired = parsed.data.expiresAt !== undefined && Date.parse(parsed.data.expiresAt) <= now;
  return { valid: true, payload: parsed.data, expired };
}

/** Whether a key's widget list covers a widget. */
export function coversWidget(payload: LicensePayload, widgetId: string): boolean {
  return !payload.widgets || payload.widgets.includes('*') || payload.widgets.includes(widgetId);
}
