/**
 * Piscina task file of the media plugin (run through the kernel's pool with this file's name): pure
 * functions, plain data in and out, no kernel imports.
 */
import { readFile } from 'node:fs/promises';

/** Whether a file is valid JSON: parsed in the worker, so a large document never blocks the event loop. */
export async function validateJson(input: {
  path: string;
}): Promise<{ ok: true; value: boolean } | { ok: false; issues: Array<{ code: string; message: string }> }> {
  if (typeof input?.path !== 'string') return { ok: false, issues: [{ code: 'INVALID_INPUT', message: 'path must be a string' }] };
  try {
    JSON.parse(await readFile(input.path, 'utf8'));
    return { ok: true, value: true };
  } catch (err) {
    if (err instanceof SyntaxError) return { ok: true, value: false };
    return { ok: false, issues: [{ code: 'READ_FAILED', message: (err as Error).message }] };
  }
}
