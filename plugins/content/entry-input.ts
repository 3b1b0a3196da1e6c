import { ValidationError } from '../../kernel/sdk.js';
import type { CollectionDefinition } from './collection-schema.js';
import { readEntryInput, type CheckedInput } from './entry-values.js';

export { slugify, type CheckedInput } from './entry-values.js';

/**
 * Checks an entry body against the collection's schema: unknown keys, each field's type, required
 * fields (on create after defaults; on update only when a required field is set to null). Every
 * problem is reported at once, naming its field (entry-values.ts reads it; this throws the 400).
 */
export function checkEntryInput(c: CollectionDefinition, body: unknown, mode: 'create' | 'update', pathPrefix = 'body'): CheckedInput {
  const { input, issues, message } = readEntryInput(c, body, mode, pathPrefix);
  if (!input) throw new ValidationError(message ?? 'Invalid entry', issues);
  return input;
}
