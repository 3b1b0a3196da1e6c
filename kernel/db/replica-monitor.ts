// The driver is loaded on the first check only: an installation on SQLite may not have it (setup's DB_DRIVER_MISSING).
import type { Connection } from 'mariadb';
import { gtidReached } from './gtid.js';

export interface ReplicaTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** What /api/health shows of one replica (no credentials). */
export interface ReplicaState {
  target: string;
  /** ok: answers and is close behind; lagging: behind the primary longer than the read-your-writes bound; down: does not answer. */
  state: 'ok' | 'lagging' | 'down';
  /** How long it has not had a write the primary had (ms, at the last check). */
  lagMs: number;
}

interface Tracked {
  target: ReplicaTarget;
  /** This monitor's own connection to it (made again after a failure). */
  connection: Connection | null;
  /** Its @@gtid_slave_pos at the last answer; null before the first or after a failure. */
  position: string | null;
  lagMs: number;
}

/** How long one check of a replica may take before it counts as down. */
const CHECK_MS = 1500;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_MS} ms`)), CHECK_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Primary positions of the last checks (oldest first), to tell how long ago a replica stopped keeping up. */
const SAMPLES = 256;

/**
 * Asks each replica for its replication position (`@@gtid_slave_pos`) and the primary for its own
 * (`@@gtid_binlog_pos`) every `pollMs`, over one connection per replica of its own. Knows whether each
 * replica answers, and how long it has lagged: the age of the oldest primary position it has not reached.
 */
export class ReplicaMonitor {
  private readonly replicas: Tracked[];
  private readonly samples: Array<{ at: number; position: string }> = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    targets: ReplicaTarget[],
    private readonly primaryPosition: () => Promise<string | null>,
    private readonly pollMs: number,
    private readonly lagBoundMs: number,
    private readonly onDown: (target: string) => void,
  ) {
    this.replicas = targets.map((target) => ({
      target,
      position: null,
      lagMs: 0,
      connection: null,
    }));
  }

  start(): void {
    if (this.timer || this.closed) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.pollMs);
    this.timer.unref();
  }

  /** One round of checks (concurrent calls share it). */
  check(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const now = Date.now();
    const primary = await this.primaryPosition().catch(() => null);
    if (primary !== null && this.samples.at(-1)?.position !== primary) {
      this.samples.push({ at: now, position: primary });
      if (this.samples.length > SAMPLES) this.samples.shift();
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, now)));
  }

  private async checkReplica(r: Tracked, now: number): Promise<void> {
    try {
      if (!r.connection) {
        const { default: mariadb } = await import('mariadb');
        const connection = await mariadb.createConnection({ ...r.target, connectTimeout: CHECK_MS });
        // A server that goes away closes the socket: the next check connects again.
        connection.on('error', () => {
          if (r.connection === connection) r.connection = null;
        });
        r.connection = connection;
      }
      const rows: Array<{ pos: string | null }> = await withTimeout(
        r.connection.query({ sql: 'SELECT @@gtid_slave_pos AS pos', timeout: CHECK_MS }),
      );
      r.position = String(rows[0]?.pos ?? '');
      const behind = this.samples.find((s) => !gtidReached(r.position!, s.position));
      r.lagMs = behind ? now - behind.at : 0;
    } catch {
      r.connection?.destroy();
      r.connection = null;
      if (this.closed) return;
      r.position = null;
      this.onDown(targetName(r.target));
    }
  }

  /** Whether every replica (of `among`, by target name, when given) answered its last check and has applied `position`. */
  reached(position: string, among?: ReadonlySet<string>): boolean {
    return this.replicas
      .filter((r) => !among || among.has(targetName(r.target)))
      .every((r) => r.position !== null && gtidReached(r.position, position));
  }

  /** Longest lag among the replicas that answer (ms). */
  maxLagMs(): number {
    return Math.max(0, ...this.replicas.filter((r) => r.position !== null).map((r) => r.lagMs));
  }

  states(): ReplicaState[] {
    return this.replicas.map((r) => ({
      target: targetName(r.target),
      state: r.position === null ? 'down' : r.lagMs > this.lagBoundMs ? 'lagging' : 'ok',
      lagMs: r.position === null ? 0 : r.lagMs,
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    for (const r of this.replicas) {
      r.connection?.destroy();
      r.connection = null;
    }
  }
}

export const targetName = (t: ReplicaTarget): string => `${t.host}:${t.port}`;
