import type { Readable } from 'node:stream';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, type Logger } from '../../kernel/sdk.js';
import type { StorageDriver } from './storage-driver.js';
import { MediaPathInvalidError, MediaStorageUnavailableError } from './errors.js';

/**
 * The storage driver chosen at boot, behind calls that turn driver failures into the plugin's answers:
 * a path the driver cannot confine -> 400 MEDIA_PATH_INVALID, a missing file -> 404, anything else ->
 * 503 MEDIA_STORAGE_UNAVAILABLE with the cause logged (driver messages may name hosts or buckets).
 * Drivers say why through a `reason` field (INVALID_PATH, NOT_FOUND, ...), read here by duck typing.
 */
export class MediaStorage {
  private current: StorageDriver | null = null;

  constructor(private readonly logger: Logger) {}

  attach(driver: StorageDriver): void {
    this.current = driver;
  }

  get driver(): StorageDriver {
    if (!this.current) throw new ServiceUnavailableError('Media storage is not ready yet');
    return this.current;
  }

  get id(): string {
    return this.driver.id;
  }

  /** Whether deletes go to a trash that can be listed, restored from and purged. */
  get hasTrash(): boolean {
    const d = this.driver;
    return typeof d.restore === 'function' && typeof d.purge === 'function' && typeof d.listTrash === 'function';
  }

  private fail(err: unknown, what: string): never {
    const reason = (err as { reason?: unknown })?.reason;
    if (reason === 'INVALID_PATH') throw new MediaPathInvalidError();
    if (reason === 'NOT_FOUND') throw new NotFoundError('No such file in media storage');
    if (reason === 'ALREADY_EXISTS') throw new ConflictError('A file already exists at this media path');
    if (err instanceof AppError && err.status < 500 && reason === undefined) throw err;
    this.logger.error({ err, driver: this.current?.id, operation: what }, 'media storage operation failed');
    throw new MediaStorageUnavailableError(err);
  }

  private async call<T>(what: string, fn: (d: StorageDriver) => Promise<T>): Promise<T> {
    const driver = this.driver;
    try {
      return await fn(driver);
    } catch (err) {
      this.fail(err, what);
    }
  }

  put(path: string, body: Readable | Buffer, meta?: { mimeType?: string; size?: number }) {
    return this.call('put', (d) => d.put(path, body, meta));
  }
  get(path: string, range?: { start: number; end: number }) {
    return this.call('get', (d) => d.get(path, range));
  }
  head(path: string) {
    return this.call('head', (d) => d.head(path));
  }
  /** The driver's openRead (local drivers), or undefined when it has none (then head() and get()). */
  openRead(path: string) {
    const d = this.driver;
    return d.openRead ? this.call('openRead', (x) => x.openRead!(path)) : undefined;
  }
  delete(path: string) {
    return this.call('delete', (d) => d.delete(path));
  }
  publicUrl(path: string): string {
    try {
      return this.driver.publicUrl(path);
    } catch (err) {
      this.fail(err, 'publicUrl');
    }
  }
  listTrash() {
    return this.call('listTrash', async (d) => (d.listTrash ? d.listTrash() : []));
  }
  restore(path: string) {
    return this.call('restore', async (d) => d.restore?.(path));
  }
  purge(path: string) {
    return this.call('purge', async (d) => (d.purge ? d.purge(path) : 0));
  }
  async check(): Promise<void> {
    await this.driver.check?.();
  }
}
