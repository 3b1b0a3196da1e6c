import Keyv from 'keyv';
import type { Logger } from '../logger.js';
import { closeRedis, createRedisSentinel, redisConfigured, watchRedis, type RedisConnection, type RedisTarget } from '../redis.js';
import { BoundedMemoryStore, stringBytes } from './bounded-memory-store.js';

export interface CacheCounters {
  hits: number;
  misses: number;
  sets: number;
  deletes: number;
}

export interface CacheFigures extends CacheCounters {
  hitRate: number;
  size: number;
  totalOperations: number;
}

/** Bytes and entries of a bounded in-memory store against its bounds. */
export interface MemoryFigures {
  bytes: number;
  maxBytes: number;
  entries: number;
  maxEntries: number;
  tenantSharePercent: number;
  /** Entries evicted to make room since the start. */
  evictions: number;
}

export interface CacheStats {
  backend: 'memory' | 'redis';
  /** The memory backend's store (absent with Redis, whose bound is its own maxmemory). */
  memory?: MemoryFigures;
  /** The in-process layers in front of the store (e.g. serialised list bodies), summed. */
  local: MemoryFigures;
  overall: CacheFigures;
  byCategory: Record<string, CacheFigures>;
  byTenant: Record<string, CacheFigures>;
  timestamp: number;
}

export interface CacheOptions {
  tenant?: string;
  ttlSeconds?: number;
}

/** Bounds of the in-memory store (memory backend) and of the in-process layers (either backend). */
export interface CacheLimits {
  maxBytes: number;
  maxEntries: number;
  /** (0, 1]: see BoundedStoreOptions.tenantShare. */
  tenantShare: number;
  /** Per in-process layer (localStore). */
  localMaxBytes: number;
  /**
   * Redis backend: bytes of list bodies one instance may write for one tenant per list lifetime (0: no
   * cap), so one tenant's unique queries cannot fill Redis (see ListCache).
   */
  redisTenantListBytes: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_CACHE_LIMITS: CacheLimits = {
  maxBytes: 64 * MiB,
  maxEntries: 100_000,
  tenantShare: 0.25,
  localMaxBytes: 16 * MiB,
  redisTenantListBytes: 32 * MiB,
};

export function limitsFromConfig(c: {
  memoryMaxMb: number;
  memoryMaxEntries: number;
  tenantSharePercent: number;
  localMaxMb: number;
  redisTenantListMb: number;
}): CacheLimits {
  return {
    maxBytes: c.memoryMaxMb * MiB,
    maxEntries: c.memoryMaxEntries,
    tenantShare: c.tenantSharePercent / 100,
    localMaxBytes: c.localMaxMb * MiB,
    redisTenantListBytes: c.redisTenantListMb * MiB,
  };
}

/** The tenant segment of a store key `<namespace>:<category>:<tenant>:<key>`. */
function tenantOfStoreKey(key: string): string {
  const a = key.indexOf(':');
  const b = key.indexOf(':', a + 1);
  const c = key.indexOf(':', b + 1);
  return a < 0 || b < 0 || c < 0 ? '' : key.slice(b + 1, c);
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const zero = (): CacheCounters => ({ hits: 0, misses: 0, sets: 0, deletes: 0 });

/**
 * The cache: Keyv in memory by default, Redis when REDIS_URL (or REDIS_SENTINELS) is set. Keys are namespaced as
 * `<category>:<tenant>:<key>`; hits, misses, sets and deletes are counted per category and per
 * tenant (counters are this instance's), and size is the number of live keys, counted on demand.
 * invalidatePrefix clears every key of a category and tenant that starts with a prefix, on every
 * instance (the keys live in the shared store).
 */
export class CacheService {
  private readonly byCategory = new Map<string, CacheCounters>();
  private readonly byTenant = new Map<string, CacheCounters>();
  private readonly localStores: Array<BoundedMemoryStore<any>> = [];

  private constructor(
    private readonly keyv: Keyv,
    readonly backend: 'memory' | 'redis',
    private readonly defaultTtlSeconds: number,
    readonly limits: CacheLimits,
    private readonly redisClient: RedisConnection | null = null,
    private readonly memoryStore: BoundedMemoryStore | null = null,
  ) {}

  static async create(options: {
    redis?: RedisTarget;
    prefix: string;
    defaultTtlSeconds: number;
    limits?: CacheLimits;
    logger: Logger;
  }): Promise<CacheService> {
    const limits = options.limits ?? DEFAULT_CACHE_LIMITS;
    if (!options.redis || !redisConfigured(options.redis)) {
      // Keyv hands the store serialised strings and a TTL; the store bounds bytes and entries, per tenant too.
      const store = new BoundedMemoryStore({
        maxBytes: limits.maxBytes,
        maxEntries: limits.maxEntries,
        tenantShare: limits.tenantShare,
        tenantOf: tenantOfStoreKey,
        sizeOf: (key, value: string) => stringBytes(key, typeof value === 'string' ? value : ''),
      });
      return new CacheService(
        new Keyv({ store, namespace: `${options.prefix}-cache` }),
        'memory',
        options.defaultTtlSeconds,
        limits,
        null,
        store,
      );
    }
    // @keyv/redis (and node-redis under it) only loads with Redis configured.
    const { default: KeyvRedis } = await import('@keyv/redis');
    const sentinel = options.redis.sentinels?.length ? createRedisSentinel(options.redis) : null;
    const store = new KeyvRedis(
      sentinel ?? {
        url: options.redis.url,
        disableOfflineQueue: true,
        socket: { connectTimeout: 5000, reconnectStrategy: (n: number) => Math.min(100 * (n + 1), 2000) },
      },
      { namespace: `${options.prefix}-cache`, keyPrefixSeparator: ':' },
    );
    const keyv = new Keyv({ store, namespace: `${options.prefix}-cache`, useKeyPrefix: false });
    keyv.on('error', (err) => options.logger.error({ err }, 'cache error'));
    const client = store.client as RedisConnection;
    if (sentinel) sentinel.on('error', (err) => options.logger.error({ err }, 'cache error (Sentinel)'));
    const service = new CacheService(keyv, 'redis', options.defaultTtlSeconds, limits, client);
    service.watchOutages(client, options.logger);
    await keyv.get('__connect__');
    return service;
  }

  /**
   * Writes and deletes during an outage failed (Keyv reports them as errors and the caller goes on), and
   * after a failover the new master may lack the last deletes the old one took, so entries that should
   * have been replaced or dropped may be in Redis: from the loss until every entry is dropped after the
   * return, reads miss (the caller goes to the database) and the cache starts empty rather than serving them.
   */
  private suspect = false;
  private watchOutages(client: RedisConnection, logger: Logger): void {
    watchRedis(client, {
      lost: () => (this.suspect = true),
      back: () => {
        this.dropAll().then(
          (n) => {
            this.suspect = false;
            logger.info({ dropped: n }, 'cache reconnected: entries from before the outage dropped');
          },
          (err) => logger.warn({ err }, 'cache reconnected, but dropping entries from before the outage failed (reads keep missing)'),
        );
      },
    });
  }

  /**
   * A bounded in-process LRU layer for a cache user (e.g. serialised list bodies in front of the shared
   * store): localMaxBytes and the tenant share of the limits, keys `<tenant>|<rest>`. Its figures are
   * part of stats().local. The caller keeps it valid (e.g. keys that carry a version token).
   */
  localStore<V>(sizeOf: (key: string, value: V) => number, maxEntries = 10_000): BoundedMemoryStore<V> {
    const store = new BoundedMemoryStore<V>({
      maxBytes: this.limits.localMaxBytes,
      maxEntries,
      tenantShare: this.limits.tenantShare,
      tenantOf: (key) => key.slice(0, Math.max(0, key.indexOf('|'))),
      sizeOf,
    });
    this.localStores.push(store);
    return store;
  }

  private fullKey(category: string, tenant: string, key: string): string {
    if (!SEGMENT.test(category)) throw new TypeError(`Cache category '${category}' must match ${SEGMENT}`);
    if (!SEGMENT.test(tenant)) throw new TypeError(`Cache tenant '${tenant}' must match ${SEGMENT}`);
    return `${category}:${tenant}:${key}`;
  }

  private count(category: string, tenant: string, field: keyof CacheCounters, n = 1): void {
    for (const [map, name] of [
      [this.byCategory, category],
      [this.byTenant, tenant],
    ] as const) {
      let c = map.get(name);
      if (!c) map.set(name, (c = zero()));
      c[field] += n;
    }
  }

  async get<T>(category: string, key: string, opts: CacheOptions = {}): Promise<T | undefined> {
    const tenant = opts.tenant ?? 'default';
    const value = this.suspect ? undefined : await this.keyv.get<T>(this.fullKey(category, tenant, key));
    this.count(category, tenant, value === undefined ? 'misses' : 'hits');
    return value;
  }

  async set<T>(category: string, key: string, value: T, opts: CacheOptions = {}): Promise<void> {
    const tenant = opts.tenant ?? 'default';
    await this.keyv.set(this.fullKey(category, tenant, key), value, (opts.ttlSeconds ?? this.defaultTtlSeconds) * 1000);
    this.count(category, tenant, 'sets');
  }

  async delete(category: string, key: string, opts: CacheOptions = {}): Promise<boolean> {
    const tenant = opts.tenant ?? 'default';
    const deleted = await this.keyv.delete(this.fullKey(category, tenant, key));
    if (deleted) this.count(category, tenant, 'deletes');
    return deleted;
  }

  /** Returns the cached value, or loads, stores and returns it. */
  async getOrSet<T>(category: string, key: string, load: () => Promise<T>, opts: CacheOptions = {}): Promise<T> {
    const hit = await this.get<T>(category, key, opts);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value !== undefined) await this.set(category, key, value, opts);
    return value;
  }

  private async *keys(): AsyncGenerator<string> {
    if (!this.keyv.iterator) return;
    for await (const [key] of this.keyv.iterator(this.keyv.namespace) as AsyncGenerator<[string, unknown]>) yield key;
  }

  /** Deletes every key of the category and tenant that starts with `prefix` ('' = all of them). */
  async invalidatePrefix(category: string, prefix: string, opts: CacheOptions = {}): Promise<number> {
    const tenant = opts.tenant ?? 'default';
    const start = this.fullKey(category, tenant, prefix);
    const doomed: string[] = [];
    for await (const key of this.keys()) if (key.startsWith(start)) doomed.push(key);
    if (doomed.length) await this.keyv.deleteMany(doomed);
    this.count(category, tenant, 'deletes', doomed.length);
    return doomed.length;
  }

  /**
   * Drops every entry of this cache (its namespace only, in batches) and every in-process layer: after
   * an outage of the shared store, when writes that should have replaced entries may have failed.
   */
  async dropAll(): Promise<number> {
    for (const l of this.localStores) l.clear();
    let batch: string[] = [];
    let dropped = 0;
    for await (const key of this.keys()) {
      batch.push(key);
      if (batch.length >= 500) {
        await this.keyv.deleteMany(batch);
        dropped += batch.length;
        batch = [];
      }
    }
    if (batch.length) await this.keyv.deleteMany(batch);
    return dropped + batch.length;
  }

  /** Starts the hit, miss, set and delete counters of this instance afresh (the stored keys stay). */
  resetCounters(): void {
    this.byCategory.clear();
    this.byTenant.clear();
  }

  async stats(): Promise<CacheStats> {
    const sizeByCategory = new Map<string, number>();
    const sizeByTenant = new Map<string, number>();
    let size = 0;
    for await (const key of this.keys()) {
      const [category, tenant] = key.split(':');
      if (!category || tenant === undefined) continue;
      size++;
      sizeByCategory.set(category, (sizeByCategory.get(category) ?? 0) + 1);
      sizeByTenant.set(tenant, (sizeByTenant.get(tenant) ?? 0) + 1);
    }
    const figures = (c: CacheCounters, s: number): CacheFigures => {
      const lookups = c.hits + c.misses;
      return {
        ...c,
        size: s,
        hitRate: lookups ? Math.round((c.hits / lookups) * 10000) / 10000 : 0,
        totalOperations: lookups + c.sets + c.deletes,
      };
    };
    const table = (map: Map<string, CacheCounters>, sizes: Map<string, number>) => {
      const names = new Set([...map.keys(), ...sizes.keys()]);
      return Object.fromEntries([...names].sort().map((n) => [n, figures(map.get(n) ?? zero(), sizes.get(n) ?? 0)]));
    };
    const total = zero();
    for (const c of this.byCategory.values()) for (const f of Object.keys(total) as Array<keyof CacheCounters>) total[f] += c[f];
    const share = Math.round(this.limits.tenantShare * 100);
    const local: MemoryFigures = { bytes: 0, maxBytes: 0, entries: 0, maxEntries: 0, tenantSharePercent: share, evictions: 0 };
    for (const l of this.localStores) {
      local.bytes += l.bytes;
      local.maxBytes += l.maxBytes;
      local.entries += l.size;
      local.maxEntries += l.maxEntries;
      local.evictions += l.evictions;
    }
    const m = this.memoryStore;
    return {
      backend: this.backend,
      ...(m
        ? {
            memory: {
              bytes: m.bytes,
              maxBytes: this.limits.maxBytes,
              entries: m.size,
              maxEntries: this.limits.maxEntries,
              tenantSharePercent: share,
              evictions: m.evictions,
            },
          }
        : {}),
      local,
      overall: figures(total, size),
      byCategory: table(this.byCategory, sizeByCategory),
      byTenant: table(this.byTenant, sizeByTenant),
      timestamp: Date.now(),
    };
  }

  /** Throws when the store does not answer within a second (used by the health check). */
  async check(): Promise<{ backend: 'memory' | 'redis' }> {
    if (this.redisClient) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('Redis did not answer PING within 1 s')), 1000);
      });
      try {
        await Promise.race([this.redisClient.ping(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    }
    return { backend: this.backend };
  }

  async close(): Promise<void> {
    if (this.redisClient) await closeRedis(this.redisClient);
    else await this.keyv.disconnect();
  }
}
