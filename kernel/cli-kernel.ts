/**
 * What the kernel's own commands (kernel/cli.ts, cli-migrate.ts, cli-doctor.ts) share: the kernel they work on
 * (the installation's configuration, on a free 127.0.0.1 port, job runner off, logs to standard error so that
 * standard output carries only the answer) and the way they print.
 */
import { BootError } from './errors.js';
import { createKernel, type Kernel } from './index.js';
import { createLogger } from './logger.js';

export function cliKernel(): Kernel {
  return createKernel({
    configOptions: { overrides: { port: 0, host: '127.0.0.1', logLevel: 'warn', jobs: { enabled: false } } },
    logger: createLogger('warn', process.stderr),
  });
}

/** What an error says to an operator: a boot error's message is already in words; otherwise the message. */
export function inWords(err: unknown): string {
  if (err instanceof BootError) return err.message;
  const e = err as { message?: string; cause?: { message?: string } };
  const cause = e?.cause?.message && !e.message?.includes(e.cause.message) ? ` (${e.cause.message})` : '';
  return `${e?.message ?? String(err)}${cause}`;
}

export const printer =
  (json: boolean) =>
  (data: unknown, text: string): void =>
    void process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : text);
