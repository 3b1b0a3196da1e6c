import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

const MiB = 1024 * 1024;
/** A positive whole number (bytes, entries) with its default. */
const count = (fallback: number) => z.number().int().positive().default(fallback);

/** plugins.options.importers; the IMPORT_* environment variables win (read by readImporterEnv, merged and validated by the kernel). */
export const importerOptionsSchema = z.object({
  /** Largest upload in bytes (IMPORT_MAX_BYTES), default 512 MiB. */
  maxBytes: count(512 * MiB),
  /** Deepest nesting a record may have (profile and parse stop past it). */
  maxDepth: z.number().int().min(2).max(256).default(32),
  /** Hours an upload's job folder is kept when no run consumed it (IMPORT_RETENTION_HOURS). */
  retentionHours: z.number().positive().default(24),
  /** Records prepared per pool task and written per transaction (multi-row INSERTs). */
  batchSize: z.number().int().min(1).max(1000).default(500),
  /** Entity count at or above which a run is a background job (the spec's 100). */
  inlineThreshold: z.number().int().min(1).default(100),
  /** Fetch attachments that only have a remote URL into the media library (IMPORT_FETCH_REMOTE); off: the URL is recorded. */
  fetchRemote: z.boolean().default(false),
  /** Let remote fetches reach loopback, private and link-local addresses (IMPORT_FETCH_ALLOW_PRIVATE); off by default (SSRF). */
  fetchAllowPrivate: z.boolean().default(false),
  /** Largest attachment fetched, in bytes. */
  fetchMaxBytes: count(50 * MiB),
  fetchTimeoutMs: z.number().int().min(1000).max(300_000).default(30_000),
  /** Most bytes an archive or gzip stream may expand to, in total (IMPORT_MAX_DECOMPRESSED_BYTES), default 2 GiB. */
  maxDecompressedBytes: count(2048 * MiB),
  /** Most decompressed bytes per compressed byte once the first MiB came out (IMPORT_MAX_COMPRESSION_RATIO), default 200. */
  maxCompressionRatio: z.number().positive().default(200),
  /** Most entries an archive may hold (IMPORT_MAX_ARCHIVE_ENTRIES), default 100,000. */
  maxArchiveEntries: count(100_000),
  /** Longest CSV record, NDJSON line or JSON string/key/number in bytes (IMPORT_MAX_LINE_BYTES), default 1 MiB. */
  maxLineBytes: count(MiB),
  /** Wall time of one analysis (profile + parse in the pool) before it is aborted (IMPORT_ANALYSIS_TIMEOUT_MS), default 120 s. */
  analysisTimeoutMs: z.number().int().min(100).default(120_000),
  /** CSV strict mode by default (IMPORT_CSV_STRICT): rows with too many or too few fields or stray quotes are refused, not imported. A request's `strict` field wins. */
  csvStrict: z.boolean().default(false),
});
export type ImporterOptions = z.output<typeof importerOptionsSchema>;

/** The IMPORT_* number variables; the whole-number ones are floored. */
const FLOORED = ['maxBytes', 'maxDecompressedBytes', 'maxArchiveEntries', 'maxLineBytes', 'analysisTimeoutMs'];
const NUMBERS = [...FLOORED, 'retentionHours', 'maxCompressionRatio'];
/** The IMPORT_* flag variables. */
const FLAGS = ['csvStrict', 'fetchRemote', 'fetchAllowPrivate'];

/**
 * The IMPORT_* variables as this plugin reads them, before the kernel's merge (`env` is what the kernel
 * mapped through plugin.json's `env` field, never the environment itself): a number must be positive
 * (the message names the variable) and is floored where the option is a whole number; a flag is on for
 * 1/true/yes/on and off for any other text. An empty variable changes nothing.
 */
export function readImporterEnv(env: Record<string, unknown>, sources: Record<string, string> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(env)) {
    if (v === undefined || v === '') continue;
    if (FLAGS.includes(key)) out[key] = flag(v);
    else if (NUMBERS.includes(key)) out[key] = positive(v, sources[key] ?? key, FLOORED.includes(key));
    else out[key] = v;
  }
  return out;
}

/** bool variables: the kernel turns 1/true/yes/on and 0/false/no/off into booleans; any other text counts as off. */
const flag = (v: unknown) => v === true || (typeof v === 'string' && /^(1|true|yes|on)$/i.test(v.trim()));

function positive(v: unknown, name: string, floored: boolean): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new BootError(`${name} must be a positive number, got '${String(v)}'`);
  return floored ? Math.floor(n) : n;
}
