import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The instance's private signing key: 32 random bytes (hex) in `<data>/private/signing-key.json`
 * (owner-only, beside the private config setup writes). Setup generates it when it writes the
 * private config; an instance set up before the key existed generates it once, the first time the
 * update check needs it. The key itself never leaves the file: only the installation id, a SHA-256
 * derived from it, is sent.
 */
export const signingKeyPath = (dataPath: string) => join(dataPath, 'private', 'signing-key.json');

const HEX64 = /^[0-9a-f]{64}$/;

/** Reads the key, or null when there is none (or the file is not usable). */
export function readSigningKey(dataPath: string): string | null {
  const file = signingKeyPath(dataPath);
  if (!existsSync(file)) return null;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { SIGNING_KEY?: unknown };
    return typeof saved.SIGNING_KEY === 'string' && HEX64.test(saved.SIGNING_KEY) ? saved.SIGNING_KEY : null;
  } catch {
    return null;
  }
}

/** Idempotent: returns the key, generating and writing it (0600, folder 0700) only when there is none. */
export function ensureSigningKey(dataPath: string): string {
  const existing = readSigningKey(dataPath);
  if (existing) return existing;
  const key = randomBytes(32).toString('hex');
  const file = signingKeyPath(dataPath);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(dirname(file), 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ SIGNING_KEY: key, createdAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  // Two processes racing on one data folder: the file that won the rename is the key.
  return readSigningKey(dataPath) ?? key;
}

/** The installation id: SHA-256 (hex) of a fixed label and the signing key; the key cannot be got back from it. */
export function installationIdFrom(signingKey: string): string {
  return createHash('sha256').update('cms-installation-id:').update(signingKey).digest('hex');
}
