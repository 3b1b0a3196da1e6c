import { z, type ZodType } from 'zod';
import type { Logger } from './logger.js';
import type { SystemJob, SystemJobContext } from './registries/contracts.js';

export interface EveryOptions<R extends object | void> {
  /** Names the task in log lines, and is the system job's name when `job` is given (`purge-expired-tokens`). */
  name: string;
  /** The interval between runs (a run still going when the next is due is not doubled). */
  everyMs: number;
  /** The first run this long after boot (default: `everyMs`). */
  firstAfterMs?: number;
  /**
   * One round of the work. Errors are logged (`<name> failed`), never thrown into the timer. When the task
   * is also a system job, what it returns is the job's result, and `job` carries the run's context.
   */
  run(job?: SystemJobContext): Promise<R>;
  /** Also listed as a system job (POST /api/system-jobs) that runs the same `run` on demand. */
  job?: { description: string; params?: ZodType<Record<string, unknown>> };
}

/**
 * A plugin option holding the `everyMs` of a recurring task: whole milliseconds from 10 up to the longest
 * delay a Node timer takes (2^31 - 1 ms, about 24.8 days), `defaultMs` when absent.
 */
export function everyMsOption(defaultMs: number) {
  return z
    .number()
    .int()
    .min(10)
    .max(2 ** 31 - 1)
    .default(defaultMs);
}

/** The handle `every` returns. */
export interface Recurring {
  /** Runs one round now, unless one is running (then it waits for that one). Never throws. */
  runNow(): Promise<void>;
  /** Stops the timer and waits for a round in progress (done by the plugin's onClose with `ctx.every`). */
  close(): Promise<void>;
}

/**
 * Recurring work: one round every `everyMs`, never two at once, on an unref'd timer (it does not keep the
 * process alive), stopped with the plugin, each failure logged with the task's name.
 */
export function every<R extends object | void>(logger: Pick<Logger, 'warn'>, options: EveryOptions<R>): Recurring {
  let running: Promise<void> | null = null;
  let closed = false;
  const runNow = (): Promise<void> =>
    (running ??= Promise.resolve()
      .then(() => options.run())
      .then(
        () => undefined,
        (err) => logger.warn({ err, task: options.name }, `${options.name} failed`),
      )
      .finally(() => {
        running = null;
      }));
  const tick = () => {
    if (!closed) void runNow();
  };
  const first = options.firstAfterMs !== undefined ? setTimeout(tick, options.firstAfterMs) : null;
  const timer = setInterval(tick, options.everyMs);
  first?.unref();
  timer.unref();
  return {
    runNow,
    async close() {
      closed = true;
      if (first) clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

/** The system job that runs a recurring task on demand (registered by `ctx.every` when `job` is given). */
export function recurringJob<R extends object | void>(options: EveryOptions<R>): SystemJob {
  const job = options.job!;
  return {
    name: options.name,
    description: job.description,
    ...(job.params ? { params: job.params } : {}),
    handler: async (context) => ((await options.run(context)) ?? {}) as object,
  };
}
