// Errors of the data-operation routes in human terms: the main text never shows a raw error code
// (the code stays available to tests and support as data-code on the alert).
import { ApiError } from '../../lib/remote';
import { errorText } from '../../lib/errors';

const MESSAGES: Record<string, string> = {
  CONFIRMATION_REQUIRED: 'This plan deletes or replaces data, so it must be confirmed by typing the word shown.',
  PLAN_STALE: 'The data changed after this plan was made, so nothing was applied. Make a new plan and review it again.',
  PLAN_EXPIRED: 'This plan is too old to apply (plans last 30 minutes). Make a new plan.',
  PLAN_NOT_FOUND: 'This plan no longer exists. Make a new plan.',
  PLAN_ALREADY_APPLIED: 'This plan has already been applied, or is being applied right now.',
  PLAN_BLOCKED: 'This plan cannot be applied until the problems listed with it are fixed.',
  PLAN_HASH_MISMATCH: 'The plan changed after you reviewed it. Make a new plan and review it again.',
  LOCK_CONTENTION: 'Another data operation is running on this instance. Try again in a moment.',
  MAINTENANCE: 'The instance is in maintenance while a restore runs. Try again shortly.',
  DATA_JOB_NOT_FOUND: 'That background job is not known (it may have been cleaned up).',
  DATA_OPERATION_FAILED: 'The operation failed and every change it made was rolled back.',
  FORBIDDEN: 'Your role does not allow this.',
  PERMISSION_DENIED: 'Your role does not allow this.',
  NETWORK_ERROR: 'The server cannot be reached. Check that the CMS is running.',
};

export interface HumanError {
  code: string;
  message: string;
}

/** A message for people, and the code for data-code. */
export function humanError(err: unknown): HumanError {
  if (err instanceof ApiError) {
    const known = MESSAGES[err.code];
    if (known) return { code: err.code, message: known };
    if (err.status === 403) return { code: err.code, message: MESSAGES.FORBIDDEN };
    // A remote instance's failure (content sync) is said in words by the server (never the remote's text): show it.
    if (err.status >= 500 && err.code.startsWith('SYNC_') && err.message) return { code: err.code, message: err.message };
    if (err.status >= 500) return { code: err.code, message: 'The server could not do this. The server log has the details.' };
    return { code: err.code, message: errorText(err) };
  }
  return { code: 'ERROR', message: errorText(err) };
}

/** The same for an `error: {code, message}` inside an apply answer or a job. */
export function humanCode(code: string | undefined, message?: string): string {
  return (code && MESSAGES[code]) || message || 'The operation failed.';
}

export function formatDate(iso: string | undefined | null): string {
  if (!iso) return '-';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
