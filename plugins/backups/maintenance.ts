/**
 * Maintenance mode while a restore runs, on every instance: the restoring instance publishes
 * `backups:maintenance` on the event bus (Redis pub/sub when configured) with an expiry, repeats it as a
 * heartbeat, and publishes the end; the flag is also kept in the shared cache (with a TTL) so an
 * instance that starts during a restore sees it. A restore that dies stops the heartbeat, so the flag
 * lapses after maintenanceTtlSeconds: maintenance never outlives a crashed restore for long.
 */
import type { Context, Next } from 'koa';
import { type CacheService, type EventBus, isInstallationAdmin, isOpenDuring, type Identity, type Logger } from '../../kernel/sdk.js';
import { MaintenanceError } from './errors.js';

export const MAINTENANCE_EVENT = 'backups:maintenance';
const CACHE_CATEGORY = 'backups';
const CACHE_KEY = 'maintenance';

export interface MaintenanceState {
  active: boolean;
  /** Epoch ms after which the flag no longer counts (heartbeat refreshes it). */
  until: number;
  reason: string;
  planId?: string;
}

export class Maintenance {
  private state: MaintenanceState = { active: false, until: 0, reason: '' };
  private heartbeat: NodeJS.Timeout | null = null;
  private gate: ((ctx: Context, next: Next) => Promise<void>) | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly events: EventBus,
    private readonly cache: () => CacheService | undefined,
    private readonly logger: Logger,
    private readonly ttlSeconds: number,
  ) {}

  get active(): boolean {
    return this.state.active && this.state.until > Date.now();
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.min(this.ttlSeconds, Math.ceil((this.state.until - Date.now()) / 1000)));
  }

  async connect(): Promise<void> {
    this.unsubscribe = this.events.subscribe(MAINTENANCE_EVENT, (e) => {
      this.state = e.payload as MaintenanceState;
    });
    const known = await this.cache()
      ?.get<MaintenanceState>(CACHE_CATEGORY, CACHE_KEY)
      .catch(() => undefined);
    if (known && known.until > Date.now()) this.state = known;
  }

  private async announce(state: MaintenanceState): Promise<void> {
    this.state = state;
    await this.events.publish(MAINTENANCE_EVENT, state);
    const cache = this.cache();
    if (!cache) return;
    if (state.active)
      await cache
        .set(CACHE_CATEGORY, CACHE_KEY, state, { ttlSeconds: this.ttlSeconds })
        .catch((err) => this.logger.warn({ err }, 'maintenance flag not cached'));
    else await cache.delete(CACHE_CATEGORY, CACHE_KEY).catch(() => undefined);
  }

  /** Turns maintenance on (every instance) until end(); refreshed every third of the TTL. */
  async begin(reason: string, planId?: string): Promise<void> {
    const fresh = () => ({ active: true, until: Date.now() + this.ttlSeconds * 1000, reason, planId });
    await this.announce(fresh());
    this.heartbeat = setInterval(() => void this.announce(fresh()).catch(() => undefined), (this.ttlSeconds * 1000) / 3);
    this.heartbeat.unref();
  }

  async end(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await this.announce({ active: false, until: 0, reason: '' });
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.unsubscribe?.();
  }

  /**
   * afterIdentity middleware: 503 MAINTENANCE with Retry-After for everyone but the installation's
   * administrators. Routes declared `openDuring: ['restore']` stay open: the health probes for load
   * balancers, and sign-in (password, second factor) so an administrator can sign in.
   */
  middleware(): (ctx: Context, next: Next) => Promise<void> {
    // One function for every request (and no promise of its own while no restore runs).
    return (this.gate ??= (ctx: Context, next: Next) => {
      if (!this.active || isOpenDuring(ctx, 'restore')) return next();
      const identity = ctx.state.identity as Identity | undefined;
      if (identity && isInstallationAdmin(identity)) return next();
      throw new MaintenanceError(this.retryAfterSeconds);
    });
  }
}
