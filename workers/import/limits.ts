/**
 * The limits every import parse runs under, so a hostile upload cannot outrun them: decompressed bytes
 * (in total), compression ratio (after the first MiB), archive entries, and the length of one line
 * (a CSV record, an NDJSON line, a JSON string, key or number). Wall time is the main thread's
 * business (the analysis runs with a deadline and its pool tasks are aborted). A limit reached is an
 * ImportLimitError inside a worker and an `IMPORT_LIMIT_EXCEEDED` issue once it crosses the thread
 * boundary (the main thread answers 413). Worker-side only: no kernel imports.
 */
import { createReadStream } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface ImportLimits {
  /** Most bytes an archive (or a gzip stream) may expand to, in total. */
  maxDecompressedBytes: number;
  /** Most decompressed bytes per compressed byte, checked once RATIO_GRACE_BYTES have come out. */
  maxCompressionRatio: number;
  /** Most entries an archive may hold (refused and skipped ones included). */
  maxArchiveEntries: number;
  /** Longest line-like unit: a CSV record, an NDJSON line, a JSON string, key or number (bytes). */
  maxLineBytes: number;
}

export type LimitName = keyof ImportLimits | 'analysisTimeoutMs';

/** The compression ratio is only judged after this much output (small files compress very well). */
export const RATIO_GRACE_BYTES = 1024 * 1024;

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxDecompressedBytes: 2 * 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxArchiveEntries: 100_000,
  maxLineBytes: 1024 * 1024,
};

/** Where each limit is set: plugins.options.importers.<name> and its environment variable. */
export const LIMIT_SETTINGS: Record<LimitName, string> = {
  maxDecompressedBytes: 'IMPORT_MAX_DECOMPRESSED_BYTES',
  maxCompressionRatio: 'IMPORT_MAX_COMPRESSION_RATIO',
  maxArchiveEntries: 'IMPORT_MAX_ARCHIVE_ENTRIES',
  maxLineBytes: 'IMPORT_MAX_LINE_BYTES',
  analysisTimeoutMs: 'IMPORT_ANALYSIS_TIMEOUT_MS',
};

export const LIMIT_ISSUE_CODE = 'IMPORT_LIMIT_EXCEEDED';

/** `2 GiB`, `1.5 MiB`, `64 KiB`, `100 bytes`. */
export function formatBytes(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${+(bytes / size).toFixed(2)} ${unit}`;
  return `${bytes} bytes`;
}

/** `(importers.maxLineBytes, IMPORT_MAX_LINE_BYTES)`: the setting that allows more. */
export const limitSetting = (limit: LimitName): string => `(importers.${limit}, ${LIMIT_SETTINGS[limit]})`;

/** A limit reached: `what` says what went past it ("decompressed size over 2 GiB"). */
export class ImportLimitError extends Error {
  readonly code = LIMIT_ISSUE_CODE;
  constructor(
    readonly limit: LimitName,
    what: string,
  ) {
    super(`${what} ${limitSetting(limit)}`);
    this.name = 'ImportLimitError';
  }
}

export interface LimitIssue {
  code: typeof LIMIT_ISSUE_CODE;
  message: string;
  limit: LimitName;
}

export const isLimitError = (err: unknown): err is ImportLimitError =>
  err instanceof ImportLimitError ||
  ((err as { code?: unknown })?.code === LIMIT_ISSUE_CODE && typeof (err as { limit?: unknown }).limit === 'string');

/** The limit error as TaskResult data (error classes do not cross the thread boundary). */
export const limitFailure = (err: ImportLimitError): { ok: false; issues: LimitIssue[] } => ({
  ok: false,
  issues: [{ code: LIMIT_ISSUE_CODE, message: err.message, limit: err.limit }],
});

/** The limits a task was given (`options.limits` of its input, numbers only), the defaults for the rest. */
export function limitsOf(options?: Record<string, unknown> | null): ImportLimits {
  const given = (options?.limits ?? {}) as Record<string, unknown>;
  const out = { ...DEFAULT_IMPORT_LIMITS };
  for (const key of Object.keys(out) as Array<keyof ImportLimits>) {
    const v = given[key];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[key] = v;
  }
  return out;
}

// ---------------------------------------------------------------- lines

const byteLength = (text: string, limit: number): number =>
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only measure when it could matter.
  text.length * 3 <= limit ? text.length : Buffer.byteLength(text, 'utf8');

/**
 * The lines of a decoded text stream (line ends: LF, CRLF or a lone CR, as readline counts them), with
 * their 1-based physical line numbers. A line longer than `maxBytes` is refused as soon as it passes the
 * limit (before the rest of it is read): ImportLimitError naming `what` ("NDJSON line") and the line.
 */
export async function* readLines(text: Readable, maxBytes: number, what: string): AsyncGenerator<{ text: string; line: number }> {
  let partial = '';
  let line = 1;
  let pendingCR = false;
  const tooLong = () => new ImportLimitError('maxLineBytes', `${what} over ${formatBytes(maxBytes)} at line ${line}`);
  try {
    for await (const chunk of text) {
      let s = String(chunk);
      if (pendingCR) {
        pendingCR = false;
        if (s.startsWith('\n')) s = s.slice(1);
      }
      let start = 0;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        const piece = partial + s.slice(start, i);
        partial = '';
        if (byteLength(piece, maxBytes) > maxBytes) throw tooLong();
        yield { text: piece, line };
        line++;
        if (c === 13) {
          if (i + 1 < s.length) {
            if (s.charCodeAt(i + 1) === 10) i++;
          } else pendingCR = true;
        }
        start = i + 1;
      }
      partial += s.slice(start);
      if (byteLength(partial, maxBytes) > maxBytes) throw tooLong();
    }
    if (partial !== '') yield { text: partial, line };
  } finally {
    text.destroy();
  }
}

// ---------------------------------------------------------------- JSON tokens

const CHUNK_STARTS = new Set(['startString', 'startKey', 'startNumber']);
const CHUNKS = new Set(['stringChunk', 'keyChunk', 'numberChunk']);
const CHUNK_ENDS = new Set(['endString', 'endKey', 'endNumber']);

/**
 * Watches stream-json tokens (parsers made with streamValues on, so long values arrive in chunks) and
 * refuses a string, key or number longer than `maxBytes` while it is still arriving. `see` answers
 * true for the streaming tokens (start/chunk/end), which callers that read packed values skip.
 */
export class JsonTokenGuard {
  private length = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly what = 'a JSON value',
  ) {}

  see(token: { name: string; value?: unknown }): boolean {
    const { name } = token;
    if (CHUNK_STARTS.has(name)) {
      this.length = 0;
      return true;
    }
    if (CHUNKS.has(name)) {
      this.length += byteLength(String(token.value ?? ''), this.maxBytes - this.length);
      if (this.length > this.maxBytes)
        throw new ImportLimitError('maxLineBytes', `${this.what} (a string, key or number) over ${formatBytes(this.maxBytes)}`);
      return true;
    }
    return CHUNK_ENDS.has(name);
  }
}

// ---------------------------------------------------------------- archives

/**
 * The bytes of an archive as a tar stream: gunzipped when `gzip` (by magic bytes), counted on the way.
 * Past maxDecompressedBytes, or past maxCompressionRatio once RATIO_GRACE_BYTES came out, the stream is
 * destroyed with an ImportLimitError (listen for 'error'); the file is never read further.
 */
export function tarBytes(path: string, gzip: boolean, limits: ImportLimits): Readable {
  const source = createReadStream(path);
  let compressed = 0;
  source.on('data', (chunk: string | Buffer) => {
    compressed += chunk.length;
  });
  let out = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      const before = out;
      out += chunk.length;
      if (out > limits.maxDecompressedBytes) {
        // What fits under the limit still goes through: entries before the limit are read whole.
        if (limits.maxDecompressedBytes > before) this.push(chunk.subarray(0, limits.maxDecompressedBytes - before));
        return done(new ImportLimitError('maxDecompressedBytes', `decompressed size over ${formatBytes(limits.maxDecompressedBytes)}`));
      }
      if (gzip && out > RATIO_GRACE_BYTES && out / Math.max(compressed, 1) > limits.maxCompressionRatio) {
        return done(new ImportLimitError('maxCompressionRatio', `compression ratio over ${limits.maxCompressionRatio}:1`));
      }
      done(null, chunk);
    },
  });
  const stop = (err: Error) => counter.destroy(err);
  counter.on('close', () => source.destroy());
  source.on('error', stop);
  if (gzip) {
    const gunzip = createGunzip();
    gunzip.on('error', stop);
    counter.on('close', () => gunzip.destroy());
    source.pipe(gunzip).pipe(counter);
  } else source.pipe(counter);
  return counter;
}

/** Counts archive entries; past maxArchiveEntries it throws. */
export class EntryCounter {
  count = 0;
  constructor(private readonly max: number) {}
  next(): void {
    if (++this.count > this.max)
      throw new ImportLimitError('maxArchiveEntries', `archive has more than ${this.max.toLocaleString('en-US')} entries`);
  }
}
