/**
 * The `.svelty-backup` directory: `<dataPath>/backups/<backupId>.svelty-backup/` with
 *
 *   manifest.json          this file's shape (never encrypted: it holds counts, checksums, KDF params)
 *   content/<name>.ndjson  one entry row of collection <name> per line (the table's columns as stored)
 *   content-locales/entries.ndjson  one content_entry_locales row per line (entries' versions in other locales)
 *   config.json            settings (non-secret), roles, collection schemas, themes, components, locales
 *   media/manifest.ndjson  one media_items row per line; media/folders.ndjson: media_folders rows
 *   media/files/<path>     when includesMedia: each file as the storage driver holds it
 *   checksums.sha256       `<sha256>  <path>` per file (sha256sum format) of the bytes as stored
 *
 * Folders are 0700 and files 0600 (owner only). manifest.json carries `mac`, an HMAC-SHA256 under the
 * installation's key (installation-key.ts): the manifest lists every file's SHA-256, so it
 * authenticates the whole backup. Without a passphrase the files are encrypted with the installation's
 * key (the default; `encrypt: false` opts out).
 *
 * When encrypted, every file but manifest.json and checksums.sha256 is AES-256-GCM ciphertext; its
 * IV and auth tag are in its `files` entry. Checksums are of the stored bytes, so a damaged file is
 * found without the passphrase.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import type { WorkerPool } from '../../kernel/sdk.js';
import { decryptor, encryptor, type BackupKdf } from './crypto.js';
import type { ManifestMac } from './installation-key.js';

export const FORMAT = 'svelty-backup';
export const FORMAT_VERSION = 1;
export const BACKUP_SUFFIX = '.svelty-backup';
/** `20261125T114003123Z-1a2b3c4d`: sorts by creation time; the only ids a path is built from. */
export const BACKUP_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;
/** Files larger than this are hashed in the worker pool (sha256File) after they are written. */
export const INLINE_HASH_LIMIT = 4 * 1024 * 1024;

export interface FileEntry {
  path: string;
  size: number;
  sha256: string;
  iv?: string;
  tag?: string;
}

export interface TableInfo {
  table: string;
  rows: number;
  checksum: string;
  file: string;
}

export interface BackupManifest {
  format: typeof FORMAT;
  formatVersion: number;
  backupId: string;
  createdAt: string;
  instance: { kernelVersion: string; pluginVersion: string };
  db: { dialect: string };
  includesMedia: boolean;
  encrypted: boolean;
  /** scrypt parameters (passphrase), the installation key's id (no passphrase: the default), or null (not encrypted). */
  kdf: BackupKdf | null;
  collections: Array<TableInfo & { name: string }>;
  media: { items: TableInfo | null; folders: TableInfo | null; files: number; missingFiles: string[] };
  /** Entries' versions in other locales (content_entry_locales); absent in backups made before they were carried. */
  entryLocales?: TableInfo | null;
  /** Working drafts (content_entry_drafts, entry-drafts.ts); absent in backups made before they were carried. */
  entryDrafts?: TableInfo | null;
  /** When the default locale's values last changed (content_entry_locale_times, entry-locale-times.ts); absent before. */
  entryLocaleTimes?: TableInfo | null;
  config: { file: string; settings: number; roles: number; collections: number; themes: number; components?: number; locales?: number };
  entries: number;
  files: FileEntry[];
  /** SHA-256 of checksums.sha256. */
  checksumsSha256: string;
  /** HMAC-SHA256 of this manifest under the installation's key (installation-key.ts); absent in backups of older versions. */
  mac?: ManifestMac;
  /** Set when an administrator imported the backup as foreign (its own `mac` did not check out here). */
  importedAsForeign?: { at: string; by: string | null; reason: string };
}

/** Counts bytes and hashes them while they pass, up to INLINE_HASH_LIMIT (then the pool hashes the file). */
class HashCounter extends Transform {
  size = 0;
  private hash: ReturnType<typeof createHash> | null = createHash('sha256');
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.size += chunk.length;
    if (this.hash && this.size > INLINE_HASH_LIMIT) this.hash = null;
    this.hash?.update(chunk);
    cb(null, chunk);
  }
  digest(): string | null {
    return this.hash ? this.hash.digest('hex') : null;
  }
}

/** Streams `source` (optionally through AES-256-GCM) to `<dir>/<rel>`; answers the file's entry. */
export async function writeBackupFile(
  dir: string,
  rel: string,
  source: Readable,
  key: Buffer | null,
  pool: WorkerPool,
): Promise<FileEntry> {
  const path = join(dir, rel);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const counter = new HashCounter();
  const enc = key ? encryptor(key) : null;
  // Owner-only: a backup holds every tenant's content.
  if (enc) await pipeline(source, enc.cipher, counter, createWriteStream(path, { mode: 0o600 }));
  else await pipeline(source, counter, createWriteStream(path, { mode: 0o600 }));
  const sha256 = counter.digest() ?? (await poolHash(pool, path)).sha256;
  return { path: rel, size: counter.size, sha256, ...(enc ? { iv: enc.iv, tag: enc.cipher.getAuthTag().toString('hex') } : {}) };
}

export async function poolHash(pool: WorkerPool, path: string): Promise<{ sha256: string; size: number }> {
  const r = await pool.sha256File(path);
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.value;
}

/** The plain bytes of a stored file (decrypted and authenticated at its end when encrypted). */
export function openBackupFile(dir: string, entry: FileEntry, key: Buffer | null): Readable {
  const raw = createReadStream(join(dir, entry.path));
  if (!key || !entry.iv || !entry.tag) return raw;
  const d = decryptor(key, entry.iv, entry.tag);
  raw.on('error', (err) => d.destroy(err));
  return raw.pipe(d);
}

/** Lines of an NDJSON stream, parsed; an error of the stream (a failed auth tag) rejects the iteration. */
export async function* ndjsonRows(stream: Readable): AsyncGenerator<Record<string, unknown>> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for await (const chunk of stream) {
    carry += decoder.write(chunk as Buffer);
    let nl: number;
    while ((nl = carry.indexOf('\n')) >= 0) {
      const line = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      if (line.trim()) yield JSON.parse(line);
    }
  }
  carry += decoder.end();
  if (carry.trim()) yield JSON.parse(carry);
}

/** Page-wise rows as an NDJSON byte stream. */
export function ndjsonStream(pages: AsyncIterable<Array<Record<string, unknown>>>): Readable {
  return Readable.from(
    (async function* () {
      for await (const page of pages) yield Buffer.from(page.map((r) => JSON.stringify(r)).join('\n') + '\n');
    })(),
    { objectMode: false },
  );
}
