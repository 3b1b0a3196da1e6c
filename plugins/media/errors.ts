import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('MEDIA_NOT_FOUND', 404, 'No media item with this id in your tenant (or it is in the trash).');
export class MediaNotFoundError extends AppError {
  constructor(id: string) {
    super('MEDIA_NOT_FOUND', 404, `No media item '${id}'`);
  }
}

defineErrorCode('EMPTY_FILE', 400, 'The uploaded file has no content (0 bytes); nothing is stored.');
export class EmptyFileError extends AppError {
  constructor() {
    super('EMPTY_FILE', 400, 'The file is empty');
  }
}

defineErrorCode('MEDIA_TYPE_MISMATCH', 415, "The file name's extension and the type detected from its content disagree where it matters: an active or executable extension (.html, .svg, .js, .exe, ...) the content does not match, or HTML, SVG or XML content under a name of another type (logo.png); the message names both.");
export class MediaTypeMismatchError extends AppError {
  constructor(message: string, extension: string, detectedType: string) {
    super('MEDIA_TYPE_MISMATCH', 415, message, { extra: { extension, detectedType } });
  }
}

defineErrorCode('FOLDER_NOT_FOUND', 404, 'No media folder with this id in your tenant.');
export class FolderNotFoundError extends AppError {
  constructor(id: string) {
    super('FOLDER_NOT_FOUND', 404, `No media folder '${id}'`);
  }
}

defineErrorCode('FOLDER_EXISTS', 409, 'A media folder with this name already exists under the same parent.');
export class FolderExistsError extends AppError {
  constructor(name: string) {
    super('FOLDER_EXISTS', 409, `A folder named '${name}' already exists here`);
  }
}

defineErrorCode('FOLDER_NOT_EMPTY', 409, 'The media folder still holds media or subfolders; move or delete them first.');
export class FolderNotEmptyError extends AppError {
  constructor(items: number, folders: number) {
    super('FOLDER_NOT_EMPTY', 409, `The folder is not empty (${items} media item(s), ${folders} subfolder(s)); move or delete them first`);
  }
}

defineErrorCode('MEDIA_PATH_INVALID', 400, 'A /files/ or trash path that cannot be confined to the media storage (traversal, NUL bytes, absolute or malformed).');
export class MediaPathInvalidError extends AppError {
  constructor() {
    super('MEDIA_PATH_INVALID', 400, 'Invalid media path');
  }
}

defineErrorCode('RANGE_NOT_SATISFIABLE', 416, 'The Range header asks for bytes outside the file; Content-Range gives its size.');
export class RangeNotSatisfiableError extends AppError {
  constructor(size: number) {
    super('RANGE_NOT_SATISFIABLE', 416, 'The requested range is outside the file', { headers: { 'Content-Range': `bytes */${size}` } });
  }
}

defineErrorCode('MEDIA_STORAGE_UNAVAILABLE', 503, 'The media storage driver failed (unreachable store, missing credentials); details are in the log.');
export class MediaStorageUnavailableError extends AppError {
  constructor(cause: unknown) {
    super('MEDIA_STORAGE_UNAVAILABLE', 503, 'Media storage is unavailable; try again later', { cause, expose: true, headers: { 'Retry-After': '30' } });
  }
}

defineErrorCode('MEDIA_TRASH_UNAVAILABLE', 409, 'The configured storage driver deletes directly and keeps no trash to restore from or purge.');
export class TrashUnavailableError extends AppError {
  constructor(driver: string) {
    super('MEDIA_TRASH_UNAVAILABLE', 409, `The storage driver '${driver}' keeps no trash (deletes are direct)`);
  }
}

defineErrorCode('SHARE_NOT_FOUND', 404, 'No share link for this token on this media item (unknown, revoked, or the item is gone).');
export class ShareNotFoundError extends AppError {
  constructor() {
    super('SHARE_NOT_FOUND', 404, 'This share link does not exist');
  }
}

defineErrorCode('SHARE_EXPIRED', 410, 'The share link has expired; ask for a new one or for its expiry to be extended.');
export class ShareExpiredError extends AppError {
  constructor() {
    super('SHARE_EXPIRED', 410, 'This share link has expired');
  }
}

defineErrorCode('SHARE_PASSWORD_REQUIRED', 401, 'The share link is password-protected and no password was given.');
export class SharePasswordRequiredError extends AppError {
  constructor() {
    super('SHARE_PASSWORD_REQUIRED', 401, 'This share link needs a password');
  }
}

defineErrorCode('SHARE_PASSWORD_INVALID', 401, 'The password given for the share link is wrong (attempts per link are rate limited).');
export class SharePasswordInvalidError extends AppError {
  constructor() {
    super('SHARE_PASSWORD_INVALID', 401, 'Wrong password for this share link');
  }
}

/** 429 RATE_LIMITED (the kernel's code) with the real wait in Retry-After. */
export class ShareAttemptsLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super('RATE_LIMITED', 429, `Too many wrong passwords for this share link; try again in ${seconds} seconds`, {
      headers: { 'Retry-After': String(seconds) },
      extra: { retryAfterSeconds: seconds },
    });
  }
}
