/**
 * Piscina task file of the content plugin: sanitising many rich-text values off the event loop (bulk writes:
 * importers, createMany). Plain data in and out, no kernel imports. sanitize-html needs require(esm), which
 * the pool's threads run without: it is loaded once workers/require-esm.ts made that possible.
 */
import { allowEsmDependencies } from '../../workers/require-esm.js';

export type SanitizeResult = { ok: true; value: string[] } | { ok: false; issues: Array<{ code: string; message: string }> };

await allowEsmDependencies();
const { sanitizeRichText } = await import('./rich-text.js');

export function sanitizeRichTextBatch(input: { html: string[] }): SanitizeResult {
  if (!Array.isArray(input?.html) || input.html.some((h) => typeof h !== 'string'))
    return { ok: false, issues: [{ code: 'INVALID_INPUT', message: 'html must be an array of strings' }] };
  return { ok: true, value: input.html.map(sanitizeRichText) };
}
