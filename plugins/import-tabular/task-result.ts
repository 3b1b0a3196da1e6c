/** Worker side: an unexpected failure as TaskResult data (error classes do not cross the thread boundary); a limit reached as its own issue. */
import { isLimitError, limitFailure } from '../../workers/import/limits.js';
import type { TaskResult } from '../../workers/tasks.js';

export function failure(err: unknown): TaskResult<never> {
  if (isLimitError(err)) return limitFailure(err);
  const e = err as NodeJS.ErrnoException;
  const code = e?.code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'PARSE_FAILED';
  return { ok: false, issues: [{ code, message: e?.message ?? String(err) }] };
}
