/**
 * The installation's backup key: 32 random bytes in `<data>/private/backup-key.json` (file 0600 in a
 * 0700 folder), generated the first time a backup needs it, never answered, logged or put in a
 * backup. Two keys are derived from it (HKDF-SHA256), so neither use can stand in for the other:
 *
 * - the MAC key: HMAC-SHA256 over every manifest.json this installation writes (`mac`): an altered
 *   or foreign manifest is refused (400 BACKUP_UNTRUSTED) unless an administrator imports it as foreign;
 * - the encryption key: AES-256-GCM of every backup made without a passphrase (encrypted by default).
 *
 * `keyId` (SHA-256 of a label and the key, 16 hex characters) names the key in manifests: it tells a
 * backup of another installation (another key) from an altered one without revealing the key.
 * Instances that share backups share the data folder, and with it this file.
 */
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stringify } from 'safe-stable-stringify';

export const backupKeyPath = (dataPath: string) => join(dataPath, 'private', 'backup-key.json');

const HEX64 = /^[0-9a-f]{64}$/;
export const MAC_ALGORITHM = 'HMAC-SHA256';

export interface ManifestMac {
  algorithm: typeof MAC_ALGORITHM;
  keyId: string;
  /** HMAC-SHA256 (hex) of the canonical JSON (keys sorted) of the manifest without `mac`. */
  value: string;
}

export class InstallationKey {
  private loaded: Promise<{ mac: Buffer; enc: Buffer; keyId: string }> | null = null;

  constructor(private readonly dataPath: string) {}

  private async read(): Promise<string | null> {
    try {
      const saved = JSON.parse(await readFile(backupKeyPath(this.dataPath), 'utf8')) as { BACKUP_KEY?: unknown };
      return typeof saved.BACKUP_KEY === 'string' && HEX64.test(saved.BACKUP_KEY) ? saved.BACKUP_KEY : null;
    } catch {
      return null;
    }
  }

  private async ensure(): Promise<string> {
    const existing = await this.read();
    if (existing) return existing;
    const file = backupKeyPath(this.dataPath);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await chmod(dirname(file), 0o700);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const key = randomBytes(32).toString('hex');
    await writeFile(temp, `${JSON.stringify({ BACKUP_KEY: key, createdAt: new Date().toISOString() }, null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    await rename(temp, file);
    // Two processes racing on one data folder: the file that won the rename is the key.
    return (await this.read()) ?? key;
  }

  private keys(): Promise<{ mac: Buffer; enc: Buffer; keyId: string }> {
    this.loaded ??= this.ensure().then(
      (hex) => {
        const master = Buffer.from(hex, 'hex');
        const derive = (label: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
        return {
          mac: derive('svelty-backup manifest mac v1'),
          enc: derive('svelty-backup encryption v1'),
          keyId: createHash('sha256').update('svelty-backup key id:').update(master).digest('hex').slice(0, 16),
        };
      },
      (err: unknown) => {
        this.loaded = null;
        throw err;
      },
    );
    return this.loaded;
  }

  async keyId(): Promise<string> {
    return (await this.keys()).keyId;
  }

  /** The AES-256-GCM key of backups made without a passphrase. */
  async encryptionKey(): Promise<Buffer> {
    return (await this.keys()).enc;
  }

  /** The `mac` of a manifest (every field but `mac` itself, canonical JSON). */
  async sign(manifest: object): Promise<ManifestMac> {
    const { mac, keyId } = await this.keys();
    return { algorithm: MAC_ALGORITHM, keyId, value: macOf(mac, manifest) };
  }

  /**
   * 'ok' when the manifest's `mac` is this installation's and matches; 'missing' (none: a backup of an
   * older version, or one stripped of it), 'foreign' (made with another installation's key) or
   * 'altered' (this installation's key, but the manifest was changed) otherwise.
   */
  async check(manifest: { mac?: unknown }): Promise<'ok' | 'missing' | 'foreign' | 'altered'> {
    const m = manifest.mac as Partial<ManifestMac> | undefined;
    if (!m || typeof m !== 'object' || typeof m.value !== 'string') return 'missing';
    const { mac, keyId } = await this.keys();
    if (m.algorithm !== MAC_ALGORITHM || m.keyId !== keyId) return 'foreign';
    const want = Buffer.from(macOf(mac, manifest), 'hex');
    const got = Buffer.from(m.value, 'hex');
    return got.length === want.length && timingSafeEqual(got, want) ? 'ok' : 'altered';
  }
}

function macOf(key: Buffer, manifest: object): string {
  const { mac: _mac, ...rest } = manifest as Record<string, unknown>;
  return createHmac('sha256', key).update(stringify(rest)!).digest('hex');
}
