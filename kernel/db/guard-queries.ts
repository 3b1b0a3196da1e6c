import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ValidationError } from '../errors.js';
import { DatabaseBusyError, type WriteGate } from './write-gate.js';

const WRITE_TYPES = new Set<string>([
  QueryTypes.INSERT,
  QueryTypes.UPDATE,
  QueryTypes.BULKUPDATE,
  QueryTypes.BULKDELETE,
  QueryTypes.DELETE,
  QueryTypes.UPSERT,
]);
const READ_SQL = /^\s*(?:SELECT|PRAGMA|EXPLAIN|WITH\s[\s\S]*?\bSELECT\b(?![\s\S]*\b(?:INSERT|UPDATE|DELETE)\b))/i;

/** Whether a statement changes the database (and so needs SQLite's one writer). */
export function isWrite(sql: string, type: string | undefined): boolean {
  if (type && WRITE_TYPES.has(type)) return true;
  if (type === QueryTypes.SELECT || type === QueryTypes.SHOWTABLES || type === QueryTypes.DESCRIBE || type === QueryTypes.SHOWINDEXES)
    return false;
  return !READ_SQL.test(sql);
}

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 8 || value == null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Date) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasNul(v, depth + 1)) return true;
  return false;
}

interface QueryOptions {
  type?: string;
  transaction?: Transaction | null;
  replacements?: unknown;
  bind?: unknown;
}

const DEADLOCK_ATTEMPTS = 4;
/** MariaDB/MySQL ER_LOCK_DEADLOCK (1213): the transaction was rolled back and may simply be run again. */
function isDeadlock(err: unknown): boolean {
  const parent = (err as { parent?: { errno?: number; code?: string } } | null)?.parent;
  return parent?.errno === 1213 || parent?.code === 'ER_LOCK_DEADLOCK';
}

type Query = (sql: unknown, options?: QueryOptions) => Promise<unknown>;
type Run = (t: Transaction) => Promise<unknown>;
type TransactionFn = (options?: unknown, run?: Run) => Promise<unknown>;

/**
 * Wraps a Sequelize instance's `query` and `transaction` (every model method and raw query goes
 * through them):
 * - any dialect: a text value with a NUL character is refused as 400 VALIDATION_ERROR before it
 *   reaches the driver (SQLite would cut the statement at it);
 * - SQLite (`gate` given): a write outside a transaction and every top-level transaction go through
 *   the process's write gate (see WriteGate), so this process never races itself for the lock;
 * - MariaDB (no gate): a managed top-level transaction chosen as a deadlock victim is run again.
 */
export function guardQueries(sequelize: Sequelize, gate: WriteGate | null, onClose?: () => void): void {
  const query = sequelize.query.bind(sequelize) as Query;
  const transaction = sequelize.transaction.bind(sequelize) as TransactionFn;
  const close = sequelize.close.bind(sequelize);
  (sequelize as unknown as { query: Query }).query = guardedQuery(query, gate);
  (sequelize as unknown as { transaction: TransactionFn }).transaction = gate
    ? gatedTransaction(transaction, gate)
    : deadlockRetryingTransaction(transaction);
  sequelize.close = async () => {
    try {
      await close();
    } finally {
      onClose?.();
    }
  };
}

/** `query` refusing NUL characters, and on SQLite sending writes outside a transaction through the gate. */
function guardedQuery(query: Query, gate: WriteGate | null): Query {
  return (sql, options = {}) => {
    const text = typeof sql === 'string' ? sql : String((sql as { query?: string } | null)?.query ?? '');
    if (
      text.includes('\u0000') ||
      hasNul(options.replacements) ||
      hasNul(options.bind) ||
      hasNul((sql as { values?: unknown; bind?: unknown } | null)?.values) ||
      hasNul((sql as { bind?: unknown } | null)?.bind)
    ) {
      return Promise.reject(new ValidationError('Text values must not contain NUL (\\u0000) characters'));
    }
    if (!gate) return query(sql, options);
    // Another process held the file past the busy timeout (and Sequelize's retries): 503, nothing written.
    const busy = (err: unknown) => {
      throw /SQLITE_BUSY/.test(String((err as { parent?: { code?: string; message?: string } })?.parent?.code ?? (err as Error)?.message))
        ? new DatabaseBusyError()
        : err;
    };
    if (options.transaction || !isWrite(text, options.type)) return query(sql, options).catch(busy);
    // The label (logged if the write holds the writer long) never carries values: string literals are blanked.
    return gate
      .run(
        () => text.replace(/'(?:[^'\\]|\\.|'')*'/g, "'…'").slice(0, 80),
        () => query(sql, options),
      )
      .catch(busy);
  };
}

/** `transaction(options?, run?)` with the callback as the first argument too. */
function argumentsOf(options?: unknown, run?: Run): { options: unknown; run: Run | undefined } {
  return typeof options === 'function' ? { options: undefined, run: options as Run } : { options, run };
}

/** SQLite: every top-level transaction holds the write gate, a managed one for its callback, an unmanaged one until its commit or rollback. */
function gatedTransaction(transaction: TransactionFn, gate: WriteGate): TransactionFn {
  return (...args) => {
    const { options, run } = argumentsOf(...args);
    // A savepoint inside an open transaction: the outer one holds the gate already.
    if ((options as { transaction?: unknown } | undefined)?.transaction) return transaction(options, run);
    // The caller, read from the stack only if the label is shown (an error, a long hold, a snapshot).
    const site = new Error();
    const label = () => `transaction${site.stack?.split('\n')[2]?.trim().replace(/^at /, ' at ') ?? ''}`.slice(0, 160);
    if (run) return gate.run(label, () => transaction(options, run));
    // Unmanaged: the gate is held until its commit or rollback.
    return new Promise<Transaction>((resolve, reject) => {
      gate
        .run(
          label,
          () =>
            new Promise<void>((held) => {
              transaction(options).then(
                (t) => {
                  const tx = t as Transaction;
                  for (const method of ['commit', 'rollback'] as const) {
                    const original = tx[method].bind(tx);
                    tx[method] = () => original().finally(held);
                  }
                  resolve(tx);
                },
                (err) => {
                  held();
                  reject(err);
                },
              );
            }),
        )
        .catch(reject);
    });
  };
}

/**
 * MariaDB: InnoDB may pick a transaction as a deadlock victim (concurrent inserts of one unique value)
 * and roll it back whole; a managed top-level transaction is run again (up to 3 times, with jitter)
 * instead of answering 500. Its callback only writes through the transaction; what follows the
 * commit (events, caches) runs once, after the attempt that committed.
 */
function deadlockRetryingTransaction(transaction: TransactionFn): TransactionFn {
  return async (...args) => {
    const { options, run } = argumentsOf(...args);
    if (!run || (options as { transaction?: unknown } | undefined)?.transaction) return transaction(options, run);
    for (let attempt = 1; ; attempt++) {
      try {
        return await transaction(options, run);
      } catch (err) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(err)) throw err;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  };
}
