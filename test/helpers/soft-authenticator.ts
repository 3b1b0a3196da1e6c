import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests: one ES256 credential, attestation 'none', a signature
 * counter, and the user-presence / user-verification flags. It speaks the JSON forms browsers hand to
 * a web page (PublicKeyCredential.toJSON()), so tests drive the server exactly as a browser would.
 */

// --- a minimal CBOR encoder: unsigned and negative integers, byte and text strings, maps ------------
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries: Array<[Cbor, Cbor]> = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

// --- the authenticator ---------------------------------------------------------------------------
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: Array<{ id: string }>;
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: Array<{ id: string }>;
}

export interface AssertionOptions {
  /** The UV flag (a PIN or biometric was checked); default true. */
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentialId: Buffer;
  /** The signature counter; tests may wind it back to simulate a cloned authenticator. */
  counter = 0;
  /** The user handle given at registration (base64url), returned with assertions as a passkey does. */
  userHandle: string | null = null;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  /** `credentialId`: reuse another authenticator's id (to forge with a different key). */
  constructor(options: { credentialId?: Buffer } = {}) {
    this.credentialId = options.credentialId ?? randomBytes(32);
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The public key as a COSE EC2 key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}. */
  private coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private authData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create(): a RegistrationResponseJSON with attestation 'none'. */
  createCredential(options: CreationOptions, origin: string) {
    if (options.excludeCredentials?.some((c) => c.id === this.id))
      throw new Error('InvalidStateError: this authenticator is already registered');
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const authData = this.authData(rpId, FLAG_UP | FLAG_UV | FLAG_AT, attested);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }),
    );
    this.userHandle = options.user.id;
    return {
      ...this.credentialFields(),
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal', 'hybrid'],
      },
    };
  }

  /** The fields of a PublicKeyCredential's JSON around its response (a platform authenticator, no extensions). */
  private credentialFields() {
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON signed with this credential's key. */
  getAssertion(options: RequestOptions, origin: string, assertion: AssertionOptions = {}) {
    if (options.allowCredentials?.length && !options.allowCredentials.some((c) => c.id === this.id)) {
      throw new Error('NotAllowedError: this authenticator holds none of the allowed credentials');
    }
    const rpId = options.rpId ?? new URL(origin).hostname;
    this.counter += 1;
    const authData = this.authData(rpId, FLAG_UP | (assertion.userVerified === false ? 0 : FLAG_UV));
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      ...this.credentialFields(),
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
