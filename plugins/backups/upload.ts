/**
 * POST /api/backups/upload: a tar.gz made by GET /api/backups/:backupId/download, streamed to disk, then
 * extracted by lib/storage/safe-tar-extract (entry by entry, never `tar.x`): every entry is checked
 * before a byte of it is written, and any refusal removes everything.
 *
 *   <root>/.upload-<hex>.partial/archive.tar.gz          the received body (kernel multipart rules)
 *   <root>/.upload-<hex>.partial/x/<id>.svelty-backup/   the extraction
 *   -> renamed to <root>/<id>.svelty-backup/ once the manifest checks out (409 BACKUP_EXISTS if taken)
 *
 * Before the rename the manifest's MAC is checked (installation-key.ts): one that is not this
 * installation's is refused (400 BACKUP_UNTRUSTED) unless the upload says foreign=true.
 * The `.partial` folder is removed in every outcome; one left by a crash is pruned after a day.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { z } from 'zod';
import { receiveMultipartFile } from '../../kernel/sdk.js';
import { listFiles } from '../../lib/storage/list-files.js';
import { safeTarExtract } from '../../lib/storage/safe-tar-extract.js';
import {
  BackupArchiveInvalidError,
  BackupArchiveLimitError,
  BackupArchiveLinkError,
  BackupArchiveSpecialFileError,
  BackupArchiveUnsafePathError,
  BackupExistsError,
} from './errors.js';
import { BACKUP_ID, BACKUP_SUFFIX, FORMAT, FORMAT_VERSION, type BackupManifest } from './format.js';
import type { BackupOptions } from './options.js';

const MANIFEST_MAX_BYTES = 256 * 1024 * 1024;

const uploadLimitLabel = (maxBytes: number) => `${+(maxBytes / 1048576).toFixed(2)} MiB (BACKUP_UPLOAD_MAX_BYTES)`;

/** A path inside the backup folder: relative, forward slashes, no `..`, no backslash or NUL. */
export function safeRelativePath(p: unknown): p is string {
  if (typeof p !== 'string' || !p || p.length > 4096) return false;
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.includes('\\') || p.includes('\0')) return false;
  return !p.split('/').some((s) => s === '..' || s === '.' || s === '');
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const tableInfo = z.object({ table: z.string(), rows: z.number().int().min(0), checksum: z.string(), file: z.string() }).passthrough();
/** What restore reads from a manifest; anything else is passed through untouched. */
const manifestSchema = z
  .object({
    format: z.literal(FORMAT),
    formatVersion: z.literal(FORMAT_VERSION),
    backupId: z.string().regex(BACKUP_ID),
    createdAt: z.string(),
    db: z.object({ dialect: z.string() }).passthrough(),
    includesMedia: z.boolean(),
    encrypted: z.boolean(),
    kdf: z.unknown(),
    collections: z.array(tableInfo.extend({ name: z.string().min(1).max(200) })),
    media: z
      .object({
        items: tableInfo.extend({ table: z.literal('media_items') }).nullable(),
        folders: tableInfo.extend({ table: z.literal('media_folders') }).nullable(),
        files: z.number().int().min(0),
        missingFiles: z.array(z.string()),
      })
      .passthrough(),
    config: z
      .object({
        file: z.string(),
        settings: z.number().int().min(0),
        roles: z.number().int().min(0),
        collections: z.number().int().min(0),
        themes: z.number().int().min(0),
      })
      .passthrough(),
    entries: z.number().int().min(0),
    files: z.array(
      z
        .object({ path: z.string(), size: z.number().int().min(0), sha256: hex64, iv: z.string().optional(), tag: z.string().optional() })
        .passthrough(),
    ),
    checksumsSha256: hex64,
  })
  .passthrough();

export interface UploadResult {
  backupId: string;
  manifest: BackupManifest;
}

/**
 * Receives, extracts and checks one uploaded archive; answers the new backup's id. Every refusal
 * (kernel multipart 4xx, the BACKUP_ARCHIVE_* errors, 409 BACKUP_EXISTS) leaves nothing on disk.
 */
export async function receiveBackupUpload(
  /** The request (multipart field `file`), or an archive file already on this machine (`cms backup restore FILE`). */
  source: Context | { archivePath: string },
  root: string,
  options: BackupOptions,
  /**
   * Checks the manifest's MAC before anything is listed: throws (400 BACKUP_UNTRUSTED) to refuse, answers
   * a manifest to write instead (a foreign backup an administrator vouched for) or null to keep it as it is.
   */
  trust: (manifest: BackupManifest) => Promise<BackupManifest | null>,
): Promise<UploadResult> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const work = join(root, `.upload-${randomBytes(8).toString('hex')}.partial`);
  await mkdir(work, { mode: 0o700 });
  try {
    const local = 'archivePath' in source && typeof source.archivePath === 'string';
    const archive = local ? (source as { archivePath: string }).archivePath : join(work, 'archive.tar.gz');
    if (!local) await receiveMultipartFile(source as Context, archive, options.uploadMaxBytes, uploadLimitLabel(options.uploadMaxBytes));
    const extractRoot = join(work, 'x');
    await mkdir(extractRoot);
    const folder = await extract(archive, extractRoot, options);
    if (!local) await rm(archive, { force: true });
    const backupId = folder.slice(0, -BACKUP_SUFFIX.length);
    let manifest = await checkFolder(join(extractRoot, folder), backupId);
    const target = join(root, folder);
    if (await stat(target).catch(() => null)) throw new BackupExistsError(backupId);
    const vouched = await trust(manifest);
    if (vouched) {
      await writeFile(join(extractRoot, folder, 'manifest.json'), JSON.stringify(vouched, null, 2), { mode: 0o600 });
      manifest = vouched;
    }
    try {
      await rename(join(extractRoot, folder), target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new BackupExistsError(backupId);
      throw err;
    }
    return { backupId, manifest };
  } finally {
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Extracts the archive below `dest` (lib/storage/safe-tar-extract), every entry inside one
 * `<backupId>.svelty-backup` folder. Answers that folder's name.
 */
async function extract(archive: string, dest: string, options: BackupOptions): Promise<string> {
  let top = null as string | null;
  const checkEntry = (raw: string, segments: string[], type: string): Error | null => {
    const first = segments[0]!;
    if (!first.endsWith(BACKUP_SUFFIX) || !BACKUP_ID.test(first.slice(0, -BACKUP_SUFFIX.length)))
      return new BackupArchiveInvalidError(`the entry '${raw.slice(0, 200)}' is not inside a <backupId>${BACKUP_SUFFIX} folder`);
    if (top !== null && top !== first) return new BackupArchiveInvalidError('the archive holds more than one backup folder');
    top = first;
    if (segments.length === 1 && type !== 'Directory') return new BackupArchiveInvalidError(`'${first}' is not a folder`);
    return null;
  };
  await safeTarExtract(
    archive,
    dest,
    { maxEntries: options.uploadMaxEntries, maxExtractedBytes: options.uploadMaxExtractedBytes },
    {
      invalid: (message) => new BackupArchiveInvalidError(message),
      unsafePath: (path) => new BackupArchiveUnsafePathError(path),
      link: (path) => new BackupArchiveLinkError(path),
      special: (path, kind) => new BackupArchiveSpecialFileError(path, kind),
      // No ratio limit is passed, so only these two fire.
      limit: (name) =>
        name === 'maxEntries'
          ? new BackupArchiveLimitError('uploadMaxEntries', 'BACKUP_UPLOAD_MAX_ENTRIES', options.uploadMaxEntries)
          : new BackupArchiveLimitError('uploadMaxExtractedBytes', 'BACKUP_UPLOAD_MAX_EXTRACTED_BYTES', options.uploadMaxExtractedBytes),
    },
    { notGzip: 'not gzip-compressed (send the .tar.gz of a download)', checkEntry },
  );
  if (!top) throw new BackupArchiveInvalidError('the archive is empty');
  return top;
}

/** The extracted folder has a manifest restore can trust: shape, id, and exactly the listed files with their sizes. */
async function checkFolder(dir: string, backupId: string): Promise<BackupManifest> {
  const mstat = await stat(join(dir, 'manifest.json')).catch(() => null);
  if (!mstat?.isFile()) throw new BackupArchiveInvalidError('no manifest.json in the backup folder');
  if (mstat.size > MANIFEST_MAX_BYTES) throw new BackupArchiveInvalidError('manifest.json is too large');
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    throw new BackupArchiveInvalidError('manifest.json is not valid JSON');
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BackupArchiveInvalidError(`manifest.json: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const m = parsed.data as unknown as BackupManifest;
  if (m.backupId !== backupId) throw new BackupArchiveInvalidError(`manifest.json names backup '${m.backupId}', the folder '${backupId}'`);
  const listed = new Set<string>();
  for (const f of m.files) {
    if (!safeRelativePath(f.path) || f.path === 'manifest.json' || f.path === 'checksums.sha256')
      throw new BackupArchiveInvalidError(`manifest.json lists an unusable path '${String(f.path).slice(0, 200)}'`);
    if (listed.has(f.path)) throw new BackupArchiveInvalidError(`manifest.json lists '${f.path}' twice`);
    listed.add(f.path);
  }
  for (const c of m.collections)
    if (!listed.has(c.file)) throw new BackupArchiveInvalidError(`collection '${c.name}': its file '${c.file}' is not listed`);
  for (const t of [m.media.items, m.media.folders])
    if (t && !listed.has(t.file)) throw new BackupArchiveInvalidError(`${t.table}: its file '${t.file}' is not listed`);
  // Exactly the listed files (plus manifest.json and checksums.sha256), each of its listed size.
  const present = await listFiles(dir, (rel) => {
    throw new BackupArchiveInvalidError(`'${rel}' is not a regular file`);
  });
  if (!present.has('checksums.sha256')) throw new BackupArchiveInvalidError('no checksums.sha256 in the backup folder');
  for (const f of m.files) {
    const size = present.get(f.path);
    if (size === undefined) throw new BackupArchiveInvalidError(`'${f.path}' is listed in manifest.json but missing`);
    if (size !== f.size) throw new BackupArchiveInvalidError(`'${f.path}' has ${size} bytes, manifest.json says ${f.size}`);
  }
  for (const rel of present.keys())
    if (rel !== 'manifest.json' && rel !== 'checksums.sha256' && !listed.has(rel))
      throw new BackupArchiveInvalidError(`'${rel.slice(0, 200)}' is not listed in manifest.json`);
  return m;
}
