import { AppError, defineError, retryAfter } from '../../kernel/sdk.js';

export class MediaNotFoundError extends defineError(
  'MEDIA_NOT_FOUND',
  404,
  'No media item with this id in your tenant (or it is in the trash).',
  (id: string) => `No media item '${id}'`,
) {}

export class EmptyFileError extends defineError(
  'EMPTY_FILE',
  400,
  'The uploaded file has no content (0 bytes); nothing is stored.',
  'The file is empty',
) {}

export class MediaTypeMismatchError extends defineError(
  'MEDIA_TYPE_MISMATCH',
  415,
  "The file name's extension and the type detected from its content disagree where it matters: an active or executable extension (.html, .svg, .js, .exe, ...) the content does not match, or HTML, SVG or XML content under a name of another type (logo.png); the message names both.",
  (message: string, extension: string, detectedType: string) => ({ message, extra: { extension, detectedType } }),
) {}

export class FolderNotFoundError extends defineError(
  'FOLDER_NOT_FOUND',
  404,
  'No media folder with this id in your tenant.',
  (id: string) => `No media folder '${id}'`,
) {}

export class FolderExistsError extends defineError(
  'FOLDER_EXISTS',
  409,
  'A media folder with this name already exists under the same parent.',
  (name: string) => `A folder named '${name}' already exists here`,
) {}

export class FolderNotEmptyError extends defineError(
  'FOLDER_NOT_EMPTY',
  409,
  'The media folder still holds media or subfolders; move or delete them first.',
  (items: number, folders: number) =>
    `The folder is not empty (${items} media item(s), ${folders} subfolder(s)); move or delete them first`,
) {}

export class MediaPathInvalidError extends defineError(
  'MEDIA_PATH_INVALID',
  400,
  'A /files/ or trash path that cannot be confined to the media storage (traversal, NUL bytes, absolute or malformed).',
  'Invalid media path',
) {}

export class RangeNotSatisfiableError extends defineError(
  'RANGE_NOT_SATISFIABLE',
  416,
  'The Range header asks for bytes outside the file; Content-Range gives its size.',
  (size: number) => ({ message: 'The requested range is outside the file', headers: { 'Content-Range': `bytes */${size}` } }),
) {}

export class MediaStorageUnavailableError extends defineError(
  'MEDIA_STORAGE_UNAVAILABLE',
  503,
  'The media storage driver failed (unreachable store, missing credentials); details are in the log.',
  (cause: unknown) => ({ message: 'Media storage is unavailable; try again later', cause, expose: true, headers: { 'Retry-After': '30' } }),
) {}

export class TrashUnavailableError extends defineError(
  'MEDIA_TRASH_UNAVAILABLE',
  409,
  'The configured storage driver deletes directly and keeps no trash to restore from or purge.',
  (driver: string) => `The storage driver '${driver}' keeps no trash (deletes are direct)`,
) {}

export class ShareNotFoundError extends defineError(
  'SHARE_NOT_FOUND',
  404,
  'No share link for this token on this media item (unknown, revoked, or the item is gone).',
  'This share link does not exist',
) {}

export class ShareExpiredError extends defineError(
  'SHARE_EXPIRED',
  410,
  'The share link has expired; ask for a new one or for its expiry to be extended.',
  'This share link has expired',
) {}

export class SharePasswordRequiredError extends defineError(
  'SHARE_PASSWORD_REQUIRED',
  401,
  'The share link is password-protected and no password was given.',
  'This share link needs a password',
) {}

export class SharePasswordInvalidError extends defineError(
  'SHARE_PASSWORD_INVALID',
  401,
  'The password given for the share link is wrong (attempts per link are rate limited).',
  'Wrong password for this share link',
) {}

/**
 * 429 RATE_LIMITED (the kernel's code) with the real wait in Retry-After. Hand-written: the code and
 * its catalogue entry belong to the kernel (RateLimitedError answers a fixed 60 seconds).
 */
export class ShareAttemptsLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super('RATE_LIMITED', 429, `Too many wrong passwords for this share link; try again in ${seconds} seconds`, {
      ...retryAfter(seconds),
    });
  }
}
