import { EVENTS_RESYNC, type BusEvent, type EventName } from './events.js';
import type { Logger } from './logger.js';

/** What `follow` needs of the event bus. */
export interface FollowBus {
  subscribe<T>(name: EventName<T>, handler: (event: BusEvent<T>) => void | Promise<void>): () => void;
}

export interface FollowOptions<T> {
  /** Names the copy in log lines (`maintenance flags`, `guest grants`). */
  name: string;
  /** Reads the whole copy from its source (the database, the settings store). */
  load(): Promise<T>;
  /** The events that announce a change, from any instance. */
  on?: ReadonlyArray<EventName<any>>;
  /**
   * Applies one announced change to the copy and returns the new copy (the same object: the event does not
   * concern it). Without it, or when it returns undefined, the copy is re-read (or, for a `maxAgeMs` copy,
   * dropped and read on next use); so it is when another change landed while an async apply ran.
   */
  apply?(copy: T, event: BusEvent<any>): T | undefined | Promise<T | undefined>;
  /** The backstop re-read, for writes that bypass the events (0 or absent: none). */
  refreshMs?: number;
  /**
   * Read on first use instead of at boot, and again on the first use after `maxAgeMs`; an announced change
   * drops the copy. For copies read per request that may be costly to keep fresh.
   */
  maxAgeMs?: number;
  /** The copy until the first read succeeds (and while a failed read leaves nothing better). */
  initial: T;
}

/** The handle `follow` returns. */
export interface Followed<T> {
  /** The copy as held now (never waits). */
  current(): T;
  /** The copy when it is held and not too old (what `get` would answer without reading), else undefined; never waits. */
  peek(): T | undefined;
  /** The copy, read first when it is not held (a `maxAgeMs` copy that is absent or too old). */
  get(): Promise<T>;
  /** Reads the copy again now; a read that ran across an announced change is not kept. Failures are logged. */
  refresh(): Promise<void>;
  /**
   * Reads the copy again now (after a read already on its way) and returns what it read, kept or not (a
   * change announced meanwhile); a failed read throws. For a caller that just wrote the source.
   */
  read(): Promise<T>;
  /** Changes the copy here (a change this instance made and announces itself). */
  update(fn: (copy: T) => T): void;
  /** Drops what is held: the next `get` reads (a `maxAgeMs` copy), or the next refresh replaces it. */
  forget(): void;
  /** Settles when the first read (at boot) is done, with whether it succeeded; a failed one is logged and leaves `initial`. */
  ready(): Promise<boolean>;
  /** Stops following (done by the plugin's onClose when made with `ctx.follow`). */
  close(): void;
}

/**
 * The generation guard: counts the changes applied; a read that started before one and finished after
 * it may predate it, so it answers its caller but is not kept.
 */
export class ChangeCounter {
  private count = 0;
  /** Call when a change is applied or a copy dropped. */
  bump(): void {
    this.count++;
  }
  /** Call before a read; the function it returns says whether nothing changed since. */
  mark(): () => boolean {
    const at = this.count;
    return () => at === this.count;
  }
}

/**
 * An in-memory copy kept in step across instances: read once (at boot, or on first use with `maxAgeMs`),
 * updated by the events listed in `on` from every instance, re-read after the bus lost the other
 * instances' events (EVENTS_RESYNC) and every `refreshMs` as a backstop. A read that ran across an
 * announced change is not kept (the change may be newer than what it read).
 */
export function follow<T>(bus: FollowBus, logger: Pick<Logger, 'warn'>, options: FollowOptions<T>): Followed<T> {
  const copy = new FollowedCopy(options, logger);
  const offs = [...(options.on ?? []), EVENTS_RESYNC].map((name) => bus.subscribe(name, (event) => copy.onEvent(event)));
  const timer = options.refreshMs ? setInterval(() => void copy.refresh(), options.refreshMs) : null;
  timer?.unref();
  const first = options.maxAgeMs === undefined ? copy.first() : Promise.resolve(true);
  return {
    ready: () => first,
    current: () => copy.value,
    peek: () => copy.peek(),
    get: () => copy.get(),
    refresh: () => copy.refresh(),
    read: () => copy.readAfresh(),
    update: (fn) => copy.set(fn(copy.value)),
    forget: () => copy.forget(),
    close() {
      if (timer) clearInterval(timer);
      for (const off of offs.splice(0)) off();
    },
  };
}

class FollowedCopy<T> {
  value: T;
  private readAt = 0;
  private held = false;
  private reading: Promise<T> | null = null;
  private readonly changes = new ChangeCounter();

  constructor(
    private readonly options: FollowOptions<T>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.value = options.initial;
  }

  private get lazy(): boolean {
    return this.options.maxAgeMs !== undefined;
  }

  set(value: T): void {
    this.changes.bump();
    this.value = value;
    this.reading = null;
  }

  forget(): void {
    this.changes.bump();
    this.held = false;
    // A read on its way may predate the change: the next get reads afresh rather than joining it.
    this.reading = null;
  }

  private fresh(): boolean {
    return this.held && (!this.lazy || Date.now() - this.readAt <= this.options.maxAgeMs!);
  }

  peek(): T | undefined {
    return this.fresh() ? this.value : undefined;
  }

  async get(): Promise<T> {
    if (this.fresh()) return this.value;
    return this.read();
  }

  /** One read at a time; what it read is kept only when no change was applied meanwhile. */
  private read(): Promise<T> {
    if (this.reading) return this.reading;
    const unchanged = this.changes.mark();
    // Started now (a synchronous throw becomes the rejection); settled handlers run after the assignment below.
    const reading: Promise<T> = new Promise<T>((resolve) => resolve(this.options.load()))
      .then((value) => {
        if (unchanged()) {
          this.value = value;
          this.held = true;
          this.readAt = Date.now();
        }
        return value;
      })
      .finally(() => {
        if (this.reading === reading) this.reading = null;
      });
    this.reading = reading;
    return reading;
  }

  first(): Promise<boolean> {
    return this.read().then(
      () => true,
      (err) => {
        this.logger.warn({ err, copy: this.options.name }, `${this.options.name}: first read failed; kept empty until the next read`);
        return false;
      },
    );
  }

  /** A read that starts after the one on its way (which may have started before the caller's change). */
  async readAfresh(): Promise<T> {
    if (this.reading) await this.reading.catch(() => undefined);
    return this.read();
  }

  async refresh(): Promise<void> {
    await this.readAfresh().then(
      () => undefined,
      (err) => this.logger.warn({ err, copy: this.options.name }, `${this.options.name}: re-read failed`),
    );
  }

  async onEvent(event: BusEvent<any>): Promise<void> {
    if (event.name !== EVENTS_RESYNC && this.options.apply) {
      const before = this.value;
      const next = await this.options.apply(before, event);
      // Unchanged: nothing to do. Changed by another event while an async apply ran: read again instead.
      if (next === before) return;
      if (next !== undefined && this.value === before) return this.set(next);
    }
    // Back after a loss of the other instances' events, or a change the copy cannot apply: read again.
    this.forget();
    if (!this.lazy) await this.refresh();
  }
}

export interface FollowEachOptions<K, V> {
  /** Names the copies in log lines. */
  name: string;
  /** Reads one key's value. */
  load(key: K): Promise<V>;
  /** The events that announce a change, from any instance. */
  on?: ReadonlyArray<EventName<any>>;
  /** The keys an event concerns (undefined: every key). Without it every event drops every key. */
  keysOf?(event: BusEvent<any>): K[] | undefined;
  /** A value is read again on its first use after this long. */
  maxAgeMs: number;
  /** At most this many keys (the least recently read dropped first). */
  max?: number;
}

/** The handle `followEach` returns. */
export interface FollowedEach<K, V> {
  /** A key's value, read when not held or too old; concurrent reads of a key share one. */
  get(key: K): Promise<V>;
  /** A key's value when it is held and not too old (what `get` would answer without reading), else undefined; never waits. */
  peek(key: K): V | undefined;
  /** Drops one key's value, or every key's. */
  forget(key?: K): void;
  /** How many keys are held. */
  readonly size: number;
  close(): void;
}

/**
 * Copies per key (a tenant's guest grants), read on first use and kept `maxAgeMs`, dropped when an event
 * in `on` concerns them (from any instance) and all dropped after a bus loss (EVENTS_RESYNC). A read that
 * ran across a drop answers its caller but is not kept.
 */
export function followEach<K, V>(bus: FollowBus, options: FollowEachOptions<K, V>): FollowedEach<K, V> {
  const held = new Map<K, { value: V; at: number }>();
  const inflight = new Map<K, Promise<V>>();
  const changes = new ChangeCounter();
  const forget = (key?: K) => {
    changes.bump();
    // A read on its way may predate the change: the next get reads afresh rather than joining it.
    if (key === undefined) {
      held.clear();
      inflight.clear();
    } else {
      held.delete(key);
      inflight.delete(key);
    }
  };
  const onEvent = (event: BusEvent<any>) => {
    const keys = event.name === EVENTS_RESYNC ? undefined : options.keysOf?.(event);
    if (keys === undefined) return forget();
    for (const key of keys) forget(key);
  };
  const offs = [...(options.on ?? []), EVENTS_RESYNC].map((name) => bus.subscribe(name, onEvent));
  const read = async (key: K): Promise<V> => {
    const unchanged = changes.mark();
    const value = await options.load(key);
    if (unchanged()) {
      held.delete(key);
      held.set(key, { value, at: Date.now() });
      if (options.max !== undefined && held.size > options.max) held.delete(held.keys().next().value!);
    }
    return value;
  };
  const peek = (key: K): V | undefined => {
    const entry = held.get(key);
    return entry && Date.now() - entry.at <= options.maxAgeMs ? entry.value : undefined;
  };
  return {
    peek,
    async get(key) {
      const entry = held.get(key);
      if (entry && Date.now() - entry.at <= options.maxAgeMs) return entry.value;
      let pending = inflight.get(key);
      if (!pending) {
        const own: Promise<V> = read(key).finally(() => {
          if (inflight.get(key) === own) inflight.delete(key);
        });
        inflight.set(key, (pending = own));
      }
      return pending;
    },
    forget,
    get size() {
      return held.size;
    },
    close() {
      for (const off of offs.splice(0)) off();
    },
  };
}
