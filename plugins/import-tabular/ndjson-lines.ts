/**
 * Worker side: one JSON value per line (NDJSON), read line by line. The nesting depth of a line is
 * counted from its characters before JSON.parse builds anything; blank lines are skipped; a line that
 * is not JSON is reported with its number and the rest goes on; a line longer than the line limit
 * refuses the upload (ImportLimitError) before it is read whole.
 */
import { DEFAULT_IMPORT_LIMITS, readLines } from '../../workers/import/limits.js';
import { detectTextEncoding, openText } from './text-source.js';

/** Is a head of text NDJSON (most non-empty lines whole JSON objects)? */
export { looksLikeNdjson } from '../../workers/import/ndjson-sniff.js';

export interface NdjsonLine {
  value: Record<string, unknown> | null;
  line: number;
  /** Why the line was refused. */
  problem?: string;
}

/** Deepest bracket nesting of a JSON text (strings skipped), stopping once past `limit`. */
export function textDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export async function* readNdjsonLines(
  path: string,
  maxDepth: number,
  maxLineBytes = DEFAULT_IMPORT_LIMITS.maxLineBytes,
): AsyncGenerator<NdjsonLine> {
  const { encoding } = await detectTextEncoding(path);
  for await (const { text, line } of readLines(openText(path, encoding), maxLineBytes, 'NDJSON line')) {
    if (text.trim() === '') continue;
    if (textDepth(text, maxDepth) > maxDepth) {
      yield { value: null, line, problem: `nested deeper than ${maxDepth} levels, skipped` };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { value: null, line, problem: `not valid JSON (${(err as Error).message}), skipped` };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      yield { value: null, line, problem: 'not a JSON object, skipped' };
      continue;
    }
    yield { value: value as Record<string, unknown>, line };
  }
}
