import type { Kernel } from './index.js';

/**
 * SIGTERM and SIGINT close a started (or starting) kernel once: the first signal is logged and starts the close;
 * if the close has not finished after `forceAfterMs`, the process exits with 1. Returns whether a signal came
 * (a boot that fails after one is a stop, not a failure). Used by `npm start` and `npm run update-server`.
 */
export function closeOnSignals(kernel: Pick<Kernel, 'logger' | 'close'>, forceAfterMs: number): () => boolean {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    kernel.logger.info({ signal }, 'signal received');
    const force = setTimeout(() => {
      process.stderr.write('Shutdown did not finish in time; exiting\n');
      process.exit(1);
    }, forceAfterMs);
    force.unref();
    void kernel.close().then(() => {
      process.exitCode = 0;
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return () => stopping;
}
