import { randomBytes } from 'node:crypto';
import {
  close as closeFd,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  fstat,
  open as openFd,
  readlinkSync,
  type BigIntStats,
  type WriteStream,
} from 'node:fs';
import { copyFile, link, mkdir, open, readdir, realpath, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OpenedFile, StorageDriver } from '../media/public.js';
import { ConfinedFolder } from './confined-folder.js';
import { StorageError } from '../../lib/storage/storage-error.js';
import { storagePathSegments } from '../../lib/storage/storage-path.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Strong validator without reading the file: size, nanosecond mtime and inode. Every write lands in a
 * new file renamed into place (a new inode), so two versions differ even when written in the same clock tick.
 */
export const etagOf = (st: BigIntStats) => `"${st.size.toString(16)}-${st.mtimeNs.toString(16)}-${st.ino.toString(16)}"`;

/** Resolves once a write stream has released its file (opened and closed, or never opened). */
const closedStream = (stream: WriteStream) =>
  new Promise<void>((resolve) => {
    if (stream.closed) resolve();
    else stream.once('close', () => resolve());
  });

const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');
/** The path an open descriptor refers to (Linux /proc), or null where that cannot be read. */
function fdPath(fd: number): string | null {
  if (!PROC_FD) return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

function mapFsError(err: unknown): unknown {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'EISDIR':
      return new StorageError('NOT_FOUND', 'No such file in storage', { cause: err });
    case 'ELOOP':
      return new StorageError('INVALID_PATH', 'Invalid storage path: it goes through a symbolic link', { cause: err });
    case 'ENAMETOOLONG':
      return new StorageError('INVALID_PATH', 'Invalid storage path: name too long', { cause: err });
    case 'ENOTDIR':
    case 'EEXIST':
      return new StorageError('ALREADY_EXISTS', 'Something else already exists at this storage path', { cause: err });
    default:
      return err;
  }
}

/** Moves a file without replacing one at the target (hard link + unlink; copy across file systems). */
async function moveNoClobber(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV' && (err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    await copyFile(from, to, constants.COPYFILE_EXCL);
  }
  await unlink(from);
}

/** Moves a file, replacing what is at the target (rename; copy across file systems). */
async function moveReplacing(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await unlink(from);
  }
}

export interface LocalDriverConfig {
  /** Absolute media folder. */
  folder: string;
  /** Absolute trash folder: beside the media folder, never under it (the media folder is served). */
  trashFolder: string;
}

/**
 * The `local` driver. Files live under the media folder at their relative path; a write goes to a
 * dot-named temporary file in the target folder and is renamed into place (readers never see half a
 * file). Deleting moves the file to the trash folder at the same relative path (a second deletion of
 * the same path replaces the older copy there), with the deletion time as its modification time.
 */
export class LocalStorageDriver implements StorageDriver {
  readonly id = 'local';
  readonly kind = 'local' as const;
  #config: LocalDriverConfig | null = null;
  #ready: Promise<{ media: ConfinedFolder; trash: ConfinedFolder }> | null = null;

  configure(config: LocalDriverConfig): void {
    this.#config = config;
    this.#ready = null;
  }

  /** Creates both folders once and resolves their real paths (a failure is retried on the next call). */
  private folders(): Promise<{ media: ConfinedFolder; trash: ConfinedFolder }> {
    const config = this.#config;
    if (!config) return Promise.reject(new StorageError('NOT_CONFIGURED', "Storage driver 'local' has not been booted"));
    this.#ready ??= (async () => {
      await mkdir(config.folder, { recursive: true });
      await mkdir(config.trashFolder, { recursive: true });
      return { media: new ConfinedFolder(await realpath(config.folder)), trash: new ConfinedFolder(await realpath(config.trashFolder)) };
    })().catch((err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  async put(path: string, body: Readable | Buffer): Promise<{ size: number; etag: string }> {
    const { media } = await this.folders();
    const abs = media.resolve(path);
    await media.exists(abs); // refuses a path through a symlink; an existing file is replaced
    await media.ensureParent(abs);
    const temp = join(dirname(abs), `.${randomBytes(9).toString('base64url')}.part`);
    const out = createWriteStream(temp, { flags: 'wx', mode: 0o644, flush: true });
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, out);
      await rename(temp, abs);
    } catch (err) {
      // pipeline() rejects as soon as the source fails, while the file may still be opening (the open
      // finishes after the rejection and creates the file): wait for the stream to close, then remove it.
      await closedStream(out);
      await rm(temp, { force: true });
      throw mapFsError(err);
    }
    const st = await stat(abs, { bigint: true });
    return { size: Number(st.size), etag: etagOf(st) };
  }

  async get(path: string, range?: { start: number; end: number }): Promise<Readable> {
    const { media } = await this.folders();
    const abs = media.resolve(path);
    if (!(await media.exists(abs))) throw new StorageError('NOT_FOUND', 'No such file in storage');
    let handle;
    try {
      handle = await open(abs, constants.O_RDONLY | NOFOLLOW);
    } catch (err) {
      throw mapFsError(err);
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new StorageError('NOT_FOUND', 'No such file in storage');
      if (range) {
        const { start } = range;
        if (!Number.isSafeInteger(start) || !Number.isSafeInteger(range.end) || start < 0 || range.end < start || start >= st.size) {
          throw new StorageError('INVALID_RANGE', `Byte range ${start}-${range.end} is outside the file (${st.size} bytes)`);
        }
        return handle.createReadStream({ start, end: Math.min(range.end, st.size - 1) });
      }
      return handle.createReadStream();
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async head(path: string): Promise<{ size: number; etag: string; modifiedAt: Date } | null> {
    const { media } = await this.folders();
    const abs = media.resolve(path);
    if (!(await media.exists(abs))) return null;
    const st = await stat(abs, { bigint: true });
    if (!st.isFile()) return null;
    return { size: Number(st.size), etag: etagOf(st), modifiedAt: new Date(Number(st.mtimeMs)) };
  }

  /**
   * For /files/: the same checks as get() (confinement, no symlink on the way, O_NOFOLLOW), but one
   * open and one fstat give both the validators and the bytes, and the stream is a plain
   * fs.createReadStream on the descriptor (callback I/O, no FileHandle).
   */
  async openRead(path: string): Promise<OpenedFile | null> {
    const { media } = await this.folders();
    const abs = media.resolve(path);
    let fd: number;
    try {
      fd = await new Promise<number>((resolve, reject) =>
        openFd(abs, constants.O_RDONLY | NOFOLLOW, (err, n) => (err ? reject(err) : resolve(n))),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Missing: the same answer as head() (a symlinked folder on the way is still refused, 400 not 404).
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        await media.exists(abs);
        return null;
      }
      throw mapFsError(err);
    }
    // The path the descriptor really has (Linux: one readlink of /proc/self/fd, memory only) must be the
    // one asked for, so no folder on the way is a symlink; elsewhere the realpath walk of exists().
    let confined: boolean;
    try {
      const real = fdPath(fd);
      confined = real === null ? await media.exists(abs) : real === abs;
      if (real !== null && !confined && real.endsWith(' (deleted)')) {
        closeFd(fd, () => undefined);
        return null;
      }
    } catch (err) {
      closeFd(fd, () => undefined);
      throw err;
    }
    if (!confined) {
      closeFd(fd, () => undefined);
      throw new StorageError('INVALID_PATH', 'Invalid storage path: it goes through a symbolic link');
    }
    let st: BigIntStats;
    try {
      st = await new Promise<BigIntStats>((resolve, reject) =>
        fstat(fd, { bigint: true }, (err, stats) => (err ? reject(mapFsError(err)) : resolve(stats))),
      );
    } catch (err) {
      closeFd(fd, () => undefined);
      throw err;
    }
    if (!st.isFile()) {
      closeFd(fd, () => undefined);
      return null;
    }
    let owned = false;
    return {
      size: Number(st.size),
      etag: etagOf(st),
      modifiedAt: new Date(Number(st.mtimeMs)),
      stream(range) {
        if (owned) throw new Error('openRead: the stream was already taken or the file closed');
        owned = true;
        return createReadStream('', { fd, autoClose: true, ...(range ? { start: range.start, end: range.end } : {}) });
      },
      close() {
        if (owned) return;
        owned = true;
        closeFd(fd, () => undefined);
      },
    };
  }

  /** Moves the file to the trash; deleting a path with no file is a no-op. */
  async delete(path: string): Promise<void> {
    const { media, trash } = await this.folders();
    const abs = media.resolve(path);
    if (!(await media.exists(abs))) return;
    const target = trash.resolve(path);
    await trash.exists(target);
    await trash.ensureParent(target);
    try {
      await moveReplacing(abs, target);
    } catch (err) {
      throw mapFsError(err);
    }
    const now = new Date();
    await utimes(target, now, now);
  }

  publicUrl(path: string): string {
    return `/files/${storagePathSegments(path).map(encodeURIComponent).join('/')}`;
  }

  async listTrash(): Promise<Array<{ path: string; size: number; deletedAt: Date }>> {
    const { trash } = await this.folders();
    const entries = await readdir(trash.root, { recursive: true, withFileTypes: true });
    const files: Array<{ path: string; size: number; deletedAt: Date }> = [];
    for (const entry of entries) {
      if (!entry.isFile() || entry.name.startsWith('.')) continue;
      const abs = join(entry.parentPath, entry.name);
      const st = await stat(abs).catch(() => null);
      if (st) files.push({ path: relative(trash.root, abs).split(sep).join('/'), size: st.size, deletedAt: st.mtime });
    }
    return files.sort((a, b) => b.deletedAt.getTime() - a.deletedAt.getTime() || a.path.localeCompare(b.path));
  }

  /** Puts a trashed file back at its path; refuses (ALREADY_EXISTS) when a file is there again. */
  async restore(path: string): Promise<void> {
    const { media, trash } = await this.folders();
    const from = trash.resolve(path);
    if (!(await trash.exists(from))) throw new StorageError('NOT_FOUND', 'No such file in the trash');
    const to = media.resolve(path);
    if (await media.exists(to))
      throw new StorageError('ALREADY_EXISTS', 'A file already exists at the original path; delete or move it first');
    await media.ensureParent(to);
    try {
      await moveNoClobber(from, to);
    } catch (err) {
      throw mapFsError(err);
    }
  }

  /** Deletes one trashed file, or everything in the trash; answers how many files went. */
  async purge(path?: string): Promise<number> {
    const { trash } = await this.folders();
    if (path !== undefined) {
      const abs = trash.resolve(path);
      if (!(await trash.exists(abs))) return 0;
      await unlink(abs).catch((err) => {
        throw mapFsError(err);
      });
      return 1;
    }
    const count = (await this.listTrash()).length;
    for (const name of await readdir(trash.root)) await rm(join(trash.root, name), { recursive: true, force: true });
    return count;
  }

  /** The media folder can be created and written to. */
  async check(): Promise<void> {
    const { media } = await this.folders();
    const probe = join(media.root, `.check-${randomBytes(6).toString('hex')}`);
    await (await open(probe, 'wx')).close();
    await unlink(probe);
  }
}
