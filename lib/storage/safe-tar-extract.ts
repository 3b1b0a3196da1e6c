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

/** The state of one extraction: the first refusal wins, every write is awaited before the answer. */
interface Extraction {
  dest: string;
  limits: SafeTarLimits;
  refusals: SafeTarRefusals;
  hooks: SafeTarHooks;
  failure: Error | null;
  entries: number;
  declaredBytes: number;
  writes: Array<Promise<void>>;
  /** Files being written: closed at once when the extraction stops half-way (their entry never ends). */
  openFiles: Set<WriteStream>;
}

function fail(run: Extraction, err: Error): void {
  run.failure ??= err;
}

/** The compressed size of `archive`, after checking it starts with the gzip magic bytes. */
async function gzipSize(archive: string, refusals: SafeTarRefusals, hooks: SafeTarHooks): Promise<number> {
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
  return compressed;
}

/** Refusal for one entry (count, path, type, the caller's check, declared bytes), or null. */
function checkEntry(run: Extraction, entry: ReadEntry): Error | null {
  const { limits, refusals } = run;
  run.entries++;
  if (run.entries > limits.maxEntries) return refusals.limit('maxEntries');
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
  const own = run.hooks.checkEntry?.(raw, segments, entry.type);
  if (own) return own;
  run.declaredBytes += entry.size;
  if (run.declaredBytes > limits.maxExtractedBytes) return refusals.limit('maxExtractedBytes');
  return null;
}

/** Creates a folder entry. */
function writeFolder(run: Extraction, entry: ReadEntry, full: string, rel: string): void {
  run.writes.push(
    mkdir(full, { recursive: true, mode: 0o700 }).then(
      () => undefined,
      (err: Error) => fail(run, run.refusals.invalid(`cannot create ${rel}: ${err.message}`)),
    ),
  );
  entry.resume();
}

/** Writes a file entry (its parent folders first). */
function writeFile(run: Extraction, entry: ReadEntry, full: string, rel: string): void {
  entry.pause();
  const parent = full.slice(0, full.lastIndexOf(sep));
  run.writes.push(
    mkdir(parent, { recursive: true, mode: 0o700 })
      .then(async () => {
        if (run.failure) return void entry.resume();
        // `wx`: a second entry for the same path is refused, never overwrites the first.
        const out = createWriteStream(full, { flags: 'wx', mode: 0o600 });
        run.openFiles.add(out);
        entry.pipe(out);
        await once(out, 'close');
        run.openFiles.delete(out);
        if (out.errored) throw out.errored;
      })
      .catch((err: Error) => {
        fail(run, run.refusals.invalid(`cannot write ${rel}: ${err.message}`));
        entry.resume();
      }),
  );
}

/** One parser entry: checked, then written below the destination (or skipped after a refusal). */
function onEntry(run: Extraction, destRoot: string, entry: ReadEntry): void {
  if (run.failure) return void entry.resume();
  const refusal = checkEntry(run, entry);
  if (refusal) {
    fail(run, refusal);
    return void entry.resume();
  }
  const rel = entry.path.replace(/^\.\//, '').replace(/\/+$/, '');
  const full = resolve(destRoot, rel);
  if (!full.startsWith(destRoot + sep)) {
    fail(run, run.refusals.unsafePath(entry.path));
    return void entry.resume();
  }
  if (entry.type === 'Directory') writeFolder(run, entry, full, rel);
  else writeFile(run, entry, full, rel);
}

/** The strict tar parser, its warnings and errors turned into `invalid` refusals. */
function entryParser(run: Extraction): Parser {
  const parser = new Parser({ strict: true, brotli: false, zstd: false } as never);
  const destRoot = resolve(run.dest);
  parser.on('warn', (_code: string, message: string | Error) =>
    fail(run, run.refusals.invalid(`damaged tar (${String((message as Error)?.message ?? message)})`)),
  );
  parser.on('error', (err: Error) => fail(run, run.refusals.invalid(`damaged tar (${err.message})`)));
  parser.on('entry', (entry: ReadEntry) => onEntry(run, destRoot, entry));
  return parser;
}

/** Refusal for the decompressed bytes so far (size, ratio, the first chunk a plain ustar header), or null. */
function checkInflated(run: Extraction, chunk: Buffer, inflated: number, compressed: number, first: boolean): Error | null {
  const { limits, refusals } = run;
  let refusal: Error | null = null;
  if (inflated > limits.maxExtractedBytes) refusal = refusals.limit('maxExtractedBytes');
  else if (limits.maxRatio !== undefined && inflated > RATIO_FLOOR && inflated > limits.maxRatio * compressed)
    refusal = refusals.limit('maxRatio');
  // A plain ustar header, never a nested compressed stream for the parser to inflate again.
  if (first && (chunk.length < 512 || chunk.subarray(257, 262).toString('latin1') !== 'ustar'))
    refusal ??= refusals.invalid('the gzip does not hold a tar archive');
  return refusal;
}

/** Inflates the archive into the parser; every decompressed byte counts (padding and trailing garbage too). */
async function inflateInto(run: Extraction, parser: Parser, archive: string, compressed: number): Promise<void> {
  const source = createReadStream(archive).pipe(createGunzip());
  let inflated = 0;
  let first = true;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      const refusal = checkInflated(run, chunk, inflated, compressed, first);
      if (refusal) fail(run, refusal);
      first = false;
      if (run.failure) break;
      if (!parser.write(chunk)) {
        // Both waits are dropped once one fires (no listener piles up on the parser).
        const ac = new AbortController();
        const wait = (event: string) => once(parser, event, { signal: ac.signal }).catch(() => undefined);
        await Promise.race([wait('drain'), wait('error')]);
        ac.abort();
      }
      if (run.failure) break;
    }
  } catch (err) {
    fail(run, run.refusals.invalid(`damaged gzip (${(err as Error).message})`));
  } finally {
    source.destroy();
  }
}

/** Ends the parser (or aborts it and closes the open files after a refusal) and waits for every write. */
async function settle(run: Extraction, parser: Parser): Promise<void> {
  if (!run.failure) {
    const ended = once(parser, 'end').catch(() => undefined);
    parser.end();
    await ended;
  } else {
    parser.abort?.(run.failure);
    for (const out of run.openFiles) out.destroy();
  }
  await Promise.allSettled(run.writes);
}

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
  const compressed = await gzipSize(archive, refusals, hooks);
  const run: Extraction = {
    dest,
    limits,
    refusals,
    hooks,
    failure: null,
    entries: 0,
    declaredBytes: 0,
    writes: [],
    openFiles: new Set(),
  };
  const parser = entryParser(run);
  await inflateInto(run, parser, archive, compressed);
  await settle(run, parser);
  if (run.failure) throw run.failure;
  if (run.entries === 0) throw refusals.invalid('the archive is empty');
  return run.entries;
}
