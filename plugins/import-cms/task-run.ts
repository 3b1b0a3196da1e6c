/**
 * What the three CMS parse tasks share: input checks, the spool writer's life cycle, and archive
 * extraction into the job's folder with its refusals reported as warnings. Worker-side: no kernel
 * runtime imports.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import type { TaskResult } from '../../workers/tasks.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import { extractArchive, type ArchiveLimits, type ArchiveResult } from '../../workers/import/archive.js';
import { ImportLimitError, isLimitError, limitFailure, limitsOf as importLimitsOf } from '../../workers/import/limits.js';

/** Writes the entities; may return field kinds known without records (a schema snapshot). */
export type FormatParser = (input: ImportParseInput, writer: SpoolWriter) => Promise<ImportParseSummary['fields'] | void | undefined>;

export async function runParse(input: ImportParseInput, parse: FormatParser): Promise<TaskResult<ImportParseSummary>> {
  for (const key of ['path', 'filename', 'workDir', 'spoolPath'] as const) {
    if (typeof input?.[key] !== 'string' || !input[key])
      return { ok: false, issues: [{ code: 'INVALID_INPUT', message: `${key} must be a non-empty string` }] };
  }
  try {
    if (!(await stat(input.path)).isFile())
      return { ok: false, issues: [{ code: 'NOT_A_FILE', message: `${input.filename} is not a file` }] };
  } catch {
    return { ok: false, issues: [{ code: 'FILE_NOT_FOUND', message: `cannot read ${input.filename}` }] };
  }
  const maxDepth = Number.isInteger(input.maxDepth) && input.maxDepth > 0 ? input.maxDepth : 32;
  const writer = new SpoolWriter(input.spoolPath, maxDepth);
  try {
    const typed = await parse({ ...input, maxDepth }, writer);
    const summary = await writer.close();
    if (typed) for (const [entity, kinds] of Object.entries(typed)) summary.fields[entity] = { ...kinds, ...summary.fields[entity] };
    return { ok: true, value: summary };
  } catch (err) {
    writer.abort();
    if (isLimitError(err)) return limitFailure(err);
    const e = err as NodeJS.ErrnoException;
    return { ok: false, issues: [{ code: 'PARSE_FAILED', message: `${input.filename}: ${e.message}` }] };
  }
}

export const isArchiveInput = (input: ImportParseInput): boolean =>
  input.profile?.container === 'tar' || /\.(tar\.gz|tgz|tar)$/i.test(input.filename);

/** The archive limits of the task's input (options.limits; the older archiveMaxBytes/archiveMaxEntries numbers win), else the defaults. */
function limitsOf(input: ImportParseInput): ArchiveLimits {
  const o = input.options ?? {};
  const n = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
  const limits = importLimitsOf(o);
  return {
    maxBytes: n(o.archiveMaxBytes) ?? limits.maxDecompressedBytes,
    maxEntries: n(o.archiveMaxEntries) ?? limits.maxArchiveEntries,
    maxRatio: limits.maxCompressionRatio,
  };
}

/** The longest line, string, key or number a parse of this input accepts (bytes). */
export const maxLineBytesOf = (input: ImportParseInput): number => importLimitsOf(input.options).maxLineBytes;

/**
 * Extracts the uploaded archive under `<workDir>/archive`; refused and skipped entries become
 * warnings, a damaged archive a warning too (what was extracted is still read). An archive past a
 * limit (decompressed size, ratio, entries) refuses the whole upload (ImportLimitError).
 */
export async function extractUpload(input: ImportParseInput, writer: SpoolWriter): Promise<{ dir: string; archive: ArchiveResult }> {
  const dir = join(input.workDir, 'archive');
  const archive = await extractArchive(input.path, dir, limitsOf(input));
  if (archive.limit) throw new ImportLimitError(archive.limit.limit, archive.limit.message.replace(/ \(importers\.[^)]*\)$/, ''));
  for (const r of archive.rejected) writer.warn(`archive entry ${r.path} refused: ${r.reason}`);
  for (const s of archive.skipped) writer.warn(`archive entry ${s.path} skipped: ${s.reason}`);
  if (archive.error) writer.warn(archive.error);
  return { dir, archive };
}

/** The text encoding of a plain upload as the profile found it (archive members are read as UTF-8). */
export const plainEncoding = (input: ImportParseInput): string | undefined =>
  input.profile?.container === 'plain' && typeof input.profile.encoding === 'string' ? input.profile.encoding : undefined;
