/**
 * Which key opens a backup: the installation's backup key (a backup made without a passphrase), or the
 * key derived from its passphrase. The keys themselves are never stored (key-store.ts holds them in memory).
 */
import { ValidationError } from '../../kernel/sdk.js';
import { isInstallationKdf, keyCheckOf, keyFor, keyMatches } from './crypto.js';
import type { BackupManifest } from './format.js';
import type { InstallationKey } from './installation-key.js';
import type { Secret } from './key-store.js';

/** The installation key's secret for a backup made without a passphrase. */
export async function installationSecret(installationKey: InstallationKey): Promise<Secret> {
  const key = await installationKey.encryptionKey();
  return { key, kdf: { algorithm: 'installation-key', keyId: await installationKey.keyId(), keyCheck: keyCheckOf(key) } };
}

/** The installation key when it is the one the backup was encrypted with, else null. */
export async function installationKeyFor(installationKey: InstallationKey, kdf: { keyCheck: string }): Promise<Buffer | null> {
  const key = await installationKey.encryptionKey();
  return keyMatches(key, kdf.keyCheck) ? key : null;
}

/** The key of an encrypted backup (the installation's, or from its passphrase); ValidationError when missing or wrong. */
export async function backupKey(
  installationKey: InstallationKey,
  m: BackupManifest,
  passphrase: string | undefined,
): Promise<Buffer | null> {
  if (!m.encrypted) return null;
  if (isInstallationKdf(m.kdf)) {
    const key = await installationKeyFor(installationKey, m.kdf);
    if (!key)
      throw new ValidationError(
        "The backup is encrypted with another installation's backup key (made without a passphrase there): it cannot be decrypted here",
        [{ path: 'body.backupId', message: "encrypted with another installation's key" }],
      );
    return key;
  }
  if (!passphrase)
    throw new ValidationError('The backup is encrypted: send its passphrase', [
      { path: 'body.passphrase', message: 'required for an encrypted backup' },
    ]);
  const key = m.kdf ? await keyFor(passphrase, m.kdf).catch(() => null) : null;
  if (!key)
    throw new ValidationError('Wrong passphrase for this backup', [{ path: 'body.passphrase', message: 'does not match the backup' }]);
  return key;
}
