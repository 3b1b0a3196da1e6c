import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BootError } from '../../kernel/sdk.js';

/** The server's two secrets: the key installation secrets are derived from, and the salt of IP hashes. */
export interface ServerKeys {
  secretKey: string;
  ipSalt: string;
}

export const keysFile = (dataPath: string) => join(dataPath, 'update-server', 'keys.json');

/**
 * The configured keys, and for any that is not configured a generated one kept in
 * `<data>/update-server/keys.json` (owner-only), so it survives restarts. Several server processes on
 * one MariaDB must share them: set both in the environment. Never logged.
 */
export function loadServerKeys(dataPath: string, configured: Partial<ServerKeys>): ServerKeys {
  if (configured.secretKey && configured.ipSalt) return { secretKey: configured.secretKey, ipSalt: configured.ipSalt };
  const file = keysFile(dataPath);
  let saved: Partial<ServerKeys> = {};
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerKeys>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new BootError(`Update server keys file ${file} cannot be read (not valid JSON?)`);
  }
  const generated: ServerKeys = {
    secretKey: typeof saved.secretKey === 'string' && saved.secretKey.length >= 32 ? saved.secretKey : randomBytes(32).toString('hex'),
    ipSalt: typeof saved.ipSalt === 'string' && saved.ipSalt.length >= 32 ? saved.ipSalt : randomBytes(32).toString('hex'),
  };
  if (generated.secretKey !== saved.secretKey || generated.ipSalt !== saved.ipSalt) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(generated)}\n`, { mode: 0o600 });
  }
  return { secretKey: configured.secretKey ?? generated.secretKey, ipSalt: configured.ipSalt ?? generated.ipSalt };
}

/** A client IP as stored: HMAC-SHA256 keyed with the salt (a salted SHA-256), first 16 hex characters. */
export function hashIp(ipSalt: string, ip: string): string {
  return createHmac('sha256', ipSalt).update(`ip:${ip}`).digest('hex').slice(0, 16);
}

/**
 * An installation's secret (64 hex): derived from the server key, the installation id and the nonce of
 * its latest registration. The database holds only the nonce, so a copy of the database alone signs
 * nothing; registering again draws a new nonce (the old secret stops working); a new server key
 * invalidates every secret, and instances recover by registering again after their 403.
 */
export function installationSecret(secretKey: string, installationId: string, nonce: string): string {
  return createHmac('sha256', secretKey).update(`installation-secret:${installationId}:${nonce}`).digest('hex');
}
