/**
 * Safe extraction of an uploaded tar archive (gzip-compressed or not) into a job's folder, inside a
 * worker. Entries stream one by one (never the whole archive in memory); nothing is written outside
 * the destination: paths with `..`, absolute paths, links, devices and FIFOs are refused and reported;
 * macOS junk (AppleDouble `._name`, `__MACOSX/`, `.DS_Store`) is skipped and reported; the bytes the
 * archive decompresses to (skipped entries included), the compression ratio and the number of entries
 * are capped (workers/import/limits.ts). Worker-side only (no kernel imports).
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { resolve, sep, join } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { DEFAULT_IMPORT_LIMITS, EntryCounter, formatBytes, ImportLimitError, isLimitError, tarBytes, type LimitName } from './limits.js';
import { readHead } from './read-head.js';

export interface ArchiveLimits {
  /** Most bytes the archive may decompress to, and be written, in total (default 2 GiB). */
  maxBytes?: number;
  /** Most entries read, including refused ones (default 100,000). */
  maxEntries?: number;
  /** Most decompressed bytes per compressed byte once the first MiB came out (default 200). */
  maxRatio?: number;
}

export interface ArchiveEntryIssue {
  path: string;
  reason: string;
}

export interface ArchiveResult {
  /** Files written, relative to the destination, forward slashes, in archive order. */
  files: string[];
  /** Entries refused for safety (never written). */
  rejected: ArchiveEntryIssue[];
  /** Entries left out on purpose (operating-system junk). */
  skipped: ArchiveEntryIssue[];
  /** Bytes written. */
  bytes: number;
  /** Entries seen. */
  entries: number;
  /** Set when extraction stopped early (a limit reached, a corrupt archive); what was written stays. */
  error?: string;
  /** Set when a limit stopped it: which one, and the message naming its setting. */
  limit?: { limit: LimitName; message: string };
}

export const DEFAULT_ARCHIVE_LIMITS = {
  maxBytes: DEFAULT_IMPORT_LIMITS.maxDecompressedBytes,
  maxEntries: DEFAULT_IMPORT_LIMITS.maxArchiveEntries,
  maxRatio: DEFAULT_IMPORT_LIMITS.maxCompressionRatio,
} as const;

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const LINK_TYPES = new Set(['Link', 'SymbolicLink']);
const DEVICE_TYPES = new Set(['CharacterDevice', 'BlockDevice', 'FIFO']);

/** The entry's path split into safe segments, or why it is refused. */
export function checkEntryPath(path: string): { segments: string[] } | { reason: string } {
  if (path.includes('\0')) return { reason: 'path contains a NUL byte' };
  if (path.includes('\\')) return { reason: 'path contains a backslash' };
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return { reason: 'absolute path' };
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { reason: 'path leaves the archive folder (..)' };
  return { segments };
}

/** macOS metadata that archivers add beside real files: never content. */
export function isOsJunk(segments: string[]): boolean {
  const base = segments[segments.length - 1] ?? '';
  return base.startsWith('._') || base === '.DS_Store' || segments[0] === '__MACOSX';
}

/**
 * Extracts `archivePath` into `destDir` (created if missing). Never throws for a bad archive: the
 * problem comes back in `error`, refused entries in `rejected`.
 */
export async function extractArchive(archivePath: string, destDir: string, limits: ArchiveLimits = {}): Promise<ArchiveResult> {
  const maxBytes = limits.maxBytes ?? DEFAULT_ARCHIVE_LIMITS.maxBytes;
  const maxEntries = limits.maxEntries ?? DEFAULT_ARCHIVE_LIMITS.maxEntries;
  const maxRatio = limits.maxRatio ?? DEFAULT_ARCHIVE_LIMITS.maxRatio;
  const root = resolve(destDir);
  mkdirSync(root, { recursive: true });
  const result: ArchiveResult = { files: [], rejected: [], skipped: [], bytes: 0, entries: 0 };
  const writes: Array<Promise<void>> = [];
  const open = new Set<NodeJS.WritableStream & { destroy(): void }>();
  let head: Buffer;
  try {
    head = await readHead(archivePath, 2);
  } catch (err) {
    return { ...result, error: `cannot read the archive: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  const gzip = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
  const counter = new EntryCounter(maxEntries);
  const tooBig = () => new ImportLimitError('maxDecompressedBytes', `decompressed size over ${formatBytes(maxBytes)}`);

  return new Promise<ArchiveResult>((done) => {
    let settled = false;
    // Decompressed here, counted against the size and ratio limits (skipped entries' bytes too).
    const source = tarBytes(archivePath, gzip, {
      maxDecompressedBytes: maxBytes,
      maxCompressionRatio: maxRatio,
      maxArchiveEntries: maxEntries,
      maxLineBytes: DEFAULT_IMPORT_LIMITS.maxLineBytes,
    });
    const parser = new Parser({
      strict: false,
      // Unknown pax keywords (LIBARCHIVE.xattr.*) and similar are harmless: not worth a warning each.
      onwarn: (code, message) => {
        if (code === 'TAR_ENTRY_INVALID' || code === 'TAR_BAD_ARCHIVE' || code === 'TAR_ABORT')
          result.error ??= `archive is damaged: ${message}`;
      },
    });

    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      if (error) result.error ??= error;
      source.destroy();
      void Promise.allSettled(writes).then(() => done(result));
    };
    const stop = (error: string, limit?: unknown) => {
      if (isLimitError(limit)) result.limit ??= { limit: limit.limit, message: limit.message };
      result.error ??= error;
      // Files still being written are cut short: their entries are reported as refused.
      for (const out of open) out.destroy();
      finish();
    };

    parser.on('entry', (entry: ReadEntry) => {
      if (settled) return void entry.resume();
      result.entries++;
      try {
        counter.next();
      } catch (err) {
        entry.resume();
        return stop(`archive has more than ${maxEntries} entries`, err);
      }
      const checked = checkEntryPath(entry.path);
      if ('reason' in checked) {
        result.rejected.push({ path: entry.path, reason: checked.reason });
        return void entry.resume();
      }
      const { segments } = checked;
      const rel = segments.join('/');
      if (LINK_TYPES.has(entry.type)) {
        result.rejected.push({ path: entry.path, reason: `${entry.type === 'Link' ? 'hard' : 'symbolic'} link` });
        return void entry.resume();
      }
      if (DEVICE_TYPES.has(entry.type)) {
        result.rejected.push({ path: entry.path, reason: `device or FIFO (${entry.type})` });
        return void entry.resume();
      }
      if (segments.length === 0) return void entry.resume();
      const target = resolve(root, ...segments);
      if (target !== root && !target.startsWith(root + sep)) {
        result.rejected.push({ path: entry.path, reason: 'path leaves the archive folder' });
        return void entry.resume();
      }
      if (entry.type === 'Directory') {
        try {
          mkdirSync(target, { recursive: true });
        } catch (err) {
          result.rejected.push({ path: entry.path, reason: `cannot create folder: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
        }
        return void entry.resume();
      }
      if (!FILE_TYPES.has(entry.type)) {
        result.rejected.push({ path: entry.path, reason: `unsupported entry type ${entry.type}` });
        return void entry.resume();
      }
      if (isOsJunk(segments)) {
        result.skipped.push({ path: rel, reason: 'macOS metadata (AppleDouble/.DS_Store), not content' });
        return void entry.resume();
      }
      if (result.bytes + entry.size > maxBytes) {
        entry.resume();
        return stop(`archive expands to more than ${maxBytes} bytes`, tooBig());
      }
      try {
        mkdirSync(join(target, '..'), { recursive: true });
      } catch (err) {
        result.rejected.push({ path: entry.path, reason: `cannot create folder: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
        return void entry.resume();
      }
      const out = createWriteStream(target, { flags: 'w', mode: 0o600 });
      open.add(out);
      // Written by hand (not pipe) so every byte is counted on its way, with backpressure.
      entry.on('data', (chunk: Buffer) => {
        result.bytes += chunk.length;
        // The header's size is checked above; this catches an entry whose data runs past it.
        if (result.bytes > maxBytes) return stop(`archive expands to more than ${maxBytes} bytes`, tooBig());
        if (!out.write(chunk)) {
          entry.pause();
          out.once('drain', () => entry.resume());
        }
      });
      entry.on('end', () => out.end());
      writes.push(
        finished(out).then(
          () => {
            open.delete(out);
            result.files.push(rel);
          },
          (err: NodeJS.ErrnoException) => {
            open.delete(out);
            const reason = settled ? 'extraction stopped before this entry was complete' : `cannot write: ${err.code ?? err.message}`;
            result.rejected.push({ path: entry.path, reason });
          },
        ),
      );
    });
    parser.on('error', (err: Error) => stop(`archive is not a readable tar file: ${err.message}`));
    parser.on('end', () => finish());
    source.on('error', (err: NodeJS.ErrnoException) => {
      if (isLimitError(err))
        stop(err.limit === 'maxDecompressedBytes' ? `archive expands to more than ${maxBytes} bytes` : err.message, err);
      else stop(`cannot read the archive: ${err.code ?? err.message}`);
    });
    source.pipe(parser);
  });
}
