import { z } from 'zod';

/** The import side's keys of plugins.options['content-packages'] (`export` belongs to the export side); CONTENT_IMPORT_* variables win. */
export const importOptionsSchema = z.object({
  /** Largest package archive POST /api/content-import/validate accepts, in bytes (CONTENT_IMPORT_MAX_BYTES; 413 PAYLOAD_TOO_LARGE). */
  importMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 ** 3),
  /** Sum of the decompressed bytes of an archive (CONTENT_IMPORT_MAX_EXTRACTED_BYTES; 413 CONTENT_IMPORT_LIMIT). */
  importMaxExtractedBytes: z
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 ** 3),
  /** Files and folders of an archive (CONTENT_IMPORT_MAX_ENTRIES; 413 CONTENT_IMPORT_LIMIT). */
  importMaxEntries: z.number().int().min(4).max(10_000_000).default(200_000),
  /** Decompressed bytes per compressed byte, checked past the first MiB (CONTENT_IMPORT_MAX_RATIO; 413 CONTENT_IMPORT_LIMIT). */
  importMaxRatio: z.number().int().min(2).max(100_000).default(1000),
  /** Entries of one package a plan takes (CONTENT_IMPORT_MAX_PACKAGE_ENTRIES; above: the plan is blocked). */
  importMaxPackageEntries: z.number().int().min(1).max(10_000_000).default(1_000_000),
  /** Hours an upload (and the plans made from it) is kept. */
  importUploadTtlHours: z
    .number()
    .min(0.001)
    .max(24 * 30)
    .default(24),
});
export type ImportOptions = z.output<typeof importOptionsSchema>;
