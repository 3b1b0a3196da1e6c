/** Worker side: an unexpected failure as TaskResult data (error classes do not cross the thread boundary). */
import type { TaskResult } from '../../workers/tasks.js';

export function failure(err: unknown): TaskResult<never> {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'PARSE_FAILED';
  return { ok: false, issues: [{ code, message: e?.message ?? String(err) }] };
}
