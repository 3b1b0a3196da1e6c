import { randomUUID } from 'node:crypto';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import type { Logger } from '../../kernel/logger.js';

const CATEGORY = 'collections';
const LIST_TTL_SECONDS = 300;
const TOKEN_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The collection list cache. Each collection has a version token in the shared cache; a list is stored
 * under `list:<collection>:<token>:<query hash>`. A write replaces the token (so no later read can reach
 * a list made before it, even one a slow reader stores after the write) and then deletes every
 * `list:<collection>:` key by prefix, on every instance when the cache is Redis. A reader stores its
 * result only if the token did not change while it queried. Cache failures fall back to the database.
 */
export class ListCache {
  /**
   * Parsed lists of this instance, under the same keys as the shared cache (the version token is part of
   * the key, so an entry here can never outlive a write); saves parsing the list JSON on every hit.
   */
  private readonly local = new Map<string, { value: unknown; expires: number }>();

  constructor(
    private readonly cache: CacheService,
    private readonly logger: Logger,
    private readonly localEntries = 500,
  ) {}

  private remember(key: string, value: unknown): void {
    if (this.local.size >= this.localEntries) this.local.delete(this.local.keys().next().value!);
    this.local.set(key, { value, expires: Date.now() + LIST_TTL_SECONDS * 1000 });
  }

  private async token(tenant: string, collection: string): Promise<string> {
    const key = `version:${collection}`;
    const known = await this.cache.get<string>(CATEGORY, key, { tenant });
    if (known) return known;
    const fresh = randomUUID();
    await this.cache.set(CATEGORY, key, fresh, { tenant, ttlSeconds: TOKEN_TTL_SECONDS });
    return fresh;
  }

  async getOrLoad<T>(tenant: string, collection: string, queryKey: string, load: () => Promise<T>): Promise<{ value: T; cached: boolean }> {
    let token: string;
    try {
      token = await this.token(tenant, collection);
      const key = `${tenant}|list:${collection}:${token}:${queryKey}`;
      const near = this.local.get(key);
      if (near && near.expires > Date.now()) return { value: near.value as T, cached: true };
      const hit = await this.cache.get<T>(CATEGORY, `list:${collection}:${token}:${queryKey}`, { tenant });
      if (hit !== undefined) {
        this.remember(key, hit);
        return { value: hit, cached: true };
      }
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; reading the database');
      return { value: await load(), cached: false };
    }
    const value = await load();
    try {
      if ((await this.cache.get<string>(CATEGORY, `version:${collection}`, { tenant })) === token) {
        await this.cache.set(CATEGORY, `list:${collection}:${token}:${queryKey}`, value, { tenant, ttlSeconds: LIST_TTL_SECONDS });
        this.remember(`${tenant}|list:${collection}:${token}:${queryKey}`, value);
      }
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; list not stored');
    }
    return { value, cached: false };
  }

  /** After a committed write: a new token, then every cached variant of the collection's lists goes. */
  async invalidate(tenant: string, collection: string): Promise<void> {
    await this.cache.set(CATEGORY, `version:${collection}`, randomUUID(), { tenant, ttlSeconds: TOKEN_TTL_SECONDS });
    await this.cache.invalidatePrefix(CATEGORY, `list:${collection}:`, { tenant });
  }
}
