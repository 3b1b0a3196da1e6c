import { defineError } from '../../kernel/sdk.js';

/** One line per error: code, status, what it means (for the catalogue), the message. */
export class NoteNotFoundError extends defineError(
  'NOTE_NOT_FOUND',
  404,
  'No note with this id among your notes.',
  (id: string) => `No note ${id}`,
) {}
