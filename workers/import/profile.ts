/**
 * Piscina task `importProfile`: what an upload is, read as a stream (flat memory): the container (plain
 * or tar, gzip by magic bytes), the text encoding and BOM, and the kind (JSON by structure with a bounded
 * depth, NDJSON line by line, XML root and namespaces with the DOCTYPE never resolved, delimited text
 * with its delimiter, header and row count). Formats decide from this profile on the main thread
 * (ImportFormat.detect). Worker-side only: no kernel imports.
 *
 * XML, NDJSON and delimited text are profiled from their first PROFILE_BYTES only (`partial` when the
 * file is longer): their detectors use the head (root, namespaces, the first elements, the header, the
 * first lines' keys), and the format's parse task reads the whole file anyway, refusing a line past the
 * limit with the same error and reporting a document that is not well-formed further on. JSON documents
 * and archives are still read whole (root keys after the records, member profiles).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import chardet from 'chardet';
import { parse as csvParse, type Options as CsvOptions } from 'csv-parse';
import iconv from 'iconv-lite';
import { SaxesParser } from 'saxes';
import streamJson from 'stream-json';
import { Parser as TarParser, type ReadEntry } from 'tar';
import type { ImportProfile } from '../../plugins/importers/public.js';
import type { TaskResult } from '../tasks.js';
import {
  EntryCounter,
  formatBytes,
  ImportLimitError,
  isLimitError,
  JsonTokenGuard,
  limitFailure,
  limitsOf,
  readLines,
  tarBytes,
  type ImportLimits,
} from './limits.js';
import { LineIndex } from './csv-lines.js';
import { looksLikeNdjson, looksLikeNdjsonLines } from './ndjson-sniff.js';
import { readHead } from './read-head.js';

export interface ImportProfileInput {
  path: string;
  filename: string;
  /** Deepest JSON nesting read; past it the JSON parse stops (the profile keeps what it saw). */
  maxDepth?: number;
  /** Size limits (decompressed bytes, ratio, archive entries, line length); the defaults for those left out. */
  limits?: Partial<ImportLimits>;
}

/** The profile, and whether the upload is empty (0 bytes, only whitespace, or an archive without entries). */
export type ProfiledUpload = ImportProfile & { empty?: boolean };

type JsonProfile = NonNullable<ImportProfile['json']>;

const HEAD_BYTES = 64 * 1024;
const MAX_TOP_KEYS = 200;
const MAX_RECORD_SAMPLES = 50;
const MAX_ELEMENTS = 200;
const MAX_ARCHIVE_ENTRIES = 2000;
/** Archive members up to this size that end in .json are profiled as JSON. */
const MAX_JSON_MEMBER = 16 * 1024 * 1024;
const DELIMITERS = [',', ';', '\t', '|'];
/** How much of a plain XML, NDJSON or delimited file the profile reads (the parse task reads it all). */
export const PROFILE_BYTES = 256 * 1024;

const ok = <T>(value: T): TaskResult<T> => ({ ok: true, value });
const fail = (code: string, message: string): TaskResult<never> => ({ ok: false, issues: [{ code, message }] });

const isGzip = (head: Buffer) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
const isTar = (head: Buffer) => head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';

/** Encoding and BOM from the first bytes: a BOM decides, else valid UTF-8, else chardet's guess. */
export function sniffEncoding(head: Buffer): { encoding: string; bom: boolean } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return { encoding: 'utf-8', bom: false };
  } catch {
    const guess = chardet.detect(head);
    const name = (guess ?? 'windows-1252').toLowerCase();
    return { encoding: iconv.encodingExists(name) ? name : 'windows-1252', bom: false };
  }
}

/** Mostly control bytes (beyond tab, CR, LF, FF) in decoded text: not a text file. */
function looksBinary(text: string): boolean {
  if (!text.length) return false;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 9 || (c > 13 && c < 32) || c === 0xfffd) control++;
  }
  return control / text.length > 0.1;
}

/** The decoded text of a file (its first `bytes` when given), BOM removed. */
const decoded = (path: string, encoding: string, bytes?: number): Readable =>
  createReadStream(path, bytes === undefined ? {} : { end: bytes - 1 }).pipe(
    iconv.decodeStream(encoding, { stripBOM: true }) as unknown as NodeJS.WritableStream,
  ) as unknown as Readable;

// ---------------------------------------------------------------- JSON

interface Frame {
  kind: 'object' | 'array';
  key: string | null;
}

/** Profiles a JSON document from a byte or text stream with stream-json: structure, records, bounded depth. */
export function profileJson(
  source: Readable,
  maxDepth: number,
  destroySource = true,
  maxTokenBytes = limitsOf().maxLineBytes,
): Promise<JsonProfile> {
  const out: JsonProfile = { root: 'scalar', topKeys: [], recordsPath: null, recordCount: 0, recordKeys: [], recordTypes: [], maxDepth: 0 };
  const keys = new Set<string>();
  const types = new Set<string>();
  const stack: Frame[] = [];
  /** Depth (stack length) of the records array once found, and whether its first element was seen. */
  let recordsDepth = -1;
  let candidate: { depth: number; key: string } | null = null;
  let recordsSeen = 0;
  let typeKeyPending = false;

  return new Promise((resolve, reject) => {
    // Long strings, keys and numbers arrive in chunks, so the guard refuses one past the limit before it is whole.
    const parser = streamJson.parser({ streamValues: true, packValues: true });
    const guard = new JsonTokenGuard(maxTokenBytes);
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      out.recordKeys = [...keys];
      out.recordTypes = [...types];
      source.unpipe?.(parser);
      if (destroySource) source.destroy?.();
      parser.destroy();
      if (isLimitError(err)) reject(err);
      else resolve(out);
    };
    const inRecords = () => recordsDepth >= 0 && stack.length === recordsDepth;
    const inRecord = () => recordsDepth >= 0 && stack.length === recordsDepth + 1 && recordsSeen <= MAX_RECORD_SAMPLES;

    /** A value begins in the current container (before a push for containers). */
    const valueStarts = (isObject: boolean) => {
      if (stack.length === 0) return;
      if (candidate && stack.length === candidate.depth) {
        // The first element of the candidate array decides: an object makes it the records array.
        if (isObject) {
          recordsDepth = candidate.depth;
          out.recordsPath = candidate.key;
        }
        candidate = null;
      }
      if (inRecords()) {
        out.recordCount++;
        recordsSeen++;
      }
    };

    parser.on('data', (token: { name: string; value?: unknown }) => {
      if (done) return;
      try {
        if (guard.see(token)) return;
      } catch (err) {
        return finish(err);
      }
      switch (token.name) {
        case 'startObject':
        case 'startArray': {
          const isObject = token.name === 'startObject';
          if (stack.length === 0) {
            out.root = isObject ? 'object' : 'array';
            if (!isObject) candidate = { depth: 1, key: '' };
          } else {
            // An array directly under the root object: the first such array of objects holds the records.
            if (!isObject && stack.length === 1 && stack[0]!.kind === 'object' && out.recordsPath === null && !candidate) {
              valueStarts(false);
              stack.push({ kind: 'array', key: stack[0]!.key });
              candidate = { depth: 2, key: stack[0]!.key ?? '' };
              out.maxDepth = Math.max(out.maxDepth, stack.length);
              typeKeyPending = false;
              return;
            }
            valueStarts(isObject);
          }
          typeKeyPending = false;
          stack.push({ kind: isObject ? 'object' : 'array', key: null });
          out.maxDepth = Math.max(out.maxDepth, stack.length);
          if (stack.length > maxDepth) return finish();
          break;
        }
        case 'endObject':
        case 'endArray':
          stack.pop();
          if (candidate && stack.length < candidate.depth) candidate = null;
          typeKeyPending = false;
          break;
        case 'keyValue': {
          const key = String(token.value);
          const top = stack[stack.length - 1];
          if (top) top.key = key;
          if (stack.length === 1 && out.root === 'object' && out.topKeys.length < MAX_TOP_KEYS) out.topKeys.push(key);
          if (inRecord()) {
            keys.add(key);
            typeKeyPending = key === 'type';
          }
          break;
        }
        default: {
          // A scalar value.
          if (stack.length === 0) {
            out.root = 'scalar';
            break;
          }
          valueStarts(false);
          if (typeKeyPending && inRecord() && typeof token.value === 'string' && types.size < MAX_RECORD_SAMPLES) types.add(token.value);
          typeKeyPending = false;
        }
      }
    });
    parser.on('error', () => finish());
    parser.on('end', () => finish());
    source.on('error', (err: Error) => finish(err));
    source.pipe(parser);
  });
}

// ---------------------------------------------------------------- NDJSON

/** The first `bytes` (all when undefined) of an NDJSON file: line count, keys and types of the first 50 lines. */
async function profileNdjson(
  path: string,
  encoding: string,
  maxLineBytes: number,
  bytes?: number,
): Promise<NonNullable<ImportProfile['ndjson']>> {
  const keys = new Set<string>();
  const types = new Set<string>();
  let lines = 0;
  for await (const { text: line } of readLines(decoded(path, encoding, bytes), maxLineBytes, 'NDJSON line')) {
    if (!line.trim()) continue;
    lines++;
    if (lines > MAX_RECORD_SAMPLES) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const k of Object.keys(value)) keys.add(k);
        const type = (value as Record<string, unknown>).type;
        if (typeof type === 'string') types.add(type);
      }
    } catch {
      /* a malformed line: the format's parse task reports it with its line number */
    }
  }
  return { lines, recordKeys: [...keys], recordTypes: [...types] };
}

/**
 * NDJSON when most of the first non-empty lines are whole JSON objects (see ndjson-sniff). When the head
 * holds fewer than two whole lines (long lines), the first lines are read from the file (each bounded).
 */
async function isNdjson(path: string, encoding: string, text: string, truncated: boolean, maxLineBytes: number): Promise<boolean> {
  const complete = text.split(/\r\n|\r|\n/).filter((l) => l.trim());
  if (!truncated || complete.length > 2) return looksLikeNdjson(text, truncated);
  const lines: string[] = [];
  try {
    for await (const { text: line } of readLines(decoded(path, encoding), maxLineBytes, 'NDJSON line')) {
      if (line.trim()) lines.push(line);
      if (lines.length >= 20) break;
    }
  } catch (err) {
    // A first line past the line limit: one large JSON document (its own limits apply when it is read), not NDJSON.
    if (isLimitError(err)) return false;
    throw err;
  }
  return looksLikeNdjsonLines(lines);
}

// ---------------------------------------------------------------- XML

/**
 * The first `bytes` of an XML document (all when undefined): the root, the namespaces and names of the
 * first MAX_ELEMENTS elements, a DOCTYPE, and whether it is well-formed so far (a document cut at `bytes`
 * is not closed, so the cut is no error).
 */
async function profileXml(path: string, encoding: string, bytes?: number): Promise<NonNullable<ImportProfile['xml']>> {
  const out: NonNullable<ImportProfile['xml']> = { root: '', namespaces: {}, elements: [], doctype: false, wellFormed: true };
  const names = new Set<string>();
  let seen = 0;
  // xmlns off: prefixes are collected from xmlns:* attributes; an undeclared prefix is no parse error.
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('error', () => {
    out.wellFormed = false;
  });
  parser.on('doctype', () => {
    out.doctype = true; // never resolved: saxes reads no DTD and expands no declared entity
  });
  parser.on('opentag', (tag) => {
    if (seen === 0) out.root = tag.name;
    if (seen++ >= MAX_ELEMENTS) return;
    names.add(tag.name);
    for (const [name, value] of Object.entries(tag.attributes)) {
      const v = String(value);
      if (name === 'xmlns') out.namespaces[''] ??= v;
      else if (name.startsWith('xmlns:')) out.namespaces[name.slice(6)] ??= v;
    }
  });
  const stream = decoded(path, encoding, bytes);
  try {
    for await (const chunk of stream) {
      parser.write(String(chunk));
    }
    if (bytes === undefined) parser.close();
  } catch {
    out.wellFormed = false;
  }
  if (!out.root) out.wellFormed = false;
  out.elements = [...names];
  return out;
}

// ---------------------------------------------------------------- delimited

/** Per record (newlines inside quotes do not end one) of the first 20: how often each candidate delimiter occurs outside quotes. */
function delimiterCounts(text: string): Array<Record<string, number>> {
  const records: Array<Record<string, number>> = [];
  let current: Record<string, number> = {};
  let quoted = false;
  let hasContent = false;
  for (let i = 0; i < text.length && records.length < 20; i++) {
    const ch = text[i]!;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) {
      if (hasContent) records.push(current);
      current = {};
      hasContent = false;
      continue;
    } else if (!quoted && DELIMITERS.includes(ch)) current[ch] = (current[ch] ?? 0) + 1;
    if (ch.trim()) hasContent = true;
  }
  if (hasContent && records.length < 20) records.push(current);
  return records;
}

/** The delimiter that splits the first records most consistently (outside quotes); a .tsv name prefers tab. */
export function sniffDelimiter(text: string, filename: string): string | null {
  const records = delimiterCounts(text);
  if (!records.length) return null;
  let best: { d: string; score: number } | null = null;
  for (const d of DELIMITERS) {
    const counts = records.map((r) => r[d] ?? 0);
    const freq = new Map<number, number>();
    for (const c of counts) if (c > 0) freq.set(c, (freq.get(c) ?? 0) + 1);
    if (!freq.size) continue;
    const [mode, times] = [...freq.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]!;
    let score = (times / counts.length) * 10 + Math.min(mode, 50) / 10;
    if (d === '\t' && /\.tsv$/i.test(filename)) score += 5;
    if (!best || score > best.score) best = { d, score };
  }
  return best?.d ?? null;
}

/** The first `bytes` of delimited text (all when undefined): the header and the rows after it. */
async function profileDelimited(
  path: string,
  encoding: string,
  delimiter: string,
  maxLineBytes: number,
  bytes?: number,
): Promise<NonNullable<ImportProfile['delimited']>> {
  let header: string[] = [];
  let records = 0;
  let tooLong: ImportLimitError | null = null;
  // Where records start, for the line a refusal names (csv-parse's own count drifts).
  const index = new LineIndex(false);
  let prevEnd = 0;
  const parser = csvParse({
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: maxLineBytes,
    on_record: (record: string[], context: { bytes: number }) => {
      prevEnd = context.bytes;
      index.forget(prevEnd);
      return record;
    },
    on_skip: (err: { code?: string } | undefined) => {
      if (err?.code === 'CSV_MAX_RECORD_SIZE') {
        tooLong ??= new ImportLimitError(
          'maxLineBytes',
          `CSV record over ${formatBytes(maxLineBytes)} at line ${index.startLine(prevEnd, Infinity)}`,
        );
        parser.destroy();
      }
    },
  } as unknown as CsvOptions);
  decoded(path, encoding, bytes).pipe(index).pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (records === 0) header = record.map((h) => String(h).trim());
      records++;
    }
  } catch {
    /* a hard parse error: what was read stands; the parse task reports details */
  }
  if (tooLong) throw tooLong;
  return { delimiter, header, rows: Math.max(0, records - 1) };
}

// ---------------------------------------------------------------- archives

/** `..` segments, absolute paths (POSIX or drive letters) or NUL: refused, never extracted. */
export function unsafeEntryPath(path: string): boolean {
  if (!path || path.includes('\0')) return true;
  if (path.startsWith('/') || path.startsWith('\\') || /^[a-zA-Z]:/.test(path)) return true;
  return path.split(/[\\/]+/).some((segment) => segment === '..');
}

const SAFE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory']);

async function profileArchive(
  path: string,
  gzip: boolean,
  maxDepth: number,
  limits: ImportLimits,
): Promise<Pick<ImportProfile, 'archive' | 'kind' | 'json'> & { ok: boolean; entries: number }> {
  const archive: NonNullable<ImportProfile['archive']> = { entries: [], rejected: [], jsonEntries: {} };
  const pending: Array<Promise<void>> = [];
  const counter = new EntryCounter(limits.maxArchiveEntries);
  let failed = false;
  let limit: unknown = null;
  await new Promise<void>((resolve) => {
    // Decompressed here (not by the tar parser) so every byte is counted against the size and ratio limits.
    const input = tarBytes(path, gzip, limits);
    const parser = new TarParser({
      strict: false,
      onReadEntry: (entry: ReadEntry) => {
        const name = entry.path.replace(/^(\.\/)+/, '');
        try {
          counter.next();
        } catch (err) {
          entry.resume();
          return void input.destroy(err as Error);
        }
        if (unsafeEntryPath(entry.path) || !SAFE_TYPES.has(entry.type)) {
          if (archive.rejected.length < MAX_ARCHIVE_ENTRIES) archive.rejected.push(entry.path);
          entry.resume();
          return;
        }
        if (archive.entries.length < MAX_ARCHIVE_ENTRIES && entry.type !== 'Directory') archive.entries.push(name);
        if (entry.type !== 'Directory' && /\.json$/i.test(name) && entry.size <= MAX_JSON_MEMBER && !/(^|\/)\._/.test(name)) {
          pending.push(
            profileJson(entry as unknown as Readable, maxDepth, false, limits.maxLineBytes).then(
              (p) => {
                archive.jsonEntries[name] = p;
                entry.resume();
              },
              (err: unknown) => {
                entry.resume();
                input.destroy(err as Error);
              },
            ),
          );
        } else entry.resume();
      },
    });
    parser.on('error', () => {
      failed = true;
    });
    parser.on('warn', () => undefined);
    parser.on('end', () => resolve());
    parser.on('close', () => resolve());
    input.on('error', (err: Error) => {
      if (isLimitError(err)) limit ??= err;
      else failed = true;
      // What the parser holds is read to its end, so entries being profiled end too.
      (parser as unknown as NodeJS.WritableStream).end();
      if (limit) resolve();
    });
    input.pipe(parser as unknown as NodeJS.WritableStream);
  });
  if (limit) throw limit;
  await Promise.allSettled(pending);
  const main = Object.values(archive.jsonEntries).find((j) => j && j.recordsPath !== null);
  return {
    ok: counter.count > 0,
    entries: failed ? -1 : counter.count,
    archive,
    kind: main ? 'json' : 'unknown',
    ...(main ? { json: main } : {}),
  };
}

/** Whether the whole decoded file is whitespace (its head was). */
async function onlyWhitespace(path: string, encoding: string): Promise<boolean> {
  for await (const chunk of decoded(path, encoding)) if (String(chunk).trim() !== '') return false;
  return true;
}

// ---------------------------------------------------------------- the task

export async function importProfile(input: ImportProfileInput): Promise<TaskResult<ProfiledUpload>> {
  if (typeof input?.path !== 'string' || typeof input?.filename !== 'string')
    return fail('INVALID_INPUT', 'path and filename must be strings');
  const maxDepth = Math.max(1, Math.min(input.maxDepth ?? 32, 256));
  const limits = limitsOf({ limits: input.limits });
  let head: Buffer;
  let size: number;
  try {
    const st = await stat(input.path);
    if (!st.isFile()) return fail('NOT_A_FILE', `${input.path} is not a file`);
    size = st.size;
    head = await readHead(input.path, HEAD_BYTES);
  } catch (err) {
    return fail('READ_FAILED', `cannot read the upload: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return ok(await profileOf(input, head, size, maxDepth, limits));
  } catch (err) {
    if (isLimitError(err)) return limitFailure(err);
    return fail('READ_FAILED', `cannot read the upload: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function profileOf(
  input: ImportProfileInput,
  head: Buffer,
  size: number,
  maxDepth: number,
  limits: ImportLimits,
): Promise<ProfiledUpload> {
  if (head.length === 0) return { container: 'plain', encoding: 'utf-8', bom: false, kind: 'unknown', empty: true };
  if (isGzip(head) || isTar(head)) {
    const archive = await profileArchive(input.path, isGzip(head), maxDepth, limits);
    if (archive.ok) {
      const { ok: _ok, entries: _entries, ...rest } = archive;
      return { container: 'tar', encoding: 'binary', bom: false, ...rest };
    }
    // A well-formed archive without a single entry is an empty upload.
    return {
      container: 'plain',
      encoding: 'binary',
      bom: false,
      kind: 'binary',
      ...(archive.entries === 0 && isGzip(head) ? { empty: await emptyTar(input.path) } : {}),
    };
  }
  const { encoding, bom } = sniffEncoding(head);
  const text = iconv.decode(head, encoding, { stripBOM: true });
  const base: ProfiledUpload = { container: 'plain', encoding, bom, kind: 'unknown' };
  if (!text.trim()) return (await onlyWhitespace(input.path, encoding)) ? { ...base, empty: true } : base;
  if (looksBinary(text)) return { ...base, kind: 'binary' };
  const first = text.trimStart()[0];
  // XML, NDJSON and delimited text: their first PROFILE_BYTES (the parse task reads the rest).
  const bytes = size > PROFILE_BYTES ? PROFILE_BYTES : undefined;
  const partial = bytes !== undefined ? { partial: true } : {};
  if (first === '<') return { ...base, ...partial, kind: 'xml', xml: await profileXml(input.path, encoding, bytes) };
  if (first === '{' || first === '[') {
    if (first === '{' && (await isNdjson(input.path, encoding, text, head.length === HEAD_BYTES, limits.maxLineBytes))) {
      return { ...base, ...partial, kind: 'ndjson', ndjson: await profileNdjson(input.path, encoding, limits.maxLineBytes, bytes) };
    }
    return { ...base, kind: 'json', json: await profileJson(decoded(input.path, encoding), maxDepth, true, limits.maxLineBytes) };
  }
  const delimiter = sniffDelimiter(text, input.filename);
  if (delimiter)
    return {
      ...base,
      ...partial,
      kind: 'delimited',
      delimited: await profileDelimited(input.path, encoding, delimiter, limits.maxLineBytes, bytes),
    };
  return base;
}

/** A gzip stream that decompresses to nothing but zero bytes (an empty tar: its two end blocks) or to nothing at all. */
async function emptyTar(path: string): Promise<boolean> {
  try {
    for await (const chunk of tarBytes(path, true, { ...limitsOf(), maxDecompressedBytes: 1024 * 1024 })) {
      if ((chunk as Buffer).some((b) => b !== 0)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** For tests and tools: a profile of in-memory JSON text. */
export const profileJsonText = (text: string, maxDepth = 32) => profileJson(Readable.from([text]), maxDepth);
