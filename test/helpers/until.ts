import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` every 25 ms until it answers something (errors count as not yet), or fails naming `what`. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}
