import { createRequire } from 'node:module';
import type { RedisClientType, RedisSentinelType } from 'redis';

const require = createRequire(import.meta.url);
/** node-redis (about 10 MB resident) is loaded only when a client is made, i.e. when Redis is configured. */
const redisModule = (): typeof import('redis') => require('redis') as typeof import('redis');

/** A connection to the shared Redis: one client (REDIS_URL) or a Sentinel-managed master (REDIS_SENTINELS). */
export type RedisConnection = RedisClientType | RedisSentinelType;

/** Where Redis is: the `redis` section of the config. */
export interface RedisTarget {
  url?: string;
  sentinels?: string[];
  sentinelMaster?: string;
  password?: string;
  sentinelPassword?: string;
}

/** Whether the config names a Redis (a URL or sentinels). */
export const redisConfigured = (target: RedisTarget): boolean => Boolean(target.url || target.sentinels?.length);

/**
 * How long a command through Sentinel may wait for a master before it fails: node-redis's sentinel
 * client holds commands while it looks for the master (unbounded), where a plain client fails at once.
 */
export const SENTINEL_COMMAND_DEADLINE_MS = 1000;

const reconnectStrategy = (retries: number) => Math.min(100 * (retries + 1), 2000);

/**
 * A node-redis client that fails fast while Redis is unreachable: no offline queue (a command during
 * an outage rejects at once instead of hanging the request), a connect timeout, capped reconnect
 * back-off. Callers decide how to degrade (the rate limiter falls back to memory, the cache misses).
 */
export function createRedisClient(url: string): RedisClientType {
  return redisModule().createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy },
  }) as RedisClientType;
}

export const isSentinel = (c: RedisConnection): c is RedisSentinelType => typeof (c as RedisSentinelType).getMasterNode === 'function';

/** `host:port` (IPv6 in brackets) -> a node. */
function parseNode(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(':');
  return { host: text.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(at + 1)) };
}

/**
 * The Sentinel-managed master (node-redis's createSentinel): it asks the sentinels for the master,
 * follows failovers (the sentinels' pub/sub and a periodic scan) and moves pub/sub subscriptions to
 * the new master. Commands fail like a plain client's: at once while no master connection is up, and
 * after SENTINEL_COMMAND_DEADLINE_MS when the library is still looking for one; a command that timed
 * out is never sent later (it could undo a newer write).
 */
export function createRedisSentinel(target: RedisTarget, options: { retry?: boolean } = {}): RedisSentinelType {
  const sentinel = redisModule().createSentinel({
    name: target.sentinelMaster!,
    sentinelRootNodes: (target.sentinels ?? []).map(parseNode),
    scanInterval: 5000,
    nodeClientOptions: {
      ...(target.password ? { password: target.password } : {}),
      disableOfflineQueue: true,
      // Without retries (a one-off check): a refused password fails the connect instead of retrying forever.
      socket: { connectTimeout: 5000, reconnectStrategy: options.retry === false ? false : reconnectStrategy },
    },
    sentinelClientOptions: {
      ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}),
      socket: { connectTimeout: 5000 },
    },
  }) as unknown as RedisSentinelType;
  boundCommands(sentinel);
  return sentinel;
}

type Execute = (readonly: boolean | undefined, fn: (client: unknown) => Promise<unknown>) => Promise<unknown>;

/** Every command, transaction and pipeline of the sentinel object goes through its `_execute`: bound there. */
function boundCommands(sentinel: RedisSentinelType): void {
  const self = (sentinel as unknown as { _self: { _execute: Execute } })._self;
  const execute = self._execute.bind(self);
  self._execute = (readonly, fn) => {
    let late = !sentinel.getMasterNode();
    const run = execute(readonly, (client) => (late ? Promise.reject(new Error('Redis master unavailable (Sentinel)')) : fn(client)));
    if (late) {
      // Still handed to the library: it starts looking for the master; the command itself is dropped.
      run.catch(() => undefined);
      return Promise.reject(new Error('Redis master unavailable (Sentinel: failover or outage)'));
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`Redis master did not answer within ${SENTINEL_COMMAND_DEADLINE_MS} ms (Sentinel)`));
      }, SENTINEL_COMMAND_DEADLINE_MS);
    });
    run.catch(() => undefined);
    return Promise.race([run, deadline]).finally(() => clearTimeout(timer));
  };
}

/** A client for REDIS_URL, or the Sentinel-managed master for REDIS_SENTINELS. */
export function createRedisConnection(target: RedisTarget): RedisConnection {
  return target.sentinels?.length ? createRedisSentinel(target) : createRedisClient(target.url!);
}

/** Whether commands can reach the master now. */
export const redisUp = (c: RedisConnection): boolean => (isSentinel(c) ? c.isReady && Boolean(c.getMasterNode()) : c.isReady);

/**
 * Calls `lost` when the connection to the master breaks (for Sentinel also: the master changed) and
 * `back` once commands reach a master again. A plain client reports this itself ('reconnecting',
 * 'ready'); a sentinel object is watched: its client errors and topology changes, then a PING.
 */
export function watchRedis(c: RedisConnection, on: { lost: () => void; back: () => void }): void {
  if (!isSentinel(c)) {
    let lost = false;
    const lose = () => {
      if (!lost) on.lost();
      lost = true;
    };
    c.on('reconnecting', lose);
    c.on('end', lose);
    c.on('ready', () => {
      if (!lost) return;
      lost = false;
      on.back();
    });
    return;
  }
  let lost = false;
  const probe = async () => {
    while (lost && c.isOpen) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!redisUp(c)) continue;
      if (
        await c.ping().then(
          () => true,
          () => false,
        )
      ) {
        lost = false;
        on.back();
      }
    }
  };
  const lose = () => {
    if (lost || !c.isReady) return;
    lost = true;
    on.lost();
    void probe();
  };
  c.on('error', lose);
  c.on('client-error', (event: { type?: string }) => {
    if (event?.type !== 'SENTINEL') lose();
  });
  c.on('topology-change', (event: { type?: string }) => {
    if (event?.type === 'MASTER_CHANGE') lose();
  });
}

/** Closes gracefully when Redis answers, and drops the connection when it does not (never hangs). */
export async function closeRedis(client: RedisConnection | null, timeoutMs = 2000): Promise<void> {
  if (!client?.isOpen) return;
  if (isSentinel(client) ? redisUp(client) : client.isReady) {
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
  await client.destroy();
}
