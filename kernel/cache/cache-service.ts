import Keyv from 'keyv';
import type { RedisClientType } from 'redis';
import type { Logger } from '../logger.js';
import { closeRedis } from '../redis.js';

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

export interface CacheStats {
  backend: 'memory' | 'redis';
  overall: CacheFigures;
  byCategory: Record<string, CacheFigures>;
  byTenant: Record<string, CacheFigures>;
  timestamp: number;
}

export interface CacheOptions {
  tenant?: string;
  ttlSeconds?: number;
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const zero = (): CacheCounters => ({ hits: 0, misses: 0, sets: 0, deletes: 0 });

/**
 * The cache: Keyv in memory by default, Redis when REDIS_URL is set. Keys are namespaced as
 * `<category>:<tenant>:<key>`; hits, misses, sets and deletes are counted per category and per
 * tenant (counters are this instance's), and size is the number of live keys, counted on demand.
 * invalidatePrefix clears every key of a category and tenant that starts with a prefix, on every
 * instance (the keys live in the shared store).
 */
export class CacheService {
  private readonly byCategory = new Map<string, CacheCounters>();
  private readonly byTenant = new Map<string, CacheCounters>();

  private constructor(
    private readonly keyv: Keyv,
    readonly backend: 'memory' | 'redis',
    private readonly defaultTtlSeconds: number,
    private readonly redisClient: RedisClientType | null = null,
  ) {}

  static async create(options: { redisUrl?: string; prefix: string; defaultTtlSeconds: number; logger: Logger }): Promise<CacheService> {
    if (!options.redisUrl) {
      return new CacheService(new Keyv({ store: new Map(), namespace: `${options.prefix}-cache` }), 'memory', options.defaultTtlSeconds);
    }
    // @keyv/redis (and node-redis under it) only loads with REDIS_URL set.
    const { default: KeyvRedis } = await import('@keyv/redis');
    const store = new KeyvRedis(
      {
        url: options.redisUrl,
        disableOfflineQueue: true,
        socket: { connectTimeout: 5000, reconnectStrategy: (n: number) => Math.min(100 * (n + 1), 2000) },
      },
      { namespace: `${options.prefix}-cache`, keyPrefixSeparator: ':' },
    );
    const keyv = new Keyv({ store, namespace: `${options.prefix}-cache`, useKeyPrefix: false });
    keyv.on('error', (err) => options.logger.error({ err }, 'cache error'));
    const service = new CacheService(keyv, 'redis', options.defaultTtlSeconds, store.client as RedisClientType);
    await keyv.get('__connect__');
    return service;
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
    const value = await this.keyv.get<T>(this.fullKey(category, tenant, key));
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
    return {
      backend: this.backend,
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
