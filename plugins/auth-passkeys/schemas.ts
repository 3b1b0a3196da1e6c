import { z } from 'zod';

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'base64url without padding');

/** Credential ids longer than this (384 bytes) are refused; authenticators in use stay far below. */
export const MAX_CREDENTIAL_ID = 512;

const credentialId = base64url(MAX_CREDENTIAL_ID);
const extensions = z.record(z.string(), z.unknown()).default({});
const attachment = z.enum(['platform', 'cross-platform']).optional();

/** What navigator.credentials.create() gives, as JSON (PublicKeyCredential.toJSON()). */
export const registrationResponseSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(131072),
    authenticatorData: base64url(131072).optional(),
    transports: z.array(z.string().max(32)).max(16).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(16384).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: extensions,
});

/** What navigator.credentials.get() gives, as JSON. */
export const authenticationResponseSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(16384),
    signature: base64url(8192),
    userHandle: base64url(256).optional(),
  }),
  authenticatorAttachment: attachment,
  clientExtensionResults: extensions,
});

export const passkeySchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    deviceType: z.string(),
    backedUp: z.boolean(),
  })
  .meta({ id: 'Passkey' });

const descriptor = z.object({ id: z.string(), type: z.literal('public-key'), transports: z.array(z.string()).optional() });

export const creationOptionsSchema = z
  .looseObject({
    challenge: z.string(),
    rp: z.object({ name: z.string(), id: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.number() })),
    timeout: z.number(),
    attestation: z.string(),
    excludeCredentials: z.array(descriptor),
    authenticatorSelection: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'PasskeyCreationOptions' });

export const requestOptionsSchema = z
  .looseObject({
    challenge: z.string(),
    rpId: z.string(),
    allowCredentials: z.array(descriptor),
    timeout: z.number(),
    userVerification: z.string(),
  })
  .meta({ id: 'PasskeyRequestOptions' });

/** The challenge a response's clientDataJSON carries, or null when it is not readable JSON. */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data?.challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(data.challenge) ? data.challenge : null;
  } catch {
    return null;
  }
}
