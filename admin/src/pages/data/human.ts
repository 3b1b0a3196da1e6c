// Errors of the data-operation routes in human terms: the main text never shows a raw error code
// (the code stays available to tests and support as data-code on the alert).
import { ApiError } from '../../lib/remote';
import { errorText } from '../../lib/errors';
import { formatDateTime, t } from '../../i18n/index.svelte';

/** Catalogue keys (data.errors.*) of the codes whose server message is not meant for people. */
const MESSAGES: Record<string, string> = {
  CONFIRMATION_REQUIRED: 'confirmationRequired',
  PLAN_STALE: 'planStale',
  PLAN_EXPIRED: 'planExpired',
  PLAN_NOT_FOUND: 'planNotFound',
  PLAN_ALREADY_APPLIED: 'planAlreadyApplied',
  PLAN_BLOCKED: 'planBlocked',
  PLAN_HASH_MISMATCH: 'planHashMismatch',
  LOCK_CONTENTION: 'lockContention',
  MAINTENANCE: 'maintenance',
  DATA_JOB_NOT_FOUND: 'jobNotFound',
  DATA_OPERATION_FAILED: 'operationFailed',
  FORBIDDEN: 'forbidden',
  PERMISSION_DENIED: 'forbidden',
  NETWORK_ERROR: 'network',
};
const known = (code: string | undefined) => (code && MESSAGES[code] ? t(`data.errors.${MESSAGES[code]}`) : undefined);

export interface HumanError {
  code: string;
  message: string;
}

/** A message for people, and the code for data-code. */
export function humanError(err: unknown): HumanError {
  if (err instanceof ApiError) {
    const message = known(err.code);
    if (message) return { code: err.code, message };
    if (err.status === 403) return { code: err.code, message: t('data.errors.forbidden') };
    // A remote instance's failure (content sync) is said in words by the server (never the remote's text): show it.
    if (err.status >= 500 && err.code.startsWith('SYNC_') && err.message) return { code: err.code, message: err.message };
    if (err.status >= 500) return { code: err.code, message: t('data.errors.server') };
    return { code: err.code, message: errorText(err) };
  }
  return { code: 'ERROR', message: errorText(err) };
}

/** The same for an `error: {code, message}` inside an apply answer or a job. */
export function humanCode(code: string | undefined, message?: string): string {
  return known(code) || message || t('data.errors.failed');
}

/** A date and time in the chosen language ('-' when there is none). */
export function formatDate(iso: string | undefined | null): string {
  return iso ? formatDateTime(iso) : '-';
}
