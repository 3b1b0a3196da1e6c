import { z } from 'zod';

/** `plugins.options['content-packages'].export` (no environment variables). */
export const exportOptionsSchema = z.object({
  /** Hours a built package is kept before retention deletes it (checked at boot and every hour). */
  retentionHours: z
    .number()
    .min(0.01)
    .max(24 * 365)
    .default(24),
  /** Packages kept at most (the oldest beyond are deleted), over all tenants. */
  maxPackages: z.number().int().min(1).max(10_000).default(50),
  /** Entries read per page (keyset on id) while writing a package. */
  pageSize: z.number().int().min(10).max(2000).default(500),
});
export type ExportOptions = z.output<typeof exportOptionsSchema>;
