import { defineError, retryAfter } from '../../kernel/sdk.js';

export class BackupNotFoundError extends defineError(
  'BACKUP_NOT_FOUND',
  404,
  'No completed backup with this id (GET /api/backups lists them).',
  (id: string) => `No backup '${id}'`,
) {}

export class MaintenanceError extends defineError(
  'MAINTENANCE',
  503,
  'A backup restore is running: the instance is in maintenance and answers only administrators until it ends (Retry-After).',
  (retryAfterSeconds: number) => ({
    message: 'The instance is in maintenance (a backup restore is running); try again shortly',
    ...retryAfter(retryAfterSeconds),
    expose: true,
  }),
) {}

// Refusals of POST /api/backups/upload: each leaves nothing on disk.

export class BackupArchiveInvalidError extends defineError(
  'BACKUP_ARCHIVE_INVALID',
  400,
  'The uploaded backup archive is not a gzip-compressed tar of one <backupId>.svelty-backup folder with a valid manifest.json (format, version, id, listed files present with their sizes); nothing is kept.',
  (reason: string) => `Not a usable backup archive: ${reason}`,
) {}

export class BackupArchiveUnsafePathError extends defineError(
  'BACKUP_ARCHIVE_UNSAFE_PATH',
  400,
  'The uploaded backup archive has an entry with an absolute path, a `..` segment (path traversal), a backslash or a NUL byte; nothing is kept.',
  (path: string) => `Refused backup archive: the entry '${path.slice(0, 200)}' leaves the backup folder (absolute path or path traversal)`,
) {}

export class BackupArchiveLinkError extends defineError(
  'BACKUP_ARCHIVE_LINK',
  400,
  'The uploaded backup archive has a symbolic or hard link; backups hold regular files and folders only, nothing is kept.',
  (path: string) => `Refused backup archive: the entry '${path.slice(0, 200)}' is a link`,
) {}

export class BackupArchiveSpecialFileError extends defineError(
  'BACKUP_ARCHIVE_SPECIAL_FILE',
  400,
  'The uploaded backup archive has a device file, a FIFO or another entry that is neither a regular file nor a folder; nothing is kept.',
  (path: string, type: string) => `Refused backup archive: the entry '${path.slice(0, 200)}' is a ${type}, not a file or folder`,
) {}

export class BackupArchiveLimitError extends defineError(
  'BACKUP_ARCHIVE_LIMIT',
  413,
  'The uploaded backup archive goes past an extraction limit: more entries than BACKUP_UPLOAD_MAX_ENTRIES or more decompressed bytes than BACKUP_UPLOAD_MAX_EXTRACTED_BYTES (a decompression bomb); `limit` names the option, nothing is kept.',
  (limit: 'uploadMaxEntries' | 'uploadMaxExtractedBytes', variable: string, value: number) => ({
    message: `Refused backup archive: it goes past ${limit} (${variable} = ${value})`,
    extra: { limit },
  }),
) {}

export class BackupExistsError extends defineError(
  'BACKUP_EXISTS',
  409,
  'A backup with the backupId of the uploaded archive already exists on this instance (the same backup was uploaded or created here): the listed one is kept as it is.',
  (backupId: string) => ({ message: `A backup '${backupId}' already exists on this instance`, extra: { backupId } }),
) {}

export class BackupUntrustedError extends defineError(
  'BACKUP_UNTRUSTED',
  400,
  "The backup's manifest.json is not authenticated by this installation's backup key (its HMAC-SHA256 `mac` is missing, wrong after a change, or made by another installation): restore-plan and upload refuse it unless an installation administrator sends `foreign: true` (audited) to take it as a foreign backup; nothing is kept or planned.",
  (backupId: string, state: 'missing' | 'foreign' | 'altered') => ({
    message:
      state === 'altered'
        ? `Backup '${backupId}' was changed after this installation made it (its manifest's MAC does not match): refused unless an installation administrator takes it as foreign (foreign: true)`
        : state === 'foreign'
          ? `Backup '${backupId}' was made by another installation (its manifest is signed with another key): send foreign: true to import it as foreign`
          : `Backup '${backupId}' carries no MAC of this installation (made by an older version, or the MAC was removed): send foreign: true to take it as foreign`,
    extra: { backupId, mac: state },
  }),
) {}
