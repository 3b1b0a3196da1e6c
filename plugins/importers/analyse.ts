import { join } from 'node:path';
import type { WorkerPool } from '../../kernel/pool.js';
import type { ImportFormat, ImportParseSummary, ImportProfile, ImportSample } from '../../kernel/registries/contracts.js';
import { DIST_ROOT } from '../../kernel/version.js';
import type { TaskResult } from '../../workers/tasks.js';
import { ImportFormatMismatchError, ImportFormatUnknownError } from './errors.js';
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

const emptySummary = (): ImportParseSummary => ({ counts: {}, fields: {}, warnings: [], blockedReasons: [] });
const issuesText = (r: { ok: false; issues: Array<{ message: string }> }) => r.issues.map((i) => i.message).join('; ');

/**
 * Detection then parsing, both off the event loop: the profile task reads the whole upload in the pool,
 * each registered format's detect(sample) scores it here (the request's hint wins when it scores above
 * 0), and the chosen format's parse task writes the spool file and returns the summary.
 */
export async function analyseUpload(
  deps: { pool: WorkerPool; formats: FormatsView; maxDepth: number },
  input: { path: string; filename: string; size: number; workDir: string; spoolPath: string; hint?: string },
  onStep: (step: 'detecting' | 'parsing') => void = () => undefined,
): Promise<Analysis> {
  const { pool, formats, maxDepth } = deps;
  const hinted = input.hint ? formats.get(input.hint) : undefined;
  if (input.hint && !hinted) throw new ImportFormatUnknownError(input.hint, formats.list().map((f) => f.format));
  onStep('detecting');
  const profiled = await pool.run<TaskResult<ImportProfile>>('importProfile', { path: input.path, filename: input.filename, maxDepth }, PROFILE_TASK_FILE);
  const warnings: Analysis['warnings'] = [];
  if (!profiled.ok) return { format: null, confidence: 0, profile: null, summary: emptySummary(), warnings, blockedReasons: [`The upload could not be read: ${issuesText(profiled)}`] };
  const profile = profiled.value;
  if (profile.archive?.rejected.length) {
    const shown = profile.archive.rejected.slice(0, 10).join(', ');
    warnings.push({ message: `${profile.archive.rejected.length} archive entr${profile.archive.rejected.length === 1 ? 'y' : 'ies'} with unsafe paths or links refused (never extracted): ${shown}` });
  }
  const sample: ImportSample = { filename: input.filename, size: input.size, head: await readHead(input.path, HEAD_BYTES), profile };
  let format: ImportFormat | undefined;
  let confidence = 0;
  if (hinted) {
    confidence = confidenceOf(hinted, sample);
    if (confidence === 0) throw new ImportFormatMismatchError(`The upload is not in the format '${hinted.format}' (its detector gives it no confidence); omit format to auto-detect`);
    format = hinted;
  } else {
    for (const candidate of formats.list()) {
      const c = confidenceOf(candidate, sample);
      if (c > confidence) {
        confidence = c;
        format = candidate;
      }
    }
  }
  if (!format) {
    const kind = profile.container === 'tar' ? 'archive' : profile.kind;
    return { format: null, confidence: 0, profile, summary: emptySummary(), warnings, blockedReasons: [`No import format recognises this upload (${kind}); GET /api/importers/sources lists the formats`] };
  }
  onStep('parsing');
  const parsed = await pool.run<TaskResult<ImportParseSummary>>(
    format.parseTask,
    { path: input.path, filename: input.filename, workDir: input.workDir, spoolPath: input.spoolPath, profile, maxDepth },
    format.taskFile,
  );
  if (!parsed.ok) return { format: format.format, confidence, profile, summary: emptySummary(), warnings, blockedReasons: [`The ${format.label} parser refused the upload: ${issuesText(parsed)}`] };
  const summary = parsed.value;
  return { format: format.format, confidence, profile, summary, warnings: [...warnings, ...summary.warnings], blockedReasons: [...summary.blockedReasons] };
}
