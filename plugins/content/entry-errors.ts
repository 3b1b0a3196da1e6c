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

/**
 * The entry is no longer at the version the change was made from (`ifVersion`): someone saved it since. `current` says
 * which version it is at now, when and by whom, so a client can show what changed (GET .../revisions/:version/diff).
 */
export class StaleVersionError extends defineError(
  'CONFLICT',
  409,
  'The request conflicts with the current state of the resource.',
  (id: string, asked: number, current: { version: number; updatedAt: string; updatedBy: string | null }) => ({
    message: `Entry '${id}' is at version ${current.version} now, not ${asked}: it was saved since; nothing was written`,
    extra: { current },
  }),
) {}
