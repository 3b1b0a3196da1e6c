import { AsyncLocalStorage } from 'node:async_hooks';
import { defineError, retryAfter } from '../errors.js';

/** A write that waited too long for the database: nothing was written, a retry is safe. */
export class DatabaseBusyError extends defineError(
  'DATABASE_BUSY',
  503,
  'The database did not accept the write in time (SQLite has one writer); nothing was written. Retry after the Retry-After seconds.',
  (message = 'The database is busy; nothing was written, try again shortly') => ({ message, ...retryAfter(2) }),
) {}

/** A write started outside its own transaction while that transaction holds the gate: it could never run. */
export class NestedWriteError extends Error {
  constructor(label: string, holder: string) {
    super(
      `A write (${label}) was started without its transaction while that transaction (${holder}) holds the database: pass { transaction } or run it after the commit`,
    );
    this.name = 'NestedWriteError';
  }
}

/**
 * What a gated write is called in errors, logs and snapshots; a function is called only when the name is shown (a
 * transaction's name is its caller, read from a stack trace: formatting one per write cost more than the write's
 * bookkeeping).
 */
export type WriteLabel = string | (() => string);
const textOf = (label: WriteLabel): string => (typeof label === 'string' ? label : label());

/** The gated writes an async context runs inside: this gate's and, further out, other gates' (other files). */
interface GateScope {
  gate: WriteGate;
  label: WriteLabel;
  outer: GateScope | undefined;
}

/**
 * One AsyncLocalStorage for every gate of the process. Each enabled AsyncLocalStorage adds work to every
 * promise and async operation of the process (Node 20 runs each storage's hook per async resource), so a
 * storage per gate, i.e. per SQLite file opened, made a process that opened many databases (the test suite:
 * one per test kernel) slower with every one: 300 storages made an async loop 270 times slower.
 */
const gateScopes = new AsyncLocalStorage<GateScope>();
/**
 * Gated writes running in the process, all gates together. When the last one ends the storage is disabled: an
 * enabled AsyncLocalStorage keeps Node 20's promise hooks on for every promise of the process, so requests that
 * write nothing (health, a cached list, a 304) paid for it once any write had run. No gated write runs then, so no
 * context has a scope to find (`run` enables it again for the next write).
 */
let gatedRuns = 0;

function scopeOf(gate: WriteGate): GateScope | undefined {
  for (let s = gateScopes.getStore(); s; s = s.outer) if (s.gate === gate) return s;
  return undefined;
}

interface Waiter {
  label: WriteLabel;
  start(): void;
  timer: NodeJS.Timeout;
}

export interface WriteGateStats {
  holder: { label: string; heldMs: number } | null;
  waiting: number;
  granted: number;
  timedOut: number;
  longestHoldMs: number;
}

/**
 * SQLite has one writer. Instead of letting several connections of this process race for the file
 * lock (each busy-waiting on a libuv thread until SQLITE_BUSY), every write of the process queues
 * here, first come first served: a transaction holds the gate from BEGIN to COMMIT, a single
 * statement for its own run. SQLite's busy timeout then only ever sees other processes.
 *
 * A waiter gives up after `waitMs` with DatabaseBusyError (503, nothing written). A write started
 * without its transaction from inside a transaction that holds the gate is refused at once
 * (NestedWriteError), because it would wait for itself.
 */
export class WriteGate {
  private held: { label: WriteLabel; since: number } | null = null;
  private readonly queue: Waiter[] = [];
  private stats = { granted: 0, timedOut: 0, longestHoldMs: 0 };

  constructor(private readonly options: { waitMs: number; onLongHold?: (label: string, heldMs: number) => void; longHoldMs?: number }) {}

  /** The label of the gated write this async context runs inside, if any. */
  holderHere(): string | null {
    const scope = scopeOf(this);
    return scope ? textOf(scope.label) : null;
  }

  async run<T>(label: WriteLabel, fn: () => Promise<T>): Promise<T> {
    const outer = scopeOf(this);
    if (outer) throw new NestedWriteError(textOf(label), textOf(outer.label));
    await this.acquire(label);
    const since = Date.now();
    const watchdog = this.options.onLongHold
      ? setTimeout(() => this.options.onLongHold!(textOf(label), Date.now() - since), this.options.longHoldMs ?? 10000)
      : null;
    watchdog?.unref();
    gatedRuns++;
    try {
      return await gateScopes.run({ gate: this, label, outer: gateScopes.getStore() }, fn);
    } finally {
      if (--gatedRuns === 0) gateScopes.disable();
      if (watchdog) clearTimeout(watchdog);
      this.release();
    }
  }

  private acquire(label: WriteLabel): Promise<void> {
    if (!this.held && this.queue.length === 0) {
      this.grant(label);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        label,
        start: () => {
          clearTimeout(waiter.timer);
          this.grant(label);
          resolve();
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          this.stats.timedOut++;
          reject(new DatabaseBusyError());
        }, this.options.waitMs),
      };
      this.queue.push(waiter);
    });
  }

  private grant(label: WriteLabel): void {
    this.held = { label, since: Date.now() };
    this.stats.granted++;
  }

  private release(): void {
    if (this.held) this.stats.longestHoldMs = Math.max(this.stats.longestHoldMs, Date.now() - this.held.since);
    this.held = null;
    this.queue.shift()?.start();
  }

  snapshot(): WriteGateStats {
    return {
      holder: this.held ? { label: textOf(this.held.label), heldMs: Date.now() - this.held.since } : null,
      waiting: this.queue.length,
      ...this.stats,
    };
  }
}

/** One gate per SQLite file in this process, so two kernels on one file (tests, CLI) share it too. */
const gates = new Map<string, { gate: WriteGate; users: number }>();

/** The gate of a file (made on first use); call the returned release when the database closes. */
export function gateFor(file: string, create: () => WriteGate): { gate: WriteGate; release(): void } {
  let entry = gates.get(file);
  if (!entry) gates.set(file, (entry = { gate: create(), users: 0 }));
  entry.users++;
  let released = false;
  return {
    gate: entry.gate,
    release: () => {
      if (released) return;
      released = true;
      if (--entry!.users === 0) gates.delete(file);
    },
  };
}
