/**
 * The contract of the `storageDrivers` extension point, owned by the media plugin (the one that reads it):
 * storage plugins implement it, and public.ts declares it as the registry's entry type.
 */
import type { Readable } from 'node:stream';

/**
 * Storage driver: chosen by MEDIA_STORAGE_TYPE (its id). Paths are relative (`<tenant>/2026/11/x.png`,
 * forward slashes, no `..`) and the driver places them under MEDIA_FOLDER (a folder or a key prefix).
 * A path the driver cannot confine throws (the media plugin answers 400).
 */
export interface StorageDriver {
  id: string;
  /** 'local': /files/ streams the file itself (ETag, Range); 'remote': /files/ redirects to publicUrl. */
  kind: 'local' | 'remote';
  put(path: string, body: Readable | Buffer, meta?: { mimeType?: string; size?: number }): Promise<{ size: number; etag?: string }>;
  /** The bytes, or the inclusive byte range [start, end]. */
  get(path: string, range?: { start: number; end: number }): Promise<Readable>;
  head(path: string): Promise<{ size: number; etag?: string; mimeType?: string; modifiedAt?: Date } | null>;
  /** Local drivers move the file to their trash; remote drivers delete it directly. */
  delete(path: string): Promise<void>;
  /** Where a browser fetches the file directly (remote drivers; local drivers answer `/files/<path>`). */
  publicUrl(path: string): string;
  /** Local trash: what is in it, put a file back, empty it (all, or one path). */
  listTrash?(): Promise<Array<{ path: string; size: number; deletedAt: Date }>>;
  restore?(path: string): Promise<void>;
  purge?(path?: string): Promise<number>;
  /** A quick reachability check for the health endpoint. */
  check?(): Promise<void>;
  /**
   * Local drivers may offer this for serving: the file opened once (one open and one fstat instead of
   * head() then get()), null when there is none. The caller takes stream() once, or calls close().
   */
  openRead?(path: string): Promise<OpenedFile | null>;
}

/** A file opened for serving (StorageDriver.openRead): what head() answers, and its bytes. */
export interface OpenedFile {
  size: number;
  etag: string;
  modifiedAt: Date;
  /** The bytes, or the inclusive range [start, end] (within size); the stream owns the descriptor from then on. */
  stream(range?: { start: number; end: number }): Readable;
  /** Releases the descriptor when no stream was taken (a 304, a HEAD, an empty file); a no-op after stream(). */
  close(): void;
}
