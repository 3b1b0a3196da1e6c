import { join } from 'node:path';
import { type WorkerPool, DIST_ROOT } from '../../kernel/sdk.js';
import type { CollectionDefinition } from './collection-schema.js';
import { rememberClean } from './rich-text.js';
import type { SanitizeResult } from './rich-text-task.js';

/** Sanitises rich-text values off the event loop; the answer keeps the order. */
export type RichTextSanitizer = (html: string[]) => Promise<string[]>;

/** Below this many characters of rich text in one write, sanitising inline is cheaper than a trip to the pool. */
export const POOL_THRESHOLD_CHARS = 32 * 1024;
/** Characters per pool task: a large batch is spread over the pool's threads. */
const TASK_CHARS = 256 * 1024;
/** Longer values fail validation anyway (valueSchema: at most 1,000,000 characters). */
const VALUE_MAX = 1_000_000;

export const RICH_TEXT_TASK_FILE = join(DIST_ROOT, 'plugins', 'content', 'rich-text-task.js');

/** A RichTextSanitizer on the process's worker pool (rich-text-task.ts), found when first needed. */
export function poolSanitizer(getPool: () => WorkerPool): RichTextSanitizer {
  return async (html) => {
    const pool = getPool();
    const tasks: string[][] = [];
    let chars = TASK_CHARS;
    for (const h of html) {
      if (chars >= TASK_CHARS) {
        tasks.push([]);
        chars = 0;
      }
      tasks[tasks.length - 1]!.push(h);
      chars += h.length;
    }
    const answers = await Promise.all(
      tasks.map((t) => pool.run<SanitizeResult>('sanitizeRichTextBatch', { html: t }, RICH_TEXT_TASK_FILE)),
    );
    return answers.flatMap((a) => {
      if (!a.ok) throw new Error(a.issues.map((i) => i.message).join('; '));
      return a.value;
    });
  };
}

/**
 * Entry bodies with their rich-text values sanitised in the worker pool, when a write carries much rich
 * text (bulk writes: importers, createMany; one long value); otherwise the bodies unchanged. The values
 * still pass toColumn's sanitising, which recognises them as clean without parsing them again. A pool
 * failure leaves the bodies as they were: the write then sanitises on the event loop.
 */
export async function presanitize(
  c: CollectionDefinition,
  bodies: unknown[],
  sanitizer: RichTextSanitizer | undefined,
): Promise<unknown[]> {
  const fields = c.fields.filter((f) => f.type === 'richtext').map((f) => f.name);
  if (!sanitizer || !fields.length) return bodies;
  const refs: Array<[number, string]> = [];
  const html: string[] = [];
  let chars = 0;
  bodies.forEach((body, i) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    for (const name of fields) {
      const v = (body as Record<string, unknown>)[name];
      if (typeof v !== 'string' || v.length > VALUE_MAX || !Object.hasOwn(body, name)) continue;
      refs.push([i, name]);
      html.push(v);
      chars += v.length;
    }
  });
  if (chars < POOL_THRESHOLD_CHARS) return bodies;
  let clean: string[];
  try {
    clean = await sanitizer(html);
  } catch {
    return bodies;
  }
  rememberClean(clean);
  const touched = new Set(refs.map(([i]) => i));
  const out = bodies.map((b, i) => (touched.has(i) ? { ...(b as object) } : b)) as Array<Record<string, unknown>>;
  refs.forEach(([i, name], k) => (out[i]![name] = clean[k]));
  return out;
}
