import { mkdir, realpath } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { StorageError } from '../../lib/storage/storage-error.js';
import { storagePathSegments } from '../../lib/storage/storage-path.js';

const missing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * A folder that relative storage paths are confined to. `root` is the folder's real path (symlinks of
 * the operator's own mount points resolved once), so a path below it whose real path differs has a
 * symlink (or something stranger) in it, and is refused.
 */
export class ConfinedFolder {
  constructor(readonly root: string) {}

  /** The absolute path of a storage path, after the syntactic checks and the containment check. */
  resolve(path: string): string {
    const abs = resolve(this.root, ...storagePathSegments(path));
    if (!abs.startsWith(this.root + sep)) throw new StorageError('INVALID_PATH', 'Invalid storage path: outside the storage folder');
    return abs;
  }

  /**
   * Whether `abs` exists, refusing it when it or any existing ancestor below the root is a symlink.
   * One realpath call for an existing file; walks up to the deepest existing ancestor otherwise.
   */
  async exists(abs: string): Promise<boolean> {
    for (let current = abs, first = true; current.startsWith(this.root + sep); current = dirname(current), first = false) {
      let real: string;
      try {
        real = await realpath(current);
      } catch (err) {
        if (missing(err)) continue;
        if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw this.symlink();
        throw err;
      }
      if (real !== current) throw this.symlink();
      return first;
    }
    return false;
  }

  /** Creates the parent folders of `abs` after checking that no existing one is a symlink. */
  async ensureParent(abs: string): Promise<void> {
    const parent = dirname(abs);
    if (parent === this.root) return;
    await this.exists(parent);
    try {
      await mkdir(parent, { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') throw new StorageError('ALREADY_EXISTS', 'A folder of the storage path is a file');
      throw err;
    }
  }

  private symlink(): StorageError {
    return new StorageError('INVALID_PATH', 'Invalid storage path: it goes through a symbolic link');
  }
}
