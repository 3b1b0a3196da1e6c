import { ValidationError } from '../errors.js';

/** C0 control characters other than tab, line feed and carriage return (NUL among them). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** How deep a request's JSON may nest (objects and arrays). */
export const MAX_INPUT_DEPTH = 64;

const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Why a string is refused at the edge (control characters, lone surrogates), or null when it is fine. */
export function problem(s: string): string | null {
  if (CONTROL.test(s)) return 'control characters (such as NUL) are not allowed';
  if (!wellFormed(s)) return 'not valid Unicode (a lone surrogate)';
  return null;
}

/**
 * Input hygiene at the edge: every string (and object key) of a request's params, query or body is
 * checked before validation and before any SQL: C0 control characters other than tab, LF and CR, and
 * lone UTF-16 surrogates, are refused with 400 VALIDATION_ERROR naming the field; so is JSON nested
 * deeper than MAX_INPUT_DEPTH. Iterative, so hostile nesting cannot exhaust the stack.
 */
export function refuseControlCharacters(value: unknown, where: string): void {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: where, depth: 0 }];
  const issues: Array<{ path: string; message: string }> = [];
  while (stack.length && issues.length < 10) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const p = problem(v);
      if (p) issues.push({ path, message: p });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      issues.push({ path, message: `nested deeper than ${MAX_INPUT_DEPTH} levels` });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}.${i}`, depth: depth + 1 });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const p = problem(k);
      const safeKey = p ? JSON.stringify(k).slice(1, -1).slice(0, 40) : k;
      if (p) issues.push({ path: `${path}.${safeKey}`, message: `field name: ${p}` });
      stack.push({ v: child, path: `${path}.${safeKey}`, depth: depth + 1 });
    }
  }
  if (issues.length) throw new ValidationError(`Invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

/** A query without the parameters refuseControlCharacters would refuse (name or any value unreadable). */
export function dropUnreadableQuery(query: Record<string, unknown>): Record<string, unknown> {
  const readable = (v: unknown) => typeof v !== 'string' || problem(v) === null;
  return Object.fromEntries(
    Object.entries(query).filter(([k, v]) => problem(k) === null && (Array.isArray(v) ? v.every(readable) : readable(v))),
  );
}
