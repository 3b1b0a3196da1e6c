import { createClient, type RedisClientType } from 'redis';

/**
 * A node-redis client that fails fast while Redis is unreachable: no offline queue (a command during
 * an outage rejects at once instead of hanging the request), a connect timeout, capped reconnect
 * back-off. Callers decide how to degrade (the rate limiter falls back to memory, the cache misses).
 */
export function createRedisClient(url: string): RedisClientType {
  return createClient({
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
