export interface BoundedStoreOptions<V> {
  /** Most bytes the entries may count together (see sizeOf). */
  maxBytes: number;
  /** Most entries. */
  maxEntries: number;
  /**
   * Share (0-1] of maxBytes and maxEntries a tenant may hold before its own inserts evict its own
   * entries rather than the least recently used of all: a tenant flooding unique keys stays within
   * its share of a full store, while a tenant alone may use all of it.
   */
  tenantShare: number;
  /** The tenant of a key. */
  tenantOf(key: string): string;
  /** Bytes counted for an entry. */
  sizeOf(key: string, value: V): number;
  /** While room is needed, expired entries are swept at most this often (ms; default 1000). */
  sweepWhenFullMs?: number;
  /** Called with the number of entries evicted to make room (not counting expired ones). */
  onEvict?(count: number): void;
}

interface Meta {
  bytes: number;
  /** Epoch ms; Infinity without a TTL. */
  expires: number;
  tenant: TenantUsage;
}

interface TenantUsage {
  name: string;
  bytes: number;
  /** This tenant's keys, least recently used first. */
  keys: Map<string, Meta>;
}

/** Sweeps for expired entries at most this often while room is needed, and at least this often between sets. */
const SWEEP_WHEN_FULL_MS = 1000;
const SWEEP_ANYWAY_MS = 30_000;

/** Bytes counted for a string: two per UTF-16 code unit (an upper bound of what V8 holds) plus bookkeeping. */
export const stringBytes = (...parts: string[]) => parts.reduce((n, s) => n + 2 * s.length, 96);

/**
 * An in-memory LRU store bounded in bytes and entries, with per-tenant shares and expiry, usable as
 * Keyv's store: it is a `Map` (Keyv iterates a Map store for prefix invalidation and counts), its
 * iteration yields the stored values, and `set(key, value, ttlMs)` takes Keyv's TTL. Reads refresh an
 * entry's recency; an expired entry is dropped when read, and expired entries are swept when room is
 * needed (at most once a second) and every 30 s of writes. A value larger than a tenant's share is not
 * kept.
 */
export class BoundedMemoryStore<V = string> extends Map<string, V> {
  private readonly meta = new Map<string, Meta>();
  private readonly tenants = new Map<string, TenantUsage>();
  private bytesUsed = 0;
  private lastSweep = Date.now();
  private evictedCount = 0;

  constructor(private readonly options: BoundedStoreOptions<V>) {
    super();
    if (!(options.maxBytes > 0) || !(options.maxEntries > 0))
      throw new RangeError('BoundedMemoryStore needs positive maxBytes and maxEntries');
    if (!(options.tenantShare > 0 && options.tenantShare <= 1)) throw new RangeError('tenantShare must be in (0, 1]');
  }

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  get maxEntries(): number {
    return this.options.maxEntries;
  }

  /** Bytes counted now. */
  get bytes(): number {
    return this.bytesUsed;
  }

  /** Entries evicted to make room since the store was made. */
  get evictions(): number {
    return this.evictedCount;
  }

  /** Bytes counted for one tenant. */
  tenantBytes(tenant: string): number {
    return this.tenants.get(tenant)?.bytes ?? 0;
  }

  override get(key: string): V | undefined {
    const m = this.meta.get(key);
    if (!m) return undefined;
    if (m.expires <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    const value = super.get(key) as V;
    // Most recently used: to the end of both orders.
    super.delete(key);
    super.set(key, value);
    m.tenant.keys.delete(key);
    m.tenant.keys.set(key, m);
    return value;
  }

  override has(key: string): boolean {
    const m = this.meta.get(key);
    if (!m) return false;
    if (m.expires > Date.now()) return true;
    this.delete(key);
    return false;
  }

  override set(key: string, value: V, ttlMs?: number): this {
    // Map's constructor never calls set here (no initial entries), so the fields exist.
    this.delete(key);
    const bytes = this.options.sizeOf(key, value);
    const { maxBytes, maxEntries, tenantShare } = this.options;
    const shareBytes = maxBytes * tenantShare;
    const shareEntries = Math.max(1, Math.floor(maxEntries * tenantShare));
    if (bytes > shareBytes) return this;
    const name = this.options.tenantOf(key);
    let tenant = this.tenants.get(name);
    if (!tenant) this.tenants.set(name, (tenant = { name, bytes: 0, keys: new Map() }));
    const now = Date.now();
    const full = () => this.bytesUsed + bytes > maxBytes || this.meta.size + 1 > maxEntries;
    const sweepWhenFull = this.options.sweepWhenFullMs ?? SWEEP_WHEN_FULL_MS;
    if (now - this.lastSweep >= SWEEP_ANYWAY_MS || (full() && now - this.lastSweep >= sweepWhenFull)) this.sweep(now);
    let evicted = 0;
    while (full()) {
      // Over its share, a tenant makes room from its own entries; within it, from everyone's oldest.
      const overShare = tenant.bytes + bytes > shareBytes || tenant.keys.size + 1 > shareEntries;
      const victim = overShare && tenant.keys.size ? tenant.keys.keys().next().value! : super.keys().next().value!;
      this.delete(victim);
      evicted++;
    }
    if (evicted) {
      this.evictedCount += evicted;
      this.options.onEvict?.(evicted);
    }
    const m: Meta = { bytes, expires: ttlMs && ttlMs > 0 ? now + ttlMs : Infinity, tenant };
    super.set(key, value);
    this.meta.set(key, m);
    tenant.keys.set(key, m);
    tenant.bytes += bytes;
    this.bytesUsed += bytes;
    return this;
  }

  override delete(key: string): boolean {
    const m = this.meta.get(key);
    if (!m) return super.delete(key);
    this.meta.delete(key);
    m.tenant.keys.delete(key);
    m.tenant.bytes -= m.bytes;
    this.bytesUsed -= m.bytes;
    if (!m.tenant.keys.size) this.tenants.delete(m.tenant.name);
    return super.delete(key);
  }

  override clear(): void {
    super.clear();
    this.meta.clear();
    this.tenants.clear();
    this.bytesUsed = 0;
  }

  /** Drops every expired entry now; returns how many. */
  sweep(now = Date.now()): number {
    this.lastSweep = now;
    let dropped = 0;
    for (const [key, m] of this.meta)
      if (m.expires <= now) {
        this.delete(key);
        dropped++;
      }
    return dropped;
  }
}
