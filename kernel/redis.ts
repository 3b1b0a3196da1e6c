import { createRequire } from 'node:module';
import type { RedisClientType } from 'redis';

const require = createRequire(import.meta.url);
/** node-redis (about 10 MB resident) is loaded only when a client is made, i.e. when REDIS_URL is set. */
const redisModule = (): typeof import('redis') => require('redis') as typeof import('redis');

/**
 * A node-redis client that fails fast while Redis is unreachable: no offline queue (a command during
 * an outage rejects at once instead of hanging the request), a connect timeout, capped reconnect
 * back-off. Callers decide how to degrade (the rate limiter falls back to memory, the cache misses).
 */
export function createRedisClient(url: string): RedisClientType {
  return redisModule().createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 2000) },
  }) as RedisClientType;
}

/** Closes gracefully when Redis answers, and drops the socket when it does not (never hangs). */
export async function closeRedis(client: RedisClientType | null, timeoutMs = 2000): Promise<void> {
  if (!client?.isOpen) return;
  if (client.isReady) {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([
      client.close().then(
        () => 'closed' as const,
        () => 'failed' as const,
      ),
      timedOut,
    ]);
    clearTimeout(timer);
    if (outcome === 'closed') return;
  }
  client.destroy();
}
