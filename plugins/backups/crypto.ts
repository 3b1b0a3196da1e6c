/**
 * Backup encryption: AES-256-GCM, one key per backup derived with scrypt (node:crypto, run on the
 * libuv thread pool, not the event loop) from the passphrase and a random per-backup salt. Every file is
 * encrypted as a stream with its own random 96-bit IV; its IV and 128-bit auth tag are kept in the
 * file's entry of manifest.json. A key-check value (HMAC-SHA256 of a fixed label under the key) lets
 * validate tell a wrong passphrase apart from a damaged file. The passphrase itself is never stored.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';

export interface KdfParams {
  algorithm: 'scrypt';
  salt: string;
  N: number;
  r: number;
  p: number;
  keyLength: 32;
  /** HMAC-SHA256(key, KEY_CHECK_LABEL), hex. */
  keyCheck: string;
}

/**
 * A backup encrypted without a passphrase: with the installation's backup key (installation-key.ts);
 * `keyId` names that key, `keyCheck` is HMAC-SHA256(key, KEY_CHECK_LABEL) as for a passphrase.
 */
export interface InstallationKdf {
  algorithm: 'installation-key';
  keyId: string;
  keyCheck: string;
}

export type BackupKdf = KdfParams | InstallationKdf;

export const isInstallationKdf = (kdf: unknown): kdf is InstallationKdf =>
  Boolean(kdf) && typeof kdf === 'object' && (kdf as { algorithm?: unknown }).algorithm === 'installation-key';

/** Whether `key` is the one a key-check value was made with. */
export function keyMatches(key: Buffer, keyCheck: string): boolean {
  const a = Buffer.from(keyCheckOf(key), 'hex');
  const b = Buffer.from(String(keyCheck), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

const KEY_CHECK_LABEL = 'svelty-backup key check v1';
const DEFAULTS = { N: 1 << 15, r: 8, p: 1 } as const;

export function deriveKey(passphrase: string, params: { salt: string; N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      passphrase,
      Buffer.from(params.salt, 'hex'),
      32,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export const keyCheckOf = (key: Buffer) => createHmac('sha256', key).update(KEY_CHECK_LABEL).digest('hex');

export async function newKey(passphrase: string): Promise<{ key: Buffer; kdf: KdfParams }> {
  const salt = randomBytes(16).toString('hex');
  const key = await deriveKey(passphrase, { salt, ...DEFAULTS });
  return { key, kdf: { algorithm: 'scrypt', salt, ...DEFAULTS, keyLength: 32, keyCheck: keyCheckOf(key) } };
}

/** The key for a backup's KDF params, or null when the passphrase is wrong. */
export async function keyFor(passphrase: string, kdf: KdfParams): Promise<Buffer | null> {
  const key = await deriveKey(passphrase, kdf);
  return keyMatches(key, kdf.keyCheck) ? key : null;
}

export function encryptor(key: Buffer): { cipher: CipherGCM; iv: string } {
  const iv = randomBytes(12);
  return { cipher: createCipheriv('aes-256-gcm', key, iv), iv: iv.toString('hex') };
}

export function decryptor(key: Buffer, iv: string, tag: string): DecipherGCM {
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'hex'));
  d.setAuthTag(Buffer.from(tag, 'hex'));
  return d;
}
