import { defineError } from '../../kernel/sdk.js';

/** A unique field (or the slug, after its retries) already holds the value in the collection. */
export class UniqueValueConflictError extends defineError(
  'CONFLICT',
  409,
  'The request conflicts with the current state of the resource.',
  (collection: string, field: string | null, path: string) => ({
    message: `${field ? `'${field}'` : 'A unique field'} already has this value in ${collection}`,
    extra: { issues: [{ path, message: 'already used' }] },
  }),
) {}
