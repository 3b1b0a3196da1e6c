/**
 * Passphrase-derived keys held in memory only (never in the database, a job payload or a plan), with an
 * expiry: for a background create (keyed by backupId) and for a restore plan (keyed by a random
 * reference stored in the plan's input). Another instance, or this one after a restart, does not have
 * them: such a job or restore fails with a message asking to start again with the passphrase.
 */
import type { BackupKdf, KdfParams } from './crypto.js';

/** The key a backup is written with and how it was derived (recorded in the manifest). */
export type Secret = { key: Buffer; kdf: BackupKdf };

export class KeyStore {
  private readonly keys = new Map<string, { key: Buffer; kdf?: KdfParams; expires: number }>();
  constructor(private readonly ttlMs: number) {}
  put(ref: string, key: Buffer, kdf?: KdfParams): void {
    this.sweep();
    this.keys.set(ref, { key, kdf, expires: Date.now() + this.ttlMs });
  }
  get(ref: string): { key: Buffer; kdf?: KdfParams } | null {
    const k = this.keys.get(ref);
    if (!k || k.expires < Date.now()) return null;
    return k;
  }
  delete(ref: string): void {
    this.keys.get(ref)?.key.fill(0);
    this.keys.delete(ref);
  }
  private sweep(): void {
    const now = Date.now();
    for (const [ref, k] of this.keys) if (k.expires < now) this.delete(ref);
  }
}
