import { defineError } from '../../kernel/sdk.js';

// Refusals of POST /api/content-import/validate (and contentPackages.receive): each leaves nothing on disk.

export class ContentImportArchiveInvalidError extends defineError(
  'CONTENT_IMPORT_ARCHIVE_INVALID',
  400,
  'The uploaded content package is not a gzip-compressed tar archive (or the tar is damaged, empty, or holds no manifest.json); nothing is kept.',
  (reason: string) => `Not a usable content package: ${reason}`,
) {}

export class ContentImportUnsafePathError extends defineError(
  'CONTENT_IMPORT_UNSAFE_PATH',
  400,
  'The uploaded content package has an entry with an absolute path, a `..` segment (path traversal), a backslash or a NUL byte; nothing is kept.',
  (path: string) =>
    `Refused content package: the entry '${path.slice(0, 200)}' leaves the package folder (absolute path or path traversal)`,
) {}

export class ContentImportLinkError extends defineError(
  'CONTENT_IMPORT_LINK',
  400,
  'The uploaded content package has a symbolic or hard link; packages hold regular files and folders only, nothing is kept.',
  (path: string) => `Refused content package: the entry '${path.slice(0, 200)}' is a link`,
) {}

export class ContentImportSpecialFileError extends defineError(
  'CONTENT_IMPORT_SPECIAL_FILE',
  400,
  'The uploaded content package has a device file, a FIFO or another entry that is neither a regular file nor a folder; nothing is kept.',
  (path: string, type: string) => `Refused content package: the entry '${path.slice(0, 200)}' is a ${type}, not a file or folder`,
) {}

export class ContentImportLimitError extends defineError(
  'CONTENT_IMPORT_LIMIT',
  413,
  'The uploaded content package goes past an extraction limit: more entries than CONTENT_IMPORT_MAX_ENTRIES, more decompressed bytes than CONTENT_IMPORT_MAX_EXTRACTED_BYTES, or a compression ratio above CONTENT_IMPORT_MAX_RATIO (a decompression bomb); `limit` names the option, nothing is kept.',
  (limit: 'importMaxEntries' | 'importMaxExtractedBytes' | 'importMaxRatio', variable: string, value: number) => ({
    message: `Refused content package: it goes past ${limit} (${variable} = ${value})`,
    extra: { limit },
  }),
) {}

export class ContentImportUploadNotFoundError extends defineError(
  'CONTENT_IMPORT_UPLOAD_NOT_FOUND',
  404,
  "No validated content package with this uploadId in the caller's tenant (uploads are kept 24 hours): validate the package again.",
  (uploadId: string) => `No content package upload '${uploadId.slice(0, 64)}' (expired, or never validated here)`,
) {}
