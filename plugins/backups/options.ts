import { z } from 'zod';

/** plugins.options.backups; the BACKUP_* environment variables win (merged and validated by the kernel). */
export const backupOptionsSchema = z.object({
  /** Completed backups kept (BACKUP_RETENTION_COUNT); older ones are deleted after each create. */
  retentionCount: z.number().int().min(1).max(10_000).default(10),
  /** Entities (entries + media records) at or above which create runs as a background job (BACKUP_INLINE_THRESHOLD). */
  inlineThreshold: z.number().int().min(1).default(500),
  /** Rows read (and inserted on restore) per page. */
  pageSize: z.number().int().min(10).max(2000).default(500),
  /** Seconds a maintenance flag lives without a heartbeat (a crashed restore never leaves maintenance on for longer). */
  maintenanceTtlSeconds: z.number().int().min(5).max(3600).default(60),
  /** Minutes a passphrase-derived key is held in memory for a restore plan or a background create. */
  keyTtlMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(30),
  /** Largest backup archive POST /api/backups/upload accepts, in bytes (BACKUP_UPLOAD_MAX_BYTES; 413 PAYLOAD_TOO_LARGE). */
  uploadMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(2 * 1024 ** 3),
  /** Sum of the decompressed bytes of an uploaded archive (BACKUP_UPLOAD_MAX_EXTRACTED_BYTES; 413 BACKUP_ARCHIVE_LIMIT). */
  uploadMaxExtractedBytes: z
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 ** 3),
  /** Entries (files and folders) of an uploaded archive (BACKUP_UPLOAD_MAX_ENTRIES; 413 BACKUP_ARCHIVE_LIMIT). */
  uploadMaxEntries: z.number().int().min(4).max(10_000_000).default(200_000),
});
export type BackupOptions = z.output<typeof backupOptionsSchema>;
