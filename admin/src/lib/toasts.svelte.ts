// Toasts: short messages in the corner. Errors show the API's message and its error code.
import { ApiError } from './api';

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
  error(err: unknown, fallback = 'Something went wrong') {
    if (err instanceof ApiError) return push('error', err.message, err.code);
    return push('error', err instanceof Error ? err.message : fallback);
  },
};
