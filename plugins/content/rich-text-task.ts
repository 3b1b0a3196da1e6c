/**
 * Piscina task file of the content plugin: sanitising many rich-text values off the event loop (bulk writes:
 * importers, createMany). Plain data in and out, no kernel imports.
 */
import { sanitizeRichText } from './rich-text.js';

export type SanitizeResult = { ok: true; value: string[] } | { ok: false; issues: Array<{ code: string; message: string }> };

export function sanitizeRichTextBatch(input: { html: string[] }): SanitizeResult {
  if (!Array.isArray(input?.html) || input.html.some((h) => typeof h !== 'string'))
    return { ok: false, issues: [{ code: 'INVALID_INPUT', message: 'html must be an array of strings' }] };
  return { ok: true, value: input.html.map(sanitizeRichText) };
}
