import type { Logger } from './logger.js';

/** One step of the shutdown: run it, log a failure, and move on after limitMs if it hangs. */
export type ShutdownStep = (name: string, fn: () => Promise<unknown> | unknown) => Promise<void>;

/**
 * Bounded shutdown steps: a stuck dependency (a hung job, an unreachable Redis) cannot keep the
 * process alive; a step that fails or runs over is logged and the next one runs.
 */
export function boundedShutdownStep(logger: Logger, limitMs: number): ShutdownStep {
  return async (name, fn) => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        logger.error({ step: name, ms: limitMs }, 'shutdown step did not finish in time; moving on');
        resolve();
      }, limitMs);
    });
    try {
      await Promise.race([Promise.resolve().then(fn), timedOut]);
    } catch (err) {
      logger.error({ err, step: name }, 'shutdown step failed');
    } finally {
      clearTimeout(timer);
    }
  };
}
