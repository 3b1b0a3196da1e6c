// Toasts: short messages in the corner. Errors are said in words (lib/errors.ts); the API's code stays in data-code.
import { ApiError } from './remote';
import { errorText } from './errors';

export interface Toast {
  id: number;
  kind: 'error' | 'success' | 'info';
  message: string;
  code?: string;
}

let next = 1;
export const toasts = $state<Toast[]>([]);

export function dismiss(id: number): void {
  const i = toasts.findIndex((t) => t.id === id);
  if (i >= 0) toasts.splice(i, 1);
}

function push(kind: Toast['kind'], message: string, code?: string, ms = kind === 'error' ? 8000 : 4000): number {
  const id = next++;
  toasts.push({ id, kind, message, code });
  setTimeout(() => dismiss(id), ms);
  return id;
}

export const toast = {
  success: (message: string) => push('success', message),
  info: (message: string) => push('info', message),
  /** An error from the API (message + code) or any other Error. */
  error(err: unknown, fallback?: string) {
    if (err instanceof ApiError) return push('error', errorText(err), err.code);
    return push('error', errorText(err, fallback));
  },
};

/**
 * The shape of most buttons' work: a flag shows it is under way (disabled buttons, "Saving…"), a
 * failure is said in an error toast, and the flag is cleared whatever happened.
 */
export async function attempt(setBusy: (busy: boolean) => void, work: () => Promise<void>): Promise<void> {
  setBusy(true);
  try {
    await orToast(work);
  } finally {
    setBusy(false);
  }
}

/** Runs `work`; a failure becomes an error toast (attempt without a busy flag). */
export async function orToast(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    toast.error(err);
  }
}
