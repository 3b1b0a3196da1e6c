import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import { LockedError } from '../errors.js';

export interface LockOptions {
  /** How long the lock is held before others may take it over (crash safety). */
  ttlMs?: number;
  /** How long to wait for a lock someone else holds. */
  waitMs?: number;
}

/**
 * InnoDB answers several statements racing on one lock row (a release's DELETE and two waiters'
 * INSERTs of the same name) by rolling one back as a deadlock victim. Nothing was changed by it,
 * so it is a reason to try again, not a failure.
 */
function isLockConflict(err: unknown): boolean {
  const code = (err as { parent?: { code?: string } } | null)?.parent?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * A lock shared by every instance on one database (SQLite or MariaDB alike): a row in cms_locks,
 * taken by inserting it (the primary key makes that atomic) and taken over only once expired.
 * Used by migrations, the audit chain and, later, data operations.
 */
export class DbLock {
  private ready: Promise<void> | null = null;
  readonly owner = randomUUID();

  constructor(private readonly sequelize: Sequelize) {}

  private ensureTable(): Promise<void> {
    this.ready ??= this.sequelize
      .query(
        'CREATE TABLE IF NOT EXISTS cms_locks (name VARCHAR(191) NOT NULL PRIMARY KEY, owner VARCHAR(64) NOT NULL, expires_at BIGINT NOT NULL)',
      )
      .then(() => undefined);
    return this.ready;
  }

  async acquire(name: string, options: LockOptions = {}): Promise<() => Promise<void>> {
    const ttlMs = options.ttlMs ?? 60000;
    const waitMs = options.waitMs ?? 30000;
    await this.ensureTable();
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      try {
        await this.sequelize.query('INSERT INTO cms_locks (name, owner, expires_at) VALUES (?, ?, ?)', {
          replacements: [name, this.owner, now + ttlMs],
          type: QueryTypes.INSERT,
        });
        return async () => {
          for (let retry = 0; ; retry++) {
            try {
              await this.sequelize.query('DELETE FROM cms_locks WHERE name = ? AND owner = ?', {
                replacements: [name, this.owner],
                type: QueryTypes.DELETE,
              });
              return;
            } catch (err) {
              if (!isLockConflict(err) || retry >= 5) throw err;
              await sleep(10 * (retry + 1));
            }
          }
        };
      } catch (err) {
        if (!(err instanceof UniqueConstraintError) && !isLockConflict(err)) throw err;
      }
      try {
        await this.sequelize.query('DELETE FROM cms_locks WHERE name = ? AND expires_at < ?', {
          replacements: [name, now],
          type: QueryTypes.DELETE,
        });
      } catch (err) {
        if (!isLockConflict(err)) throw err;
      }
      if (Date.now() - started >= waitMs) throw new LockedError(name, Date.now() - started);
      await sleep(Math.min(250, 25 * 2 ** Math.min(attempt, 4)));
    }
  }

  async withLock<T>(name: string, fn: () => Promise<T>, options?: LockOptions): Promise<T> {
    const release = await this.acquire(name, options);
    try {
      return await fn();
    } finally {
      await release();
    }
  }
}
