import {
  type CacheService,
  EVENTS_RESYNC,
  type EventBus,
  ChangeCounter,
  hasPermission,
  type Identity,
  type KeyScope,
  type Logger,
} from '../../kernel/sdk.js';
import { BEARER_CHANGED } from './public.js';

export type BearerKind = 'api-key' | 'website-token';

/**
 * What the caches hold for an API key or website token: who it acts as and with what, read from the
 * database in one go. Never credential material: no token, no hash (the hash is only the cache key).
 */
export interface BearerSnapshot {
  kind: BearerKind;
  id: string;
  userId: string;
  tenantId: string;
  /** The creator's role and that role's permissions (a website token acts as its creator). */
  role: string;
  rolePermissions: string[];
  /**
   * An API key's own permissions, or a narrowed website token's (either acts with those its creator also
   * holds); null for a website token that carries all of its creator's.
   */
  keyPermissions: string[] | null;
  /** An API key's scope (collections and actions), or null. */
  keyScope?: KeyScope[] | null;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/** Which cached bearers an invalidation drops (any field that is set must match). */
export interface BearerMatch {
  hashes?: string[];
  userId?: string;
  tenantId?: string;
  role?: string;
}

const CACHE = 'tokens';
/**
 * The in-process layer: at most LOCAL_MAX snapshots (least recently verified evicted first), each
 * answering on its own for TRUST_MS after it was read from the shared cache or the database; then it is
 * checked against the shared cache again. Invalidation events (BEARER_CHANGED) drop entries at once;
 * the trust window only bounds how long a lost event could leave one stale.
 */
export const LOCAL_MAX = 10_000;
export const TRUST_MS = 5_000;
/** The shared layer's lifetime (also bounds a change made behind the application's back, e.g. in SQL). */
export const SHARED_TTL_SECONDS = 60;
/** Last use is written to the database at most this often per key or token (and instance). */
export const LAST_USED_WRITE_MS = 60_000;

interface LocalEntry {
  snapshot: BearerSnapshot;
  identity: Identity;
  verifiedAt: number;
  lastUsedAt: number;
}

/** The identity a snapshot acts as. */
export function identityOf(s: BearerSnapshot): Identity {
  const creator: Identity = { kind: 'user', userId: s.userId, role: s.role, permissions: s.rolePermissions, tenantId: s.tenantId };
  if (s.kind === 'website-token') {
    if (!s.keyPermissions) return { ...creator, kind: 'websiteToken', meta: { websiteTokenId: s.id } };
    // Narrowed: the creator's role (its rules) with only the token's permissions; an admin's narrowed
    // token is no admin (the admin role bypasses permission checks).
    return {
      ...creator,
      role: s.role === 'admin' ? 'website-token' : s.role,
      permissions: s.keyPermissions.filter((p) => hasPermission(creator, p)),
      kind: 'websiteToken',
      meta: { websiteTokenId: s.id },
    };
  }
  return {
    kind: 'apiKey',
    userId: s.userId,
    role: 'api-key',
    permissions: (s.keyPermissions ?? []).filter((p) => hasPermission(creator, p)),
    tenantId: s.tenantId,
    // The creator's role: its rules limit the key as they limit the creator (identity-resolvers.ts, roleRules).
    meta: { apiKeyId: s.id, creatorRole: s.role },
    ...(s.keyScope ? { scope: s.keyScope } : {}),
  };
}

/** Equal as far as acting goes (last use aside). */
function sameGrant(a: BearerSnapshot, b: BearerSnapshot | null): boolean {
  return b !== null && JSON.stringify({ ...a, lastUsedAt: null }) === JSON.stringify({ ...b, lastUsedAt: null });
}

const expired = (s: BearerSnapshot, now: number) => s.expiresAt !== null && s.expiresAt <= now;

/**
 * The layered cache of API keys and website tokens, the same layers as sessions: this instance's
 * memory (TRUST_MS), the shared cache (category `tokens`, keyed by the SHA-256 of the value, Redis
 * across instances, SHARED_TTL_SECONDS), then the database (`load`). Unknown values are not cached
 * anywhere (a flood of made-up tokens costs lookups, never memory). Whatever changes what a key or token
 * may do deletes the shared entries and is broadcast (BEARER_CHANGED), so every instance drops its copies
 * at once; see `forget`.
 */
export class BearerCache {
  private readonly local = new Map<string, LocalEntry>();
  /** Lookups in progress per hash: concurrent requests with the same value share one (bounded by the requests in flight). */
  private readonly inflight = new Map<string, Promise<LocalEntry | null>>();
  /** Counts the invalidations: a lookup that saw one happen while it ran does not keep its result. */
  private readonly changes = new ChangeCounter();
  private publish: (match: BearerMatch) => Promise<void> = async () => undefined;

  constructor(
    private readonly deps: {
      /** The snapshot from the database, or null when the value is unknown, expired, or its creator cannot act. */
      load(hash: string, kind: BearerKind): Promise<BearerSnapshot | null>;
      /** Records last use (called at most every LAST_USED_WRITE_MS per key or token; must not throw). */
      touch(kind: BearerKind, id: string, now: number): void;
      cache?: CacheService | null;
      logger?: Pick<Logger, 'warn'>;
      localMax?: number;
    },
  ) {}

  /** How many snapshots this instance holds in memory (bounded by LOCAL_MAX). */
  get localSize(): number {
    return this.local.size;
  }

  /** Wires invalidations to the event bus: published by `forget`, applied when any instance publishes one. */
  connectEvents(events: Pick<EventBus, 'publish' | 'subscribe'>): () => void {
    this.publish = (match) => events.publish(BEARER_CHANGED, match);
    const offChanged = events.subscribe(BEARER_CHANGED, (event) => {
      const p: Partial<Record<keyof BearerMatch, unknown>> = event.payload ?? {};
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const hashes = Array.isArray(p.hashes) ? p.hashes.filter((h): h is string => typeof h === 'string') : undefined;
      this.dropLocal({ hashes, userId: text(p.userId), tenantId: text(p.tenantId), role: text(p.role) });
    });
    // Back after a loss of the other instances' events: invalidations published meanwhile were missed.
    const offResync = events.subscribe(EVENTS_RESYNC, () => {
      this.changes.bump();
      this.local.clear();
    });
    return () => {
      offChanged();
      offResync();
    };
  }

  /** The identity behind a value's hash, or null (unknown, revoked, expired, creator blocked or gone). */
  async identity(hash: string, kind: BearerKind): Promise<Identity | null> {
    const now = Date.now();
    let entry = this.local.get(hash);
    if (!entry || now - entry.verifiedAt >= TRUST_MS) {
      let pending = this.inflight.get(hash);
      if (!pending) {
        pending = this.refresh(hash, kind, entry).finally(() => this.inflight.delete(hash));
        this.inflight.set(hash, pending);
      }
      entry = (await pending) ?? undefined;
    }
    if (!entry) return null;
    if (expired(entry.snapshot, now)) {
      this.local.delete(hash);
      return null;
    }
    if (now - entry.lastUsedAt >= LAST_USED_WRITE_MS) {
      entry.lastUsedAt = now;
      this.deps.touch(entry.snapshot.kind, entry.snapshot.id, now);
    }
    return { ...entry.identity };
  }

  /** Reads the shared layer, then the database; keeps the result in memory unless an invalidation ran meanwhile. */
  private async refresh(hash: string, kind: BearerKind, previous: LocalEntry | undefined): Promise<LocalEntry | null> {
    const unchanged = this.changes.mark();
    let snapshot = await this.sharedGet(hash);
    if (!snapshot || snapshot.kind !== kind) {
      snapshot = await this.deps.load(hash, kind);
      if (!snapshot) {
        this.local.delete(hash);
        return null;
      }
      const ttlSeconds =
        snapshot.expiresAt === null
          ? SHARED_TTL_SECONDS
          : Math.max(1, Math.min(SHARED_TTL_SECONDS, Math.ceil((snapshot.expiresAt - Date.now()) / 1000)));
      await this.sharedSet(hash, snapshot, ttlSeconds);
      // A change committed while this lookup read the database must not be undone by the write above:
      // read again; if it differs, the shared entry goes (the change's own delete may have run before the write).
      const again = await this.deps.load(hash, kind);
      if (!sameGrant(snapshot, again)) {
        await this.sharedDelete(hash);
        this.local.delete(hash);
        return again ? this.entryOf(again, previous) : null;
      }
    }
    const entry = this.entryOf(snapshot, previous);
    if (unchanged()) {
      this.local.delete(hash);
      this.local.set(hash, entry);
      if (this.local.size > (this.deps.localMax ?? LOCAL_MAX)) this.local.delete(this.local.keys().next().value!);
    }
    return entry;
  }

  private entryOf(snapshot: BearerSnapshot, previous: LocalEntry | undefined): LocalEntry {
    const lastUsedAt = Math.max(previous?.lastUsedAt ?? 0, snapshot.lastUsedAt ?? 0);
    return { snapshot, identity: identityOf(snapshot), verifiedAt: Date.now(), lastUsedAt };
  }

  /**
   * Drops cached bearers everywhere: the shared entries of `hashes` (the caller lists every value the change
   * concerns), this instance's matching entries, then every other instance's through the event bus. The
   * shared entries go first, so no lookup here or elsewhere can copy an old one back into memory.
   */
  async forget(match: BearerMatch, hashes: string[]): Promise<void> {
    for (const hash of hashes) await this.sharedDelete(hash);
    this.dropLocal(match);
    await this.publish(match).catch((err) => this.deps.logger?.warn({ err }, 'token invalidation broadcast failed'));
  }

  private dropLocal(match: BearerMatch): void {
    this.changes.bump();
    if (match.hashes && !match.userId && !match.tenantId && !match.role) {
      for (const hash of match.hashes) this.local.delete(hash);
      return;
    }
    if (!match.hashes && !match.userId && !match.tenantId && !match.role) return;
    const hashes = match.hashes ? new Set(match.hashes) : null;
    for (const [hash, { snapshot: s }] of this.local) {
      if (hashes && !hashes.has(hash)) continue;
      if (match.userId !== undefined && s.userId !== match.userId) continue;
      if (match.tenantId !== undefined && s.tenantId !== match.tenantId) continue;
      if (match.role !== undefined && s.role !== match.role) continue;
      this.local.delete(hash);
    }
  }

  // The shared layer is an accelerator: when it fails, lookups go to the database and the failure is logged.
  private async sharedGet(hash: string): Promise<BearerSnapshot | null> {
    if (!this.deps.cache) return null;
    try {
      return (await this.deps.cache.get<BearerSnapshot>(CACHE, hash)) ?? null;
    } catch (err) {
      this.deps.logger?.warn({ err }, 'token cache read failed');
      return null;
    }
  }

  private async sharedSet(hash: string, snapshot: BearerSnapshot, ttlSeconds: number): Promise<void> {
    try {
      await this.deps.cache?.set(CACHE, hash, snapshot, { ttlSeconds });
    } catch (err) {
      this.deps.logger?.warn({ err }, 'token cache write failed');
    }
  }

  private async sharedDelete(hash: string): Promise<void> {
    try {
      await this.deps.cache?.delete(CACHE, hash);
    } catch (err) {
      this.deps.logger?.warn({ err }, 'token cache delete failed');
    }
  }
}
