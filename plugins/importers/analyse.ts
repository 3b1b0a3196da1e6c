import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type WorkerPool, DIST_ROOT } from '../../kernel/sdk.js';
import type { ImportFormat, ImportParseSummary, ImportProfile, ImportSample } from './format-contract.js';
import type { TaskResult } from '../../workers/tasks.js';
import { ImportFormatMismatchError, ImportFormatUnknownError, ImportLimitExceededError } from './errors.js';
import { importerOptionsSchema, type ImporterOptions } from './options.js';
import { LIMIT_ISSUE_CODE, limitSetting, type ImportLimits } from '../../workers/import/limits.js';
import type { ProfiledUpload } from '../../workers/import/profile.js';
import { readHead } from '../../workers/import/read-head.js';

export const PROFILE_TASK_FILE = join(DIST_ROOT, 'workers', 'import', 'profile.js');
const HEAD_BYTES = 64 * 1024;

export interface Analysis {
  format: string | null;
  confidence: number;
  profile: ImportProfile | null;
  summary: ImportParseSummary;
  warnings: Array<{ message: string; line?: number }>;
  blockedReasons: string[];
}

export interface FormatsView {
  list(): ImportFormat[];
  get(format: string): ImportFormat | undefined;
}

/** A detector that throws or answers something else than a number counts as 0. */
export function confidenceOf(format: ImportFormat, sample: ImportSample): number {
  try {
    const c = format.detect(sample);
    return typeof c === 'number' && Number.isFinite(c) ? Math.max(0, Math.min(1, c)) : 0;
  } catch {
    return 0;
  }
}

/** The limits an analysis runs under, and the CSV strict-mode default (plugins.options.importers, IMPORT_* variables). */
export type AnalysisLimits = Pick<ImporterOptions, keyof ImportLimits | 'analysisTimeoutMs' | 'csvStrict'>;

/**
 * The limits when the caller passes none: the defaults. The plugin always passes its options, with the
 * IMPORT_* variables the kernel mapped (plugin.json `env`) already applied.
 */
function defaultLimits(): ImporterOptions {
  return importerOptionsSchema.parse({});
}

function resolveLimits(given: Partial<AnalysisLimits> | undefined): AnalysisLimits {
  const base = defaultLimits();
  const pick = <K extends keyof AnalysisLimits>(k: K): AnalysisLimits[K] => (given?.[k] ?? base[k]) as AnalysisLimits[K];
  return {
    maxDecompressedBytes: pick('maxDecompressedBytes'),
    maxCompressionRatio: pick('maxCompressionRatio'),
    maxArchiveEntries: pick('maxArchiveEntries'),
    maxLineBytes: pick('maxLineBytes'),
    analysisTimeoutMs: pick('analysisTimeoutMs'),
    csvStrict: pick('csvStrict'),
  };
}

/** A request field's yes/no (`strict=true`), or undefined when it is absent or neither. */
function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  if (/^(1|true|yes|on)$/i.test(value.trim())) return true;
  if (/^(0|false|no|off)$/i.test(value.trim())) return false;
  return undefined;
}

type LimitedIssue = { code: string; message: string; limit?: unknown };
/** A task's refusal for a limit becomes the 413 answer. */
function throwIfLimit(result: { ok: false; issues: LimitedIssue[] }): void {
  const issue = result.issues.find((i) => i.code === LIMIT_ISSUE_CODE);
  if (issue) throw new ImportLimitExceededError(String(issue.limit ?? 'limit'), issue.message);
}

/** The job folder of a refused upload: removed now, and once more shortly after (an aborted worker may still be stopping). */
async function removeJobFolder(workDir: string, again: boolean): Promise<void> {
  await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  if (again) setTimeout(() => void rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined), 1000).unref();
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(1)} s`;

const emptySummary = (): ImportParseSummary => ({ counts: {}, fields: {}, warnings: [], blockedReasons: [] });
const issuesText = (r: { ok: false; issues: Array<{ message: string }> }) => r.issues.map((i) => i.message).join('; ');

/** The upload and the request's choices, as the upload route received them. */
export interface UploadInput {
  path: string;
  filename: string;
  size: number;
  workDir: string;
  spoolPath: string;
  hint?: string;
  fields?: Record<string, unknown>;
}

type AnalysisStep = 'detecting' | 'parsing';

/** One analysis: its upload, its limits, and the pool runner bound to its deadline. */
interface AnalysisJob {
  input: UploadInput;
  formats: FormatsView;
  maxDepth: number;
  limits: AnalysisLimits;
  taskLimits: ImportLimits;
  run: <T>(name: string, payload: unknown, file: string) => Promise<T>;
  onStep: (step: AnalysisStep) => void;
}

/**
 * Detection then parsing, both off the event loop: the profile task reads the upload in the pool (the
 * first 256 KiB of XML, NDJSON and delimited text; JSON and archives whole),
 * each registered format's detect(sample) scores it here (the request's hint wins when it scores above
 * 0), and the chosen format's parse task writes the spool file and returns the summary.
 *
 * Limits: both tasks run under one deadline (analysisTimeoutMs; past it they are aborted, a running
 * worker terminated) and get the size limits (decompressed bytes, compression ratio, archive entries,
 * line length) in their input. A limit reached throws ImportLimitExceededError (413), and any throw
 * removes the upload's job folder. An empty upload (0 bytes, only whitespace, an archive without entries)
 * is blocked as "The file is empty." whatever its name. `limits` defaults to the IMPORT_* variables over
 * the defaults; `fields` are the request's own options (`strict` for CSV).
 */
export async function analyseUpload(
  deps: { pool: WorkerPool; formats: FormatsView; maxDepth: number; limits?: Partial<AnalysisLimits> },
  input: UploadInput,
  onStep: (step: AnalysisStep) => void = () => undefined,
): Promise<Analysis> {
  const { pool, formats, maxDepth } = deps;
  const limits = resolveLimits(deps.limits);
  const controller = new AbortController();
  // setTimeout takes at most 2^31-1 ms (past it Node fires at once).
  const timer = setTimeout(() => controller.abort(), Math.min(limits.analysisTimeoutMs, 2 ** 31 - 1));
  const run = <T>(name: string, payload: unknown, file: string) => pool.run<T>(name, payload, file, { signal: controller.signal });
  try {
    return await analyse({ input, formats, maxDepth, limits, taskLimits: taskLimitsOf(limits), run, onStep });
  } catch (err) {
    await removeJobFolder(input.workDir, controller.signal.aborted);
    if (controller.signal.aborted && !(err instanceof ImportLimitExceededError)) {
      throw new ImportLimitExceededError(
        'analysisTimeoutMs',
        `analysis took longer than ${seconds(limits.analysisTimeoutMs)} ${limitSetting('analysisTimeoutMs')}`,
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The size limits the worker tasks get in their input (the deadline and strict mode stay here). */
function taskLimitsOf(limits: AnalysisLimits): ImportLimits {
  return {
    maxDecompressedBytes: limits.maxDecompressedBytes,
    maxCompressionRatio: limits.maxCompressionRatio,
    maxArchiveEntries: limits.maxArchiveEntries,
    maxLineBytes: limits.maxLineBytes,
  };
}

/** An analysis that ends without a parse summary: the upload is blocked for `reason`. */
function blocked(
  profile: ImportProfile | null,
  warnings: Analysis['warnings'],
  reason: string,
  chosen: { format: string | null; confidence: number } = { format: null, confidence: 0 },
): Analysis {
  return {
    format: chosen.format,
    confidence: chosen.confidence,
    profile,
    summary: emptySummary(),
    warnings,
    blockedReasons: [reason],
  };
}

async function analyse(job: AnalysisJob): Promise<Analysis> {
  const { input, formats } = job;
  const hinted = input.hint ? formats.get(input.hint) : undefined;
  if (input.hint && !hinted)
    throw new ImportFormatUnknownError(
      input.hint,
      formats.list().map((f) => f.format),
    );
  job.onStep('detecting');
  const profiled = await job.run<TaskResult<ProfiledUpload>>(
    'importProfile',
    { path: input.path, filename: input.filename, maxDepth: job.maxDepth, limits: job.taskLimits },
    PROFILE_TASK_FILE,
  );
  const warnings: Analysis['warnings'] = [];
  if (!profiled.ok) {
    throwIfLimit(profiled);
    return blocked(null, warnings, `The upload could not be read: ${issuesText(profiled)}`);
  }
  const { empty, ...profile } = profiled.value;
  if (empty) return blocked(profile, warnings, 'The file is empty.');
  warnings.push(...archiveWarnings(profile));
  const sample: ImportSample = { filename: input.filename, size: input.size, head: await readHead(input.path, HEAD_BYTES), profile };
  const chosen = hinted ? hintedChoice(hinted, sample) : bestChoice(formats, sample);
  if (!chosen) {
    const kind = profile.container === 'tar' ? 'archive' : profile.kind;
    return blocked(profile, warnings, `No import format recognises this upload (${kind}); GET /api/importers/sources lists the formats`);
  }
  job.onStep('parsing');
  return parseWith(job, chosen, sample, warnings);
}

/** Archive entries the profile refused are named (the first ten) in a warning. */
function archiveWarnings(profile: ImportProfile): Analysis['warnings'] {
  const rejected = profile.archive?.rejected;
  if (!rejected?.length) return [];
  const shown = rejected.slice(0, 10).join(', ');
  return [
    {
      message: `${rejected.length} archive entr${rejected.length === 1 ? 'y' : 'ies'} with unsafe paths or links refused (never extracted): ${shown}`,
    },
  ];
}

interface Choice {
  format: ImportFormat;
  confidence: number;
}

/** The request's format: it must score above 0, else the upload is refused rather than parsed wrongly. */
function hintedChoice(hinted: ImportFormat, sample: ImportSample): Choice {
  const confidence = confidenceOf(hinted, sample);
  if (confidence === 0)
    throw new ImportFormatMismatchError(
      `The upload is not in the format '${hinted.format}' (its detector gives it no confidence); omit format to auto-detect`,
    );
  return { format: hinted, confidence };
}

/** The registered format that scores highest (the first of equals), or none when all score 0. */
function bestChoice(formats: FormatsView, sample: ImportSample): Choice | undefined {
  let best: Choice | undefined;
  for (const candidate of formats.list()) {
    const c = confidenceOf(candidate, sample);
    if (c > (best?.confidence ?? 0)) best = { format: candidate, confidence: c };
  }
  return best;
}

/** The chosen format's parse task: it writes the spool file and returns the summary. */
async function parseWith(job: AnalysisJob, chosen: Choice, sample: ImportSample, warnings: Analysis['warnings']): Promise<Analysis> {
  const { input } = job;
  const { format } = chosen;
  const profile = sample.profile;
  const strict = flag(input.fields?.strict) ?? job.limits.csvStrict;
  const parsed = await job.run<TaskResult<ImportParseSummary>>(
    format.parseTask,
    {
      path: input.path,
      filename: input.filename,
      workDir: input.workDir,
      spoolPath: input.spoolPath,
      profile,
      maxDepth: job.maxDepth,
      options: { limits: job.taskLimits, strict },
    },
    format.taskFile,
  );
  if (!parsed.ok) {
    throwIfLimit(parsed);
    return blocked(profile, warnings, `The ${format.label} parser refused the upload: ${issuesText(parsed)}`, {
      format: format.format,
      confidence: chosen.confidence,
    });
  }
  const summary = parsed.value;
  let confidence = chosen.confidence;
  // A partial profile saw only the start of the document: the parse, which read all of it, corrects
  // its well-formedness, and the format scores the upload again (the same confidence as a whole profile).
  if (profile.partial && profile.xml?.wellFormed && summary.wellFormed === false) {
    profile.xml.wellFormed = false;
    confidence = confidenceOf(format, sample) || confidence;
  }
  return {
    format: format.format,
    confidence,
    profile,
    summary,
    warnings: [...warnings, ...summary.warnings],
    blockedReasons: [...summary.blockedReasons],
  };
}
