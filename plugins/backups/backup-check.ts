/**
 * Checking a stored backup (POST /api/backups/:backupId/validate and the restore plan's integrity step):
 * the manifest's MAC and format, checksums.sha256 against the manifest, every file re-hashed in the
 * worker pool, and for an encrypted backup the key and every file's auth tag. Each step returns the
 * problems it found as sentences: problems are data (valid: false), never a 500.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { WorkerPool } from '../../kernel/sdk.js';
import { isInstallationKdf, keyFor } from './crypto.js';
import { FORMAT, FORMAT_VERSION, openBackupFile, poolHash, type BackupManifest } from './format.js';

export type Trust = 'ok' | 'missing' | 'foreign' | 'altered';

export function trustProblems(trust: Trust, trustForeign: boolean | undefined): string[] {
  if (trust === 'ok' || trustForeign) return [];
  return [
    trust === 'altered'
      ? "manifest.json: its MAC does not match this installation's key (the backup was changed after it was made)"
      : trust === 'foreign'
        ? 'manifest.json: made by another installation (its MAC is of another key); restore-plan needs foreign: true'
        : 'manifest.json: no MAC of this installation (an older version made it, or the MAC was removed); restore-plan needs foreign: true',
  ];
}

export function formatProblems(m: BackupManifest): string[] {
  const problems: string[] = [];
  if (m.format !== FORMAT) problems.push(`manifest.json: format '${String(m.format)}' is not '${FORMAT}'`);
  if (m.formatVersion !== FORMAT_VERSION)
    problems.push(
      `manifest.json: format version ${String(m.formatVersion)} is not supported (this instance reads version ${FORMAT_VERSION})`,
    );
  return problems;
}

/** checksums.sha256 must match the manifest's own record of it and list the same hashes. */
export async function checksumFileProblems(pool: WorkerPool, dir: string, m: BackupManifest): Promise<string[]> {
  const problems: string[] = [];
  try {
    const sums = await poolHash(pool, join(dir, 'checksums.sha256'));
    if (sums.sha256 !== m.checksumsSha256)
      problems.push('checksums.sha256: its SHA-256 does not match manifest.json (the file was changed)');
    const listed = new Map(
      (await readFile(join(dir, 'checksums.sha256'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(66), l.slice(0, 64)] as const),
    );
    for (const f of m.files)
      if (listed.get(f.path) !== f.sha256) problems.push(`checksums.sha256: the entry of ${f.path} does not match manifest.json`);
  } catch {
    problems.push('checksums.sha256: missing or unreadable');
  }
  return problems;
}

/** Re-hashes every file; returns the paths found intact. */
export async function fileProblems(pool: WorkerPool, dir: string, m: BackupManifest, problems: string[]): Promise<Set<string>> {
  const intact = new Set<string>();
  for (const f of m.files) {
    if (f.path.split('/').includes('..')) {
      problems.push(`${f.path}: path leaves the backup folder`);
      continue;
    }
    try {
      const h = await poolHash(pool, join(dir, f.path));
      if (h.sha256 !== f.sha256 || h.size !== f.size) problems.push(`${f.path}: checksum mismatch (the file was changed or damaged)`);
      else intact.add(f.path);
    } catch {
      problems.push(`${f.path}: missing or unreadable`);
    }
  }
  return intact;
}

/** The key to check decryption with (null: not checked), noting why there is none. */
async function checkKey(
  m: BackupManifest,
  passphrase: string | undefined,
  decrypt: boolean | undefined,
  installationKeyFor: (kdf: { keyCheck: string }) => Promise<Buffer | null>,
  problems: string[],
): Promise<Buffer | null> {
  if (isInstallationKdf(m.kdf)) {
    const key = await installationKeyFor(m.kdf);
    if (!key) problems.push("The backup is encrypted with another installation's key: it cannot be decrypted here");
    return decrypt === false ? null : key;
  }
  if (!passphrase) problems.push('The backup is encrypted: give its passphrase to check decryption');
  else if (!m.kdf) problems.push('manifest.json: encrypted but no key derivation parameters');
  else {
    const key = await keyFor(passphrase, m.kdf).catch(() => null);
    if (!key) problems.push('Wrong passphrase: the key derived from it does not match this backup (nothing could be decrypted)');
    return key;
  }
  return null;
}

/** For an encrypted backup: the key, then every intact file decrypted (its auth tag checked). */
export async function decryptionProblems(
  dir: string,
  m: BackupManifest,
  intact: Set<string>,
  opts: { passphrase?: string; decrypt?: boolean; installationKeyFor: (kdf: { keyCheck: string }) => Promise<Buffer | null> },
): Promise<string[]> {
  const problems: string[] = [];
  if (!m.encrypted) return problems;
  const key = await checkKey(m, opts.passphrase, opts.decrypt, opts.installationKeyFor, problems);
  if (!key) return problems;
  for (const f of m.files) {
    if (!intact.has(f.path)) continue;
    try {
      await pipeline(openBackupFile(dir, f, key), new Writable({ write: (_c, _e, cb) => cb() }));
    } catch {
      problems.push(`${f.path}: decryption failed (authentication tag mismatch)`);
    }
  }
  return problems;
}
