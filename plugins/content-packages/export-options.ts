import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

/** `plugins.options['content-packages'].export` (no environment variables). */
const schema = z.object({
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
export type ExportOptions = z.output<typeof schema>;

export function parseExportOptions(raw: unknown): ExportOptions {
  const section = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).export : undefined;
  const parsed = schema.safeParse(section ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BootError(`Invalid plugins.options['content-packages'].export.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
