import { z } from 'zod';

const MiB = 1024 * 1024;

/** plugins.options['content-sync']; the CONTENT_SYNC_* environment variables win (merged and validated by the kernel). */
export const contentSyncOptionsSchema = z.strictObject({
  /** Bytes per upload chunk of a push (CONTENT_SYNC_CHUNK_BYTES), default 1 MiB. */
  chunkBytes: z
    .number()
    .int()
    .min(256)
    .max(64 * MiB)
    .default(MiB),
  /** Largest package a transfer carries, either way (CONTENT_SYNC_MAX_TRANSFER_BYTES), default 2 GiB. */
  maxTransferBytes: z
    .number()
    .int()
    .min(1024)
    .max(2 ** 50)
    .default(2 * 1024 * MiB),
  /** Open transfers (uploads received and packages served) per tenant (CONTENT_SYNC_MAX_OPEN_TRANSFERS), default 20. */
  maxOpenTransfers: z.number().int().min(1).max(10_000).default(20),
  /** Timeout of one request to the remote, and the idle timeout of a streamed body (CONTENT_SYNC_REQUEST_TIMEOUT_MS), default 30 s. */
  requestTimeoutMs: z.number().int().min(100).max(3_600_000).default(30_000),
  /** Retries of a request that failed on the network or timed out (CONTENT_SYNC_RETRIES), default 3. */
  retries: z.number().int().min(0).max(20).default(3),
  /** Pause before a retry (doubled each time), default 250 ms. */
  retryDelayMs: z.number().int().min(0).max(60_000).default(250),
  /** How long a transfer is kept after it started, default 24 h. */
  transferTtlMs: z
    .number()
    .int()
    .min(1000)
    .default(24 * 3600 * 1000),
  /** How often expired transfers are pruned, default 1 h. */
  pruneIntervalMs: z
    .number()
    .int()
    .min(1000)
    .default(3600 * 1000),
  /** How often a pushed apply running as a job on the remote is polled, default 1 s. */
  remoteJobPollMs: z.number().int().min(10).default(1000),
  /** How long a push waits for the remote's job, default 1 h. */
  remoteJobTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .default(3600 * 1000),
});
export type ContentSyncOptions = z.output<typeof contentSyncOptionsSchema>;
