import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { CacheService } from '../cache/cache-service.js';
import type { Logger } from '../logger.js';
import { isGtidPosition } from './gtid.js';
import { ReplicaMonitor, type ReplicaState, type ReplicaTarget } from './replica-monitor.js';
import { connectionTarget, ReplicaPool } from './replica-pool.js';

export type { ReplicaState, ReplicaTarget } from './replica-monitor.js';

export interface ReadRoutingOptions {
  /** After a caller's write, its reads go to the primary until the replicas have it, at most this long. */
  readYourWritesMs: number;
  /** A replica that failed is left alone this long (reads go to the primary), then tried again. */
  retryMs: number;
  /** A replica further behind than this serves no reads until it catches up (0: no bound). */
  maxLagMs: number;
  /** How often the replicas' positions are checked. */
  pollMs: number;
}

/** Where the reads of the code running now may go: set per request by the dispatcher. */
interface Context {
  replica: boolean;
  /**
   * Shared by nested contexts of one request: whether it wrote (its caller's position is then recorded), and the
   * replica its last read connection came from (a statement that fails on it marks that replica down).
   */
  request: { wrote: boolean; lastReplica?: string };
}

const CATEGORY = 'db-read-your-writes';

/** The caller a write is remembered for: the user, API key or website token; a guest by address. */
export function callerKey(
  identity: { kind: string; userId: string | null; tenantId: string; meta?: Record<string, unknown> },
  ip: string,
): string {
  const meta = identity.meta ?? {};
  const id = meta.apiKeyId ?? meta.websiteTokenId ?? identity.userId;
  return `${identity.tenantId}:${identity.kind}:${typeof id === 'string' || typeof id === 'number' ? id : ip}`;
}

/** A connection error (server gone, refused, reset): the statement may be run again elsewhere. */
function isConnectionFailure(err: unknown): boolean {
  const e = err as { name?: string; parent?: { fatal?: boolean; code?: string } } | null;
  if (e?.parent?.fatal === true) return true;
  return /^Sequelize(Connection|ConnectionRefused|HostNotFound|HostNotReachable|ConnectionTimedOut|ConnectionAcquireTimeout|AccessDenied)Error$/.test(
    e?.name ?? '',
  );
}

type Query = (sql: unknown, options?: Record<string, unknown>) => Promise<unknown>;

/**
 * Reads on MariaDB replicas (DB_READ_URLS, Sequelize replication). Only the statements of a GET (or HEAD)
 * route's handler may read a replica (until it writes); everything else (identity resolution, writes, transactions, jobs,
 * migrations, locks) uses the primary. A caller who wrote reads the primary until every replica has
 * applied the write's GTID position or `readYourWritesMs` passed (the position is kept in the shared
 * cache, so every instance honours it). A replica that fails or lags more than `maxLagMs` sends reads to
 * the primary; a SELECT that lost its replica connection is run again on the primary.
 */
export class ReadRouting {
  private readonly store = new AsyncLocalStorage<Context>();
  private readonly monitor: ReplicaMonitor | null;
  private cache: CacheService | null = null;
  /** Replicas left alone after a failure, until then (ms); '*' for a failure on a replica not known. */
  private readonly downUntil = new Map<string, number>();

  constructor(
    private readonly sequelize: Sequelize,
    readonly replicas: ReplicaTarget[],
    private readonly options: ReadRoutingOptions,
    private readonly logger: Logger,
  ) {
    this.monitor = replicas.length
      ? new ReplicaMonitor(
          replicas,
          () => this.primaryPosition(),
          options.pollMs,
          options.readYourWritesMs,
          (t) => this.markDown(t),
        )
      : null;
    if (this.monitor) this.install();
  }

  get enabled(): boolean {
    return this.monitor !== null;
  }

  /** Starts the checks (first one awaited) and keeps callers' write positions in `cache` (shared with Redis). */
  async start(cache: CacheService): Promise<void> {
    this.cache = cache;
    if (!this.monitor) return;
    await this.monitor.check();
    this.monitor.start();
  }

  async close(): Promise<void> {
    await this.monitor?.close();
  }

  /** Leaves a replica alone for `retryMs` (its reads go to the other replicas, or to the primary when none is left). */
  private markDown(target: string): void {
    const now = Date.now();
    if (now >= (this.downUntil.get(target) ?? 0)) {
      const others = target === '*' ? 'reads go to the primary' : 'reads go to the other replicas or the primary';
      this.logger.warn({ replica: target === '*' ? 'unknown' : target, retryMs: this.options.retryMs }, `read replica failed; ${others}`);
    }
    this.downUntil.set(target, now + this.options.retryMs);
  }

  /**
   * The replicas that may serve reads now: they answered their last check, did not fail within `retryMs` and lag
   * no more than `maxLagMs`. One replica failing leaves the others serving.
   */
  private serving(): Set<string> {
    const now = Date.now();
    if (!this.monitor || now < (this.downUntil.get('*') ?? 0)) return new Set();
    const max = this.options.maxLagMs;
    return new Set(
      this.monitor
        .states()
        .filter((s) => s.state !== 'down' && now >= (this.downUntil.get(s.target) ?? 0) && (!max || s.lagMs <= max))
        .map((s) => s.target),
    );
  }

  private replicasServing(): boolean {
    return this.serving().size > 0;
  }

  /** Whether every replica serving reads has applied `position` (true without replicas). */
  replicasHave(position: string | null | undefined): boolean {
    return !this.monitor || !position || this.monitor.reached(position, this.serving());
  }

  /** The primary's GTID position now (null without replicas): a write committed before this call is in it. */
  async primaryPosition(): Promise<string | null> {
    if (!this.monitor) return null;
    const rows = (await this.sequelize.query('SELECT @@gtid_binlog_pos AS pos', {
      type: QueryTypes.SELECT,
      useMaster: true,
      logging: false,
    })) as Array<{ pos: string | null }>;
    const pos = String(rows[0]?.pos ?? '');
    return isGtidPosition(pos) ? pos : null;
  }

  /**
   * Runs a request's handler: its SELECTs may read a replica when `mayReadReplica` (a GET) and the caller
   * has no write the replicas lack; when it wrote, the caller's position is recorded before it returns.
   */
  async run<T>(caller: string, mayReadReplica: boolean, fn: () => Promise<T>): Promise<T> {
    if (!this.monitor) return fn();
    const context: Context = { replica: false, request: { wrote: false } };
    if (mayReadReplica && this.replicasServing()) context.replica = await this.caughtUp(caller);
    try {
      return await this.store.run(context, fn);
    } finally {
      if (context.request.wrote) await this.remember(caller);
    }
  }

  /** Runs `load` with its reads on the primary unless every replica has `positions` (a cache fill after a write). */
  async readingAtLeast<T>(positions: readonly string[], load: () => Promise<T>): Promise<T> {
    const current = this.store.getStore();
    if (!current?.replica || positions.every((p) => this.replicasHave(p))) return load();
    return this.store.run({ replica: false, request: current.request }, load);
  }

  /** Whether the replicas have the caller's last write (or it is older than the bound, or there is none). */
  private async caughtUp(caller: string): Promise<boolean> {
    try {
      const pending = await this.cache?.get<{ pos: string; until: number }>(CATEGORY, caller);
      return !pending || pending.until <= Date.now() || this.replicasHave(pending.pos);
    } catch (err) {
      this.logger.warn({ err }, 'read-your-writes position unavailable; reading the primary');
      return false;
    }
  }

  private async remember(caller: string): Promise<void> {
    try {
      const pos = await this.primaryPosition();
      if (!pos || this.replicasHave(pos)) return;
      const ms = this.options.readYourWritesMs;
      await this.cache?.set(CATEGORY, caller, { pos, until: Date.now() + ms }, { ttlSeconds: Math.ceil(ms / 1000) });
    } catch (err) {
      this.logger.warn({ err }, 'read-your-writes position not recorded');
    }
  }

  /** What /api/health shows: the replicas, and whether reads are served by them now. */
  status(): { degraded: boolean; readsOnReplicas: boolean; replicas: ReplicaState[] } | null {
    if (!this.monitor) return null;
    const now = Date.now();
    // A replica whose reads failed since its last check counts as down until it is tried again.
    const replicas = this.monitor
      .states()
      .map((r): ReplicaState => (now < (this.downUntil.get(r.target) ?? 0) ? { ...r, state: 'down', lagMs: 0 } : r));
    const serving = this.replicasServing();
    return { degraded: !serving || replicas.some((r) => r.state !== 'ok'), readsOnReplicas: serving, replicas };
  }

  /** Routes SELECTs outside transactions (the pool acquire hook) and falls back to the primary on failures. */
  private install(): void {
    const pool = new ReplicaPool(this.sequelize, (target, err) => {
      if (isConnectionFailure(err)) this.markDown(target);
    });
    this.sequelize.addHook('beforePoolAcquire', (options: { type?: string; useMaster?: boolean }) => {
      const context = this.store.getStore();
      if (options.type !== QueryTypes.SELECT) {
        if (context) context.request.wrote = true;
        return;
      }
      // After a write in the same request (a GET that creates what it reads), its reads stay on the primary.
      if (!context?.replica || context.request.wrote) options.useMaster = true;
      else {
        const serving = this.serving();
        if (serving.size) pool.narrowTo(serving);
        else options.useMaster = true;
      }
    });
    const manager = this.sequelize.connectionManager as unknown as { getConnection(o?: Record<string, unknown>): Promise<unknown> };
    const getConnection = manager.getConnection.bind(manager);
    /** A read connection from a replica that serves now: pooled ones to others, or made for other replicas, are destroyed. */
    const readConnection = async (options: Record<string, unknown>): Promise<unknown> => {
      for (let tries = 0; tries < 16; tries++) {
        const connection = await getConnection(options);
        const target = connectionTarget(connection);
        if (target === undefined || (pool.isCurrent(connection) && this.serving().has(target))) {
          const context = this.store.getStore();
          if (context) context.request.lastReplica = target;
          return connection;
        }
        pool.discard(connection);
      }
      return getConnection({ ...options, useMaster: true });
    };
    manager.getConnection = async (options = {}) => {
      const replicaRead = options.type === QueryTypes.SELECT && !options.useMaster;
      try {
        return await (replicaRead ? readConnection(options) : getConnection(options));
      } catch (err) {
        if (!replicaRead || !isConnectionFailure(err)) throw err;
        // The replica was marked down by the failed connect (ReplicaPool); the primary answers this one.
        return getConnection({ ...options, useMaster: true });
      }
    };
    const query = this.sequelize.query.bind(this.sequelize) as Query;
    (this.sequelize as unknown as { query: Query }).query = async (sql, options = {}) => {
      try {
        return await query(sql, options);
      } catch (err) {
        const onReplica = this.store.getStore()?.replica && !options.transaction && !options.useMaster;
        if (!onReplica || options.type !== QueryTypes.SELECT || !isConnectionFailure(err)) throw err;
        this.markDown(this.store.getStore()?.request.lastReplica ?? '*');
        return query(sql, { ...options, useMaster: true });
      }
    };
  }
}
