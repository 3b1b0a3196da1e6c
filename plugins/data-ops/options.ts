import { z } from 'zod';

/** plugins.options['data-ops']; the DATA_OPS_* environment variables win (merged and validated by the kernel). */
export const dataOpsOptionsSchema = z.object({
  /** How long apply waits for a domain's lock before 409 LOCK_CONTENTION (DATA_OPS_LOCK_WAIT_MS), default 10 s. */
  lockWaitMs: z.number().int().min(0).max(600_000).default(10_000),
  /** The lock's lease, renewed every third of it while an apply runs; a dead instance's lock expires after it. */
  lockTtlMs: z.number().int().min(1000).max(3_600_000).default(120_000),
  /** Open completion streams (GET /api/data-ops/events) per instance (DATA_OPS_MAX_STREAMS), default 200. */
  maxStreams: z.number().int().min(1).max(100_000).default(200),
  /**
   * Open completion streams per identity (a user with its sessions, API keys and website tokens) per
   * instance (DATA_OPS_MAX_STREAMS_PER_IDENTITY), default 5: one caller cannot take every slot.
   */
  maxStreamsPerIdentity: z.number().int().min(1).max(10_000).default(5),
  /** A comment line on every completion stream this often, default 15 s. */
  heartbeatMs: z.number().int().min(50).default(15_000),
  /** How often expired and old plans are pruned, default 10 minutes. */
  pruneIntervalMs: z.number().int().min(1000).default(600_000),
});
export type DataOpsPluginOptions = z.output<typeof dataOpsOptionsSchema>;
