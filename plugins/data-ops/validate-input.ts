/**
 * Input validation of a data-operation domain, once: a domain declares the zod schema of its input and
 * gets the normalised value or the ValidationError every domain answers (details `body.<path>`).
 */
import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../kernel/errors.js';

/** zod issues as ValidationError details: `<prefix>.<path>` (prefix `body` for a request body). */
export function zodIssueDetails(issues: readonly z.core.$ZodIssue[], prefix = 'body'): ValidationIssue[] {
  return issues.map((i) => ({ path: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * Parses a domain's input with its schema: the parsed value, or ValidationError(message) with one detail
 * per zod issue (`body.<path>`, or `<prefix>.<path>`). The input is parsed as given: a domain whose body
 * is optional passes `input ?? {}`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, message: string, prefix = 'body'): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError(message, zodIssueDetails(parsed.error.issues, prefix));
  return parsed.data;
}
