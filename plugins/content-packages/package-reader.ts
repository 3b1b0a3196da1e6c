/**
 * Reading a received `.svelty-package` archive: safe extraction (lib/storage/safe-tar-extract: every
 * entry is checked before a byte of it is written, and any refusal removes everything), then the checks
 * of validate (manifest format and version, every file's size and SHA-256 against manifest.files and
 * checksums.sha256, files present but not listed), and a bounded NDJSON line reader for the plan.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { listFiles } from '../../lib/storage/list-files.js';
import { safeTarExtract, type SafeTarLimitName } from '../../lib/storage/safe-tar-extract.js';
import {
  ContentImportArchiveInvalidError,
  ContentImportLimitError,
  ContentImportLinkError,
  ContentImportSpecialFileError,
  ContentImportUnsafePathError,
} from './import-errors.js';
import type { ImportOptions } from './import-options.js';
import { PACKAGE_FORMAT, PACKAGE_FORMAT_VERSION, type PackageManifest } from './public.js';

const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;
const CHECKSUMS_MAX_BYTES = 64 * 1024 * 1024;
/** Problems listed at most (the rest is counted). */
const MAX_PROBLEMS = 50;
/** Longest NDJSON line (one entry: a JSON or rich-text field holds up to 1 MB each). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/** A path inside the package folder: relative, forward slashes, no `..`, `.`, empty segment, backslash or NUL. */
export function safeRelativePath(p: unknown): p is string {
  if (typeof p !== 'string' || !p || p.length > 1024) return false;
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.includes('\\') || p.includes('\0')) return false;
  return !p.split('/').some((s) => s === '..' || s === '.' || s === '');
}

/** Each limit of the shared extraction: its option and environment variable. */
const LIMITS = {
  maxEntries: ['importMaxEntries', 'CONTENT_IMPORT_MAX_ENTRIES'],
  maxExtractedBytes: ['importMaxExtractedBytes', 'CONTENT_IMPORT_MAX_EXTRACTED_BYTES'],
  maxRatio: ['importMaxRatio', 'CONTENT_IMPORT_MAX_RATIO'],
} as const satisfies Record<SafeTarLimitName, readonly [keyof ImportOptions, string]>;

/**
 * Extracts the gzip tar `archive` below `dest` (which must exist and be empty) and answers the package
 * root: `dest` when manifest.json is at the top, else the one folder holding it. Throws the
 * CONTENT_IMPORT_* refusals; the caller removes `dest` then.
 */
export async function extractPackage(archive: string, dest: string, options: ImportOptions): Promise<string> {
  await safeTarExtract(
    archive,
    dest,
    { maxEntries: options.importMaxEntries, maxExtractedBytes: options.importMaxExtractedBytes, maxRatio: options.importMaxRatio },
    {
      invalid: (message) => new ContentImportArchiveInvalidError(message),
      unsafePath: (path) => new ContentImportUnsafePathError(path),
      link: (path) => new ContentImportLinkError(path),
      special: (path, kind) => new ContentImportSpecialFileError(path, kind),
      limit: (name) => new ContentImportLimitError(LIMITS[name][0], LIMITS[name][1], options[LIMITS[name][0]]),
    },
    { notGzip: 'not gzip-compressed (send the .svelty-package archive)' },
  );
  if (await isFile(join(dest, 'manifest.json'))) return dest;
  const top = await readdir(dest, { withFileTypes: true });
  if (top.length === 1 && top[0]!.isDirectory() && (await isFile(join(dest, top[0]!.name, 'manifest.json'))))
    return join(dest, top[0]!.name);
  throw new ContentImportArchiveInvalidError('no manifest.json at the top of the archive (or in its one top folder)');
}

const isFile = async (p: string) => (await stat(p).catch(() => null))?.isFile() ?? false;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const manifestSchema = z
  .object({
    format: z.literal(PACKAGE_FORMAT),
    version: z.number(),
    createdAt: z.string().max(64),
    source: z
      .object({
        installationId: z.string().min(1).max(64),
        kernelVersion: z.string().max(64).optional(),
        dialect: z.string().max(32).optional(),
        peer: z.string().max(64).optional(),
      })
      .passthrough(),
    selection: z.object({}).passthrough().optional(),
    collections: z
      .array(
        z
          .object({
            name: z.string().regex(COLLECTION_NAME),
            entries: z.number().int().min(0),
            file: z.string().max(1024),
            schemaFile: z.string().max(1024),
          })
          .passthrough(),
      )
      .max(1000),
    media: z
      .object({ records: z.number().int().min(0), file: z.string().max(1024), includesFiles: z.boolean(), bytes: z.number().min(0) })
      .passthrough(),
    components: z
      .object({ file: z.string().max(1024), count: z.number().int().min(0).max(500) })
      .passthrough()
      .optional(),
    files: z.array(z.object({ path: z.string().max(1024), size: z.number().int().min(0), sha256: hex64 }).passthrough()).max(10_000_000),
  })
  .passthrough();

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

type Listed = Map<string, { size: number; sha256: string }>;
type Add = (problem: string) => void;

/** manifest.json read and checked (size, JSON, format, version, shape): the manifest, or the one problem. */
async function readManifest(root: string): Promise<{ manifest: PackageManifest } | { problem: string }> {
  const mstat = await stat(join(root, 'manifest.json')).catch(() => null);
  if (!mstat?.isFile()) return { problem: 'no manifest.json in the package' };
  if (mstat.size > MANIFEST_MAX_BYTES) return { problem: 'manifest.json is too large' };
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8'));
  } catch {
    return { problem: 'manifest.json is not valid JSON' };
  }
  const rawObj = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  if (rawObj.format !== PACKAGE_FORMAT)
    return { problem: `manifest.json: format is not '${PACKAGE_FORMAT}' (${JSON.stringify(rawObj.format ?? null)})` };
  if (rawObj.version !== PACKAGE_FORMAT_VERSION)
    return {
      problem: `manifest.json: unsupported package format version ${JSON.stringify(rawObj.version ?? null)} (this instance reads version ${PACKAGE_FORMAT_VERSION})`,
    };
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `manifest.json: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { manifest: parsed.data as unknown as PackageManifest };
}

/** The files manifest.json lists (usable paths, once each), and the collections' and media manifest's files among them. */
function listedFiles(m: PackageManifest, add: Add): Listed {
  const listed: Listed = new Map();
  for (const f of m.files) {
    if (!safeRelativePath(f.path) || f.path === 'manifest.json' || f.path === 'checksums.sha256') {
      add(`manifest.json lists an unusable path '${String(f.path).slice(0, 200)}'`);
      continue;
    }
    if (listed.has(f.path)) add(`manifest.json lists '${f.path}' twice`);
    listed.set(f.path, { size: f.size, sha256: f.sha256 });
  }
  const names = new Set<string>();
  for (const c of m.collections) {
    if (names.has(c.name)) add(`manifest.json lists collection '${c.name}' twice`);
    names.add(c.name);
    if (!listed.has(c.file)) add(`collection '${c.name}': its file '${c.file.slice(0, 200)}' is not listed in manifest.files`);
    if (!listed.has(c.schemaFile))
      add(`collection '${c.name}': its schema '${c.schemaFile.slice(0, 200)}' is not listed in manifest.files`);
  }
  if (m.components && !listed.has(m.components.file))
    add(`the components file '${m.components.file.slice(0, 200)}' is not listed in manifest.files`);
  if (m.media.records > 0 && !listed.has(m.media.file))
    add(`the media manifest '${m.media.file.slice(0, 200)}' is not listed in manifest.files`);
  return listed;
}

/** Each listed file present with its size and SHA-256; no unlisted file. */
async function checkPresentFiles(root: string, listed: Listed, present: Map<string, number>, add: Add): Promise<void> {
  for (const [path, f] of listed) {
    const size = present.get(path);
    if (size === undefined) {
      add(`'${path}' is listed in manifest.json but missing`);
      continue;
    }
    if (size !== f.size) {
      add(`'${path}' has ${size} bytes, manifest.json says ${f.size}`);
      continue;
    }
    const sum = await sha256Of(join(root, path));
    if (sum !== f.sha256) add(`'${path}': SHA-256 differs from manifest.json (damaged or changed)`);
  }
  for (const rel of present.keys())
    if (rel !== 'manifest.json' && rel !== 'checksums.sha256' && !listed.has(rel))
      add(`'${rel.slice(0, 200)}' is not listed in manifest.json`);
}

/** checksums.sha256: sha256sum format, every file but itself, agreeing with manifest.json. */
async function checkChecksumsFile(root: string, listed: Listed, present: Map<string, number>, problems: string[]): Promise<void> {
  const add: Add = (p) => void problems.push(p);
  const cstat = present.get('checksums.sha256');
  if (cstat === undefined) return add('no checksums.sha256 in the package');
  if (cstat > CHECKSUMS_MAX_BYTES) return add('checksums.sha256 is too large');
  const text = await readFile(join(root, 'checksums.sha256'), 'utf8');
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.replace(/\r$/, ''));
    if (!match || !safeRelativePath(match[2])) {
      add(`checksums.sha256: unreadable line '${line.slice(0, 120)}'`);
      continue;
    }
    const [, sum, path] = match as unknown as [string, string, string];
    seen.add(path);
    if (path === 'checksums.sha256') continue;
    if (!present.has(path)) add(`checksums.sha256 names '${path}', which is missing`);
    else if (listed.get(path)?.sha256 !== undefined && listed.get(path)!.sha256 !== sum)
      add(`'${path}': checksums.sha256 and manifest.json disagree`);
    else if (!listed.has(path) && (await sha256Of(join(root, path))) !== sum) add(`'${path}': SHA-256 differs from checksums.sha256`);
    if (problems.length > MAX_PROBLEMS) break;
  }
  for (const path of listed.keys()) if (!seen.has(path)) add(`'${path}' is missing from checksums.sha256`);
}

/**
 * The checks of validate on an extracted package: the manifest (shape, format, version), each listed
 * file present with its size and SHA-256, checksums.sha256 agreeing, no unlisted file, the collections'
 * files listed. Problems are sentences naming the file; the manifest is null when it cannot be read.
 */
export async function checkPackage(root: string): Promise<{ problems: string[]; manifest: PackageManifest | null }> {
  const read = await readManifest(root);
  if ('problem' in read) return { problems: [read.problem], manifest: null };
  const m = read.manifest;
  const problems: string[] = [];
  const add: Add = (p) => void problems.push(p);
  const listed = listedFiles(m, add);
  const present = await listFiles(root, (rel) => problems.push(`'${rel}' is not a regular file`));
  await checkPresentFiles(root, listed, present, add);
  await checkChecksumsFile(root, listed, present, problems);
  if (problems.length > MAX_PROBLEMS) {
    const more = problems.length - MAX_PROBLEMS;
    problems.length = MAX_PROBLEMS;
    problems.push(`... and ${more} more`);
  }
  return { problems, manifest: m };
}

/**
 * The lines of an NDJSON file, parsed (a line past MAX_LINE_BYTES or not JSON is reported through
 * `bad` with its 1-based number and skipped). Empty lines are skipped.
 */
export async function* readNdjson(
  path: string,
  bad: (line: number, problem: string) => void,
): AsyncGenerator<{ line: number; value: unknown }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const text of lines) {
      n++;
      if (!text.trim()) continue;
      if (text.length > MAX_LINE_BYTES) {
        bad(n, 'longer than the line limit');
        continue;
      }
      try {
        yield { line: n, value: JSON.parse(text) as unknown };
      } catch {
        bad(n, 'not valid JSON');
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
