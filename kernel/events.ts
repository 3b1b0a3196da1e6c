import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import {
  closeRedis,
  createRedisClient,
  createRedisSentinel,
  redisUp,
  watchRedis,
  type RedisConnection,
  type RedisTarget,
} from './redis.js';
import type { Logger } from './logger.js';

export interface BusEvent<T = unknown> {
  name: string;
  payload: T;
  at: string;
  /** The instance that published it. */
  origin: string;
}

export type EventHandler<T = unknown> = (event: BusEvent<T>) => void | Promise<void>;

declare const payloadType: unique symbol;
/**
 * An event name that carries its payload's type: still the plain string on the wire and in comparisons,
 * but `publish` checks the payload against it and `subscribe` hands the handler a typed `event.payload`.
 */
export type EventName<Payload = unknown> = string & { readonly [payloadType]?: Payload };
/** The payload type an `EventName` carries. */
export type PayloadOf<E> = E extends EventName<infer P> ? P : unknown;

/**
 * Declares an event, like `defineError` declares an error: the plugin that publishes it exports it from
 * its `public.ts`, and publishers and subscribers use the constant.
 *
 *   export const COLLECTIONS_CHANGED = defineEvent<{ tenantId: string }>('content:collections-changed');
 *   await events.publish(COLLECTIONS_CHANGED, { tenantId });            // payload checked
 *   events.subscribe(COLLECTIONS_CHANGED, (event) => event.payload.tenantId); // payload typed
 *
 * Payloads cross instances as JSON (Redis pub/sub): declare plain data only.
 */
export function defineEvent<Payload = Record<string, never>>(name: string): EventName<Payload> {
  if (!/^[a-z][\w-]*:[\w-]+$/.test(name)) throw new TypeError(`Event name '${name}' is not '<prefix>:<name>'`);
  return name as EventName<Payload>;
}

/**
 * Delivered on this instance only (payload `{}`), when its connection to the other instances' events
 * (Redis pub/sub) is back after a loss: events published meanwhile are lost, so whatever follows
 * change events to keep a copy in memory drops or re-reads that copy.
 */
export const EVENTS_RESYNC: EventName<Record<string, never>> = 'events:resync';

/** Through Sentinel: a message an instance sends itself to learn that its subscription delivers again (never delivered to handlers). */
const PROBE = 'events:probe';

/**
 * The in-process event bus. With Redis configured, every publish also goes out on a pub/sub
 * channel and events from other instances are delivered here, so a subscriber sees events from
 * the whole cluster exactly once (its own are delivered locally, never echoed back).
 */
export class EventBus {
  readonly instanceId = randomUUID();
  private readonly emitter = new EventEmitter();
  private pub: RedisConnection | null = null;
  private sub: RedisClientType | null = null;
  private channel = '';
  /** Through Sentinel: whether the subscription is known to deliver (cleared on a loss, set once a probe came back). */
  private live = true;
  private probe: { nonce: string; arrived: () => void } | null = null;

  constructor(private readonly logger: Logger) {
    this.emitter.setMaxListeners(0);
  }

  async connectRedis(target: RedisTarget, prefix: string): Promise<void> {
    this.channel = `${prefix}:events`;
    if (target.sentinels?.length) return this.connectSentinel(target);
    const pub = createRedisClient(target.url!);
    this.pub = pub;
    this.sub = pub.duplicate();
    pub.on('error', (err) => this.logger.error({ err }, 'event bus redis error'));
    this.sub.on('error', (err) => this.logger.error({ err }, 'event bus redis error'));
    // node-redis reconnects and re-subscribes by itself; 'ready' after a loss means events may have been missed.
    let lost = false;
    this.sub.on('reconnecting', () => (lost = true));
    this.sub.on('end', () => (lost = true));
    this.sub.on('ready', () => {
      if (!lost) return;
      lost = false;
      this.logger.info('event bus reconnected: in-memory copies are re-read (events published meanwhile were missed)');
      this.deliver({ name: EVENTS_RESYNC, payload: {}, at: new Date().toISOString(), origin: this.instanceId });
    });
    await Promise.all([pub.connect(), this.sub.connect()]);
    await this.sub.subscribe(this.channel, (message) => this.receive(message));
  }

  /**
   * Through Sentinel one node-redis sentinel object publishes and subscribes (it moves the subscription
   * to a new master itself). After a loss or a failover, events are taken as flowing again only once a
   * probe this instance publishes comes back through the subscription; then EVENTS_RESYNC.
   */
  private async connectSentinel(target: RedisTarget): Promise<void> {
    const conn = createRedisSentinel(target);
    this.pub = conn;
    conn.on('error', (err: unknown) => this.logger.error({ err }, 'event bus redis error (Sentinel)'));
    let generation = 0;
    watchRedis(conn, {
      lost: () => {
        this.live = false;
        generation++;
      },
      back: () => void this.confirmLive(conn, ++generation, () => generation),
    });
    await conn.connect();
    await conn.subscribe(this.channel, (message: string) => this.receive(message));
  }

  private async confirmLive(conn: RedisConnection, mine: number, current: () => number): Promise<void> {
    while (mine === current() && this.pub === conn) {
      const nonce = randomUUID();
      const arrived = new Promise<boolean>((resolve) => {
        this.probe = { nonce, arrived: () => resolve(true) };
        setTimeout(() => resolve(false), 1000);
      });
      const probe: BusEvent = { name: PROBE, payload: { nonce }, at: new Date().toISOString(), origin: this.instanceId };
      const sent = await conn.publish(this.channel, JSON.stringify(probe)).then(
        () => true,
        () => false,
      );
      if (sent && (await arrived) && mine === current()) {
        this.probe = null;
        this.live = true;
        this.logger.info('event bus reconnected (Sentinel): in-memory copies are re-read (events published meanwhile were missed)');
        this.deliver({ name: EVENTS_RESYNC, payload: {}, at: new Date().toISOString(), origin: this.instanceId });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private receive(message: string): void {
    let event: BusEvent;
    try {
      event = JSON.parse(message);
    } catch {
      return;
    }
    if (event.name === PROBE) {
      const nonce = (event.payload as { nonce?: string } | null)?.nonce;
      const waiting = this.probe;
      if (event.origin === this.instanceId && waiting && waiting.nonce === nonce) waiting.arrived();
      return;
    }
    if (event.origin !== this.instanceId) this.deliver(event);
  }

  get transport(): 'memory' | 'redis' {
    return this.pub ? 'redis' : 'memory';
  }

  /** With Redis: whether both the publishing and the subscribed connection are up (events from other instances arrive). */
  get connected(): boolean {
    if (!this.pub) return true;
    if (!this.sub) return this.live && redisUp(this.pub);
    return this.pub.isReady && this.sub.isReady;
  }

  async publish<T>(name: EventName<T>, payload: T): Promise<void> {
    const event: BusEvent<T> = { name, payload, at: new Date().toISOString(), origin: this.instanceId };
    this.deliver(event);
    if (this.pub) await this.pub.publish(this.channel, JSON.stringify(event));
  }

  /** Subscribes to one event name, or '*' for all; returns the unsubscribe function. */
  subscribe<T = unknown>(name: EventName<T>, handler: EventHandler<T>): () => void {
    const wrapped = (event: BusEvent) => {
      Promise.resolve()
        .then(() => handler(event as BusEvent<T>))
        .catch((err) => this.logger.error({ err, event: event.name }, 'event handler failed'));
    };
    this.emitter.on(name, wrapped);
    return () => this.emitter.off(name, wrapped);
  }

  private deliver(event: BusEvent): void {
    this.emitter.emit(event.name, event);
    this.emitter.emit('*', event);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    const clients = [this.sub, this.pub];
    this.pub = this.sub = null;
    await Promise.all(clients.map((c) => closeRedis(c)));
  }
}
