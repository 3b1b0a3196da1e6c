import { z } from 'zod';
import { BootError } from '../../kernel/errors.js';

/** plugins.options.importers; the IMPORT_* environment variables win. */
const schema = z.object({
  /** Largest upload in bytes (IMPORT_MAX_BYTES), default 512 MiB. */
  maxBytes: z.number().int().positive().default(512 * 1024 * 1024),
  /** Deepest nesting a record may have (profile and parse stop past it). */
  maxDepth: z.number().int().min(2).max(256).default(32),
  /** Hours an upload's job folder is kept when no run consumed it (IMPORT_RETENTION_HOURS). */
  retentionHours: z.number().positive().default(24),
  /** Entities written per transaction. */
  batchSize: z.number().int().min(1).max(100).default(100),
  /** Entity count at or above which a run is a background job (the spec's 100). */
  inlineThreshold: z.number().int().min(1).default(100),
  /** Fetch attachments that only have a remote URL into the media library (IMPORT_FETCH_REMOTE); off: the URL is recorded. */
  fetchRemote: z.boolean().default(false),
  /** Let remote fetches reach loopback, private and link-local addresses (IMPORT_FETCH_ALLOW_PRIVATE); off by default (SSRF). */
  fetchAllowPrivate: z.boolean().default(false),
  /** Largest attachment fetched, in bytes. */
  fetchMaxBytes: z.number().int().positive().default(50 * 1024 * 1024),
  fetchTimeoutMs: z.number().int().min(1000).max(300_000).default(30_000),
});
export type ImporterOptions = z.output<typeof schema>;

export function parseImporterOptions(raw: unknown, env: NodeJS.ProcessEnv = process.env): ImporterOptions {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new BootError(`Invalid plugins.options.importers: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const out = { ...parsed.data };
  const num = (name: string) => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new BootError(`${name} must be a positive number, got '${v}'`);
    return n;
  };
  out.maxBytes = Math.floor(num('IMPORT_MAX_BYTES') ?? out.maxBytes);
  out.retentionHours = num('IMPORT_RETENTION_HOURS') ?? out.retentionHours;
  if (env.IMPORT_FETCH_REMOTE) out.fetchRemote = /^(1|true|yes)$/i.test(env.IMPORT_FETCH_REMOTE);
  if (env.IMPORT_FETCH_ALLOW_PRIVATE) out.fetchAllowPrivate = /^(1|true|yes)$/i.test(env.IMPORT_FETCH_ALLOW_PRIVATE);
  return out;
}
