/**
 * The run of a plan, part 1: the domain+tenant lock (renewed while the apply runs, so a dead instance's
 * lock expires with its lease) and the progress a background job reports every 500 ms.
 */
import { QueryTypes } from 'sequelize';
import { LockedError } from '../../kernel/errors.js';
import type { Logger } from '../../kernel/logger.js';
import type { EngineDeps } from './engine-parts.js';
import { LockContentionError } from './errors.js';

/** A held lock: `release` stops the renewal and releases it (a failure is logged: the lease expires). */
export interface HeldLock {
  release(): Promise<void>;
}

/** Takes the lock `data-ops:<domain>:<tenant>` (409 LOCK_CONTENTION after lockWaitMs) and renews it every third of its lease. */
export async function holdLock(deps: EngineDeps, domainId: string, tenantId: string, logger: Logger, started: number): Promise<HeldLock> {
  const { lock, sequelize, options } = deps;
  const lockName = `data-ops:${domainId}:${tenantId}`;
  let release: () => Promise<void>;
  try {
    release = await lock.acquire(lockName, { ttlMs: options.lockTtlMs, waitMs: options.lockWaitMs });
  } catch (err) {
    if (err instanceof LockedError) throw new LockContentionError(domainId, Date.now() - started);
    throw err;
  }
  // Timers made here, outside any transaction: their writes never run inside the apply's write gate.
  const renewal = setInterval(
    () => {
      sequelize
        .query('UPDATE cms_locks SET expires_at = ? WHERE name = ? AND owner = ?', {
          replacements: [Date.now() + options.lockTtlMs, lockName, lock.owner],
          type: QueryTypes.UPDATE,
        })
        .catch((err) => logger.debug({ err }, 'data-operation lock renewal deferred'));
    },
    Math.max(100, Math.floor(options.lockTtlMs / 3)),
  );
  renewal.unref();
  return {
    async release() {
      clearInterval(renewal);
      await release().catch((err) => logger.error({ err, lock: lockName }, 'data-operation lock not released; it expires with its lease'));
    },
  };
}

/** The processed count of a run, sent to a job's progress at most every 500 ms and once more at the end. */
export class ProgressReporter {
  processed = 0;
  private reported = -1;
  private reporting = false;
  private readonly timer: NodeJS.Timeout | null;

  constructor(
    readonly total: number,
    private readonly logger: Logger,
    private readonly progress?: (processed: number, total: number) => Promise<void>,
  ) {
    this.timer = progress ? setInterval(() => this.flush(), 500) : null;
    this.timer?.unref();
  }

  flush(): void {
    if (!this.progress || this.reporting || this.reported === this.processed) return;
    const value = this.processed;
    this.reporting = true;
    this.progress(value, this.total)
      .then(
        () => {
          this.reported = value;
        },
        (err) => this.logger.debug({ err }, 'progress not recorded yet'),
      )
      .finally(() => {
        this.reporting = false;
      });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
