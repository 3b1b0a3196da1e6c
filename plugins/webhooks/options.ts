import { z } from 'zod';
import { everyMsOption } from '../../kernel/sdk.js';

/** The decided retry schedule (API decisions): about 1 min, 5 min, 30 min, 2 h and 6 h after the failed attempts, then `failed`. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];

export const webhookOptionsSchema = z.object({
  /** How often each instance looks for due deliveries (new events also wake it at once on the instance that enqueued them). */
  pollMs: everyMsOption(1000),
  /** Deliveries one instance sends at once. */
  concurrency: z.number().int().min(1).max(64).default(8),
  /**
   * Deliveries one claim takes at most (their outcomes are then written together): each batch is two writes,
   * whatever its size. Capped so that the batch's sends end inside half the lease even when each takes its
   * whole timeout (dispatcher.ts batchSize: with the defaults, 24).
   */
  batch: z.number().int().min(1).max(256).default(32),
  /** A send's timeout: a receiver that has not answered by then has failed this attempt (decided: 10 s). */
  timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
  /** How long a claimed delivery stays with its instance: longer than a send; a killed instance's deliveries are sent again after it. */
  leaseMs: z.number().int().min(200).max(3_600_000).default(60_000),
  /** The delays before each retry (tests shorten them); the length is the number of retries. */
  retryDelaysMs: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(7 * 24 * 3_600_000),
    )
    .min(0)
    .max(20)
    .default(RETRY_DELAYS_MS),
  /**
   * The clock deliveries go by (ms since the epoch): when they are due, their leases, the next attempt, the
   * log's times and the signature's `t`. Tests only (a simulated clock walks a retry schedule of hours in
   * moments); not settable from the environment or a file. Default: Date.now.
   */
  clock: z
    .custom<() => number>((v) => typeof v === 'function', 'a function answering ms since the epoch')
    .optional()
    .meta({ description: 'Tests only: the clock deliveries go by (default Date.now)' }),
});
export type WebhookOptions = z.infer<typeof webhookOptionsSchema>;
