import { randomUUID } from 'node:crypto';
import type { BoundedMemoryStore } from '../../kernel/cache/bounded-memory-store.js';
import { stringBytes } from '../../kernel/cache/bounded-memory-store.js';
import { type CacheService, serialiseEnvelope, matchesIfNoneMatch, tagOf, type Logger, type ReadRouting } from '../../kernel/sdk.js';

const CATEGORY = 'collections';
const LIST_TTL_SECONDS = 300;
const TOKEN_TTL_SECONDS = 7 * 24 * 3600;
/** Tenants whose Redis write budget this instance tracks (the oldest window is forgotten beyond). */
const BUDGET_TENANTS = 10_000;

/** A list answer: 304 (the caller's If-None-Match is current), or the serialised envelope to send as is. */
export type ListAnswer =
  | { notModified: true; etag: string; cached: true }
  | {
      notModified: false;
      /** The `{"success":true,"data":...}` JSON text. */
      body: string;
      /** Absent when the cache was unavailable (the ETag middleware then hashes the body). */
      etag?: string;
      cached: boolean;
      /** The loaded data when this answer read the database: an in-process caller takes it without parsing `body`. */
      value?: unknown;
    };

/** An answer read from the database and not stored: its body is serialised only when something reads it (HTTP). */
export function freshAnswer(value: unknown): ListAnswer {
  let body: string | undefined;
  return {
    notModified: false,
    cached: false,
    value,
    get body() {
      return (body ??= serialiseEnvelope(value));
    },
  };
}

/**
 * The collection list cache. Each collection has a version token in the shared cache; a list is stored,
 * as the serialised envelope the route sends, under `list:<collection>:<token>:<query hash>`. A write
 * replaces the token (so no later read can reach a list made before it, even one a slow reader stores
 * after the write) and then deletes every `list:<collection>:` key by prefix, on every instance when the
 * cache is Redis. A reader stores its result only if the token did not change while it queried.
 *
 * The ETag of a list is a hash of the tenant, the token and the query hash (which carries the query,
 * the caller's visibility and the schema version): known before anything is loaded, so a matching
 * If-None-Match is answered 304 without reading the list, cached or not, and a list's tag changes with
 * every write to its collection. Cache failures fall back to the database (and to the body's hash).
 */
export class ListCache {
  /**
   * Serialised lists of this instance, under the same keys as the shared cache (the version token is part
   * of the key, so an entry here can never outlive a write); bounded in bytes, per tenant too, and saves
   * a round trip to the shared store and its parsing on every hit.
   */
  private readonly local: BoundedMemoryStore<string>;
  /** Redis: bytes of list bodies this instance wrote per tenant in the current list lifetime. */
  private readonly written = new Map<string, { since: number; bytes: number }>();

  constructor(
    private readonly cache: CacheService,
    private readonly logger: Logger,
    /** false (CMS_CONTENT_LIST_CACHE=false): every list is loaded and serialised; the ETag middleware hashes it. */
    private readonly enabled = true,
    /** With read replicas: a token carries its write's GTID position; a list is loaded from a replica only once it has it. */
    private readonly routing?: Pick<ReadRouting, 'primaryPosition' | 'readingAtLeast'>,
  ) {
    this.local = cache.localStore<string>((key, body) => stringBytes(key, body), 5000);
  }

  /**
   * With Redis, whether a list of this size may still be written for the tenant: each instance writes at
   * most `redisTenantListBytes` of list bodies per tenant per list lifetime (5 min), and lists expire after
   * that, so one tenant's unique queries hold at most about twice that per instance in Redis. (The memory
   * store bounds itself, per tenant too.) Beyond the budget lists are still served and kept in this
   * instance's bounded layer, not in Redis.
   */
  private withinSharedBudget(tenant: string, bytes: number): boolean {
    const cap = this.cache.limits.redisTenantListBytes;
    if (this.cache.backend !== 'redis' || !cap) return true;
    const now = Date.now();
    let w = this.written.get(tenant);
    if (!w || now - w.since >= LIST_TTL_SECONDS * 1000) {
      this.written.delete(tenant);
      this.written.set(tenant, (w = { since: now, bytes: 0 }));
      if (this.written.size > BUDGET_TENANTS) this.written.delete(this.written.keys().next().value!);
    }
    if (w.bytes + bytes > cap) return false;
    w.bytes += bytes;
    return true;
  }

  private async token(tenant: string, collection: string): Promise<string> {
    const key = `version:${collection}`;
    const known = await this.cache.get<string>(CATEGORY, key, { tenant });
    if (known) return known;
    const fresh = randomUUID();
    await this.cache.set(CATEGORY, key, fresh, { tenant, ttlSeconds: TOKEN_TTL_SECONDS });
    return fresh;
  }

  /**
   * The list of a query (`queryKey`: a hash of everything the answer depends on but the rows): 304 when
   * `ifNoneMatch` names its current tag, else the stored body, else `load()`'s data serialised (and
   * stored).
   */
  async answer(
    tenant: string,
    collection: string,
    queryKey: string,
    ifNoneMatch: string,
    load: () => Promise<unknown>,
    /** Other collections the answer shows (populated relations): a write to one of them changes the tag too. */
    also: readonly string[] = [],
  ): Promise<ListAnswer> {
    let token: string;
    let etag: string;
    const shared = (t: string) => `list:${collection}:${t}:${queryKey}`;
    const tokens = () => Promise.all([collection, ...also].map((name) => this.token(tenant, name))).then((all) => all.join('.'));
    if (!this.enabled) return freshAnswer(await load());
    try {
      token = await tokens();
      load = this.atLeast(token, load);
      etag = tagOf(`${tenant}\n${token}\n${queryKey}`);
      // `*` matches any list, even that of a query the load would refuse: it takes the ordinary path.
      if (ifNoneMatch && ifNoneMatch.trim() !== '*' && matchesIfNoneMatch(ifNoneMatch, etag))
        return { notModified: true, etag, cached: true };
      const near = this.local.get(`${tenant}|${shared(token)}`);
      if (near !== undefined) return { notModified: false, body: near, etag, cached: true };
      const hit = await this.cache.get<string>(CATEGORY, shared(token), { tenant });
      if (typeof hit === 'string') {
        this.local.set(`${tenant}|${shared(token)}`, hit, LIST_TTL_SECONDS * 1000);
        return { notModified: false, body: hit, etag, cached: true };
      }
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; reading the database');
      return freshAnswer(await load());
    }
    const value = await load();
    const body = serialiseEnvelope(value);
    try {
      if ((await tokens()) === token) {
        if (this.withinSharedBudget(tenant, body.length))
          await this.cache.set(CATEGORY, shared(token), body, { tenant, ttlSeconds: LIST_TTL_SECONDS });
        this.local.set(`${tenant}|${shared(token)}`, body, LIST_TTL_SECONDS * 1000);
      }
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; list not stored');
    }
    return { notModified: false, body, etag, cached: false, value };
  }

  /**
   * The number of entries a list's WHERE matches, counted once per version of the collection (and of the collections
   * its WHERE reads, `also`) and kept beside its lists (`countKey`: a hash of everything the count depends on, not the
   * page, limit, cursor, fields or populate): every page of a walk and every later list of the same WHERE answers it
   * without counting again until the next write (a million rows cost a count of a million index entries). Invalidated
   * with the lists (same key prefix, same token); without the cache, or when it fails, `count()` runs.
   */
  async total(
    tenant: string,
    collection: string,
    countKey: string,
    count: () => Promise<number>,
    also: readonly string[] = [],
  ): Promise<number> {
    if (!this.enabled) return count();
    const tokens = () => Promise.all([collection, ...also].map((name) => this.token(tenant, name))).then((all) => all.join('.'));
    let key: string;
    try {
      const token = await tokens();
      count = this.atLeast(token, count);
      key = `list:${collection}:${token}:count:${countKey}`;
      const near = this.local.get(`${tenant}|${key}`) ?? (await this.cache.get<string>(CATEGORY, key, { tenant }));
      if (typeof near === 'string' && /^\d+$/.test(near)) return Number(near);
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; counting');
      return count();
    }
    const n = await count();
    try {
      if (`list:${collection}:${await tokens()}:count:${countKey}` === key) {
        await this.cache.set(CATEGORY, key, String(n), { tenant, ttlSeconds: LIST_TTL_SECONDS });
        this.local.set(`${tenant}|${key}`, String(n), LIST_TTL_SECONDS * 1000);
      }
    } catch (err) {
      this.logger.warn({ err }, 'collection list cache unavailable; total not stored');
    }
    return n;
  }

  /**
   * With read replicas, a loader that reads the primary until every replica has the writes behind the tokens
   * (`<uuid>@<GTID position>`): a list stored under a token then always shows its write, whoever loaded it.
   */
  private atLeast<T>(tokens: string, load: () => Promise<T>): () => Promise<T> {
    const positions = tokens.split('.').flatMap((t) => t.split('@').slice(1));
    return positions.length && this.routing ? () => this.routing!.readingAtLeast(positions, load) : load;
  }

  /** After a committed write: a new token (with the primary's position then, with replicas), then every cached variant of the collection's lists goes. */
  async invalidate(tenant: string, collection: string): Promise<void> {
    const position = await this.routing?.primaryPosition().catch(() => null);
    const token = position ? `${randomUUID()}@${position}` : randomUUID();
    await this.cache.set(CATEGORY, `version:${collection}`, token, { tenant, ttlSeconds: TOKEN_TTL_SECONDS });
    await this.cache.invalidatePrefix(CATEGORY, `list:${collection}:`, { tenant });
  }
}
