import { ConflictError, NotFoundError, defineError } from '../../kernel/sdk.js';

export class CollectionNotFoundError extends defineError(
  'COLLECTION_NOT_FOUND',
  404,
  'No collection with this name.',
  (name: string) => `Collection '${name}' not found`,
) {}

export class CollectionExistsError extends defineError(
  'COLLECTION_EXISTS',
  409,
  'A collection with this name already exists.',
  (name: string) => `Collection '${name}' already exists`,
) {}

export class EntryNotFoundError extends defineError(
  'ENTRY_NOT_FOUND',
  404,
  'No entry with this id in the collection (for this tenant).',
  (collection: string, id: string) => `Entry '${id}' not found in '${collection}'`,
) {}

/** GET|PUT .../single on a collection that is not a singleton. */
export class NotSingletonError extends NotFoundError {
  constructor(collection: string) {
    super(`Collection '${collection}' is not a singleton; its entries are at /api/collections/${collection}/:id`);
  }
}

/** A second entry for a singleton (its one entry is written with PUT .../single). */
export class SingletonTakenError extends ConflictError {
  constructor(collection: string) {
    super(`'${collection}' is a singleton and already has its entry; write it with PUT /api/collections/${collection}/single`);
  }
}

export class PreviewNotFoundError extends defineError(
  'PREVIEW_NOT_FOUND',
  404,
  'No preview link with this token (never made, revoked, or its entry deleted).',
  () => 'This preview link does not exist or was revoked',
) {}

export class PreviewExpiredError extends defineError(
  'PREVIEW_EXPIRED',
  410,
  'The preview link has expired; make a new one.',
  () => 'This preview link has expired',
) {}
