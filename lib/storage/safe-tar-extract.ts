/**
 * Safe extraction of a received tar.gz, entry by entry from the `tar` parser (never `tar.x`, which drops
 * what it dislikes silently): every entry is checked before a byte of it is written, only regular files
 * and folders are created (`wx`: a repeated path is refused, nothing is overwritten), and every
 * decompressed byte counts against the limits so a bomb stops there. The caller owns the destination
 * and removes it after a refusal; files still open when a refusal fires mid-file are closed first.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

export interface SafeTarLimits {
  maxEntries: number;
  /** Declared entry sizes and decompressed bytes (padding and trailing garbage too), each. */
  maxExtractedBytes: number;
  /** Decompressed / compressed bytes, checked past the first MiB; no ratio limit when absent. */
  maxRatio?: number;
}

export type SafeTarLimitName = keyof SafeTarLimits;

/** Factories for the caller's own errors, so each keeps its codes and messages. */
export interface SafeTarRefusals {
  invalid(message: string): Error;
  unsafePath(path: string): Error;
  link(path: string): Error;
  special(path: string, kind: string): Error;
  limit(name: SafeTarLimitName): Error;
}

export interface SafeTarHooks {
  /** The message of `invalid` when the file does not start with the gzip magic bytes. */
  notGzip?: string;
  /** The caller's own check of an entry that passed the generic ones (before its size is counted). */
  checkEntry?(path: string, segments: string[], type: string): Error | null;
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const LINK_TYPES = new Set(['SymbolicLink', 'Link']);
const SPECIAL_NAMES: Record<string, string> = { CharacterDevice: 'character device', BlockDevice: 'block device', FIFO: 'FIFO' };
const RATIO_FLOOR = 1024 * 1024;

/**
 * Extracts the gzip tar file `archive` below `dest` (which must exist) and answers the number of entries.
 * Throws the first refusal built by `refusals`; an archive without entries is `invalid`.
 */
export async function safeTarExtract(
  archive: string,
  dest: string,
  limits: SafeTarLimits,
  refusals: SafeTarRefusals,
  hooks: SafeTarHooks = {},
): Promise<number> {
  const head = Buffer.alloc(2);
  const fh = await open(archive, 'r');
  let compressed = 0;
  try {
    await fh.read(head, 0, 2, 0);
    compressed = (await fh.stat()).size;
  } finally {
    await fh.close();
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) throw refusals.invalid(hooks.notGzip ?? 'not gzip-compressed');

  let failure: Error | null = null;
  const fail = (err: Error) => {
    failure ??= err;
  };
  let entries = 0;
  let declaredBytes = 0;
  const writes: Array<Promise<void>> = [];
  /** Files being written: closed at once when the extraction stops half-way (their entry never ends). */
  const openFiles = new Set<WriteStream>();
  const destRoot = resolve(dest);

  /** Refusal for one entry (count, path, type, the caller's check, declared bytes), or null. */
  const checkEntry = (entry: ReadEntry): Error | null => {
    entries++;
    if (entries > limits.maxEntries) return refusals.limit('maxEntries');
    const raw = entry.path;
    if (typeof raw !== 'string' || raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || raw.includes('\\') || raw.includes('\0'))
      return refusals.unsafePath(String(raw));
    const segments = raw.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
    if (segments.includes('..')) return refusals.unsafePath(raw);
    if (LINK_TYPES.has(entry.type)) return refusals.link(raw);
    if (entry.type !== 'Directory' && !FILE_TYPES.has(entry.type))
      return refusals.special(raw, SPECIAL_NAMES[entry.type] ?? `${entry.type} entry`);
    if (segments.some((s) => s === '' || s === '.'))
      return refusals.invalid(`the entry '${raw.slice(0, 200)}' has an empty or '.' path segment`);
    const own = hooks.checkEntry?.(raw, segments, entry.type);
    if (own) return own;
    declaredBytes += entry.size;
    if (declaredBytes > limits.maxExtractedBytes) return refusals.limit('maxExtractedBytes');
    return null;
  };

  const parser = new Parser({ strict: true, brotli: false, zstd: false } as never);
  parser.on('warn', (_code: string, message: string | Error) =>
    fail(refusals.invalid(`damaged tar (${String((message as Error)?.message ?? message)})`)),
  );
  parser.on('error', (err: Error) => fail(refusals.invalid(`damaged tar (${err.message})`)));
  parser.on('entry', (entry: ReadEntry) => {
    if (failure) return void entry.resume();
    const refusal = checkEntry(entry);
    if (refusal) {
      fail(refusal);
      return void entry.resume();
    }
    const rel = entry.path.replace(/^\.\//, '').replace(/\/+$/, '');
    const full = resolve(destRoot, rel);
    if (!full.startsWith(destRoot + sep)) {
      fail(refusals.unsafePath(entry.path));
      return void entry.resume();
    }
    if (entry.type === 'Directory') {
      writes.push(
        mkdir(full, { recursive: true, mode: 0o700 }).then(
          () => undefined,
          (err: Error) => fail(refusals.invalid(`cannot create ${rel}: ${err.message}`)),
        ),
      );
      return void entry.resume();
    }
    entry.pause();
    const parent = full.slice(0, full.lastIndexOf(sep));
    writes.push(
      mkdir(parent, { recursive: true, mode: 0o700 })
        .then(async () => {
          if (failure) return void entry.resume();
          // `wx`: a second entry for the same path is refused, never overwrites the first.
          const out = createWriteStream(full, { flags: 'wx', mode: 0o600 });
          openFiles.add(out);
          entry.pipe(out);
          await once(out, 'close');
          openFiles.delete(out);
          if (out.errored) throw out.errored;
        })
        .catch((err: Error) => {
          fail(refusals.invalid(`cannot write ${rel}: ${err.message}`));
          entry.resume();
        }),
    );
  });

  // Every decompressed byte counts (padding and trailing garbage too), so a bomb stops at the limit.
  const source = createReadStream(archive).pipe(createGunzip());
  let inflated = 0;
  let first = true;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > limits.maxExtractedBytes) fail(refusals.limit('maxExtractedBytes'));
      else if (limits.maxRatio !== undefined && inflated > RATIO_FLOOR && inflated > limits.maxRatio * compressed)
        fail(refusals.limit('maxRatio'));
      if (first) {
        first = false;
        // A plain ustar header, never a nested compressed stream for the parser to inflate again.
        if (chunk.length < 512 || chunk.subarray(257, 262).toString('latin1') !== 'ustar')
          fail(refusals.invalid('the gzip does not hold a tar archive'));
      }
      if (failure) break;
      if (!parser.write(chunk)) {
        // Both waits are dropped once one fires (no listener piles up on the parser).
        const ac = new AbortController();
        const wait = (event: string) => once(parser, event, { signal: ac.signal }).catch(() => undefined);
        await Promise.race([wait('drain'), wait('error')]);
        ac.abort();
      }
      if (failure) break;
    }
  } catch (err) {
    fail(refusals.invalid(`damaged gzip (${(err as Error).message})`));
  } finally {
    source.destroy();
  }
  if (!failure) {
    const ended = once(parser, 'end').catch(() => undefined);
    parser.end();
    await ended;
  } else {
    parser.abort?.(failure);
    for (const out of openFiles) out.destroy();
  }
  await Promise.allSettled(writes);
  if (failure) throw failure;
  if (entries === 0) throw refusals.invalid('the archive is empty');
  return entries;
}
