import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('COLLECTION_NOT_FOUND', 404, 'No collection with this name.');
export class CollectionNotFoundError extends AppError {
  constructor(name: string) {
    super('COLLECTION_NOT_FOUND', 404, `Collection '${name}' not found`);
  }
}

defineErrorCode('COLLECTION_EXISTS', 409, 'A collection with this name already exists.');
export class CollectionExistsError extends AppError {
  constructor(name: string) {
    super('COLLECTION_EXISTS', 409, `Collection '${name}' already exists`);
  }
}

defineErrorCode('ENTRY_NOT_FOUND', 404, 'No entry with this id in the collection (for this tenant).');
export class EntryNotFoundError extends AppError {
  constructor(collection: string, id: string) {
    super('ENTRY_NOT_FOUND', 404, `Entry '${id}' not found in '${collection}'`);
  }
}
