import { QueryTypes, type Sequelize } from 'sequelize';

export interface ProbeResult {
  ok: boolean;
  /** Why not, for the log and the 503's message (no host names or driver text). */
  reason?: string;
  checkedAt: number;
}

/**
 * A cheap reachability check of the database for the readiness probe: one `SELECT 1`, bounded by
 * `timeoutMs`, its answer kept for `ttlMs` so a load balancer polling every instance often costs at
 * most one query per instance per second. Concurrent probes share the query in flight. Never throws.
 */
export class DatabaseProbe {
  private last: ProbeResult | null = null;
  private running: Promise<ProbeResult> | null = null;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly ttlMs = 1000,
    private readonly timeoutMs = 2000,
  ) {}

  check(now = Date.now()): Promise<ProbeResult> {
    if (this.last && now - this.last.checkedAt < this.ttlMs) return Promise.resolve(this.last);
    this.running ??= this.query().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async query(): Promise<ProbeResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `no answer within ${this.timeoutMs} ms`, checkedAt: Date.now() }),
        this.timeoutMs,
      );
    });
    const queried = this.sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT }).then(
      (): ProbeResult => ({ ok: true, checkedAt: Date.now() }),
      (): ProbeResult => ({ ok: false, reason: 'the query failed', checkedAt: Date.now() }),
    );
    try {
      this.last = await Promise.race([queried, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    return this.last;
  }
}
