import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { Sequelize, Transaction } from 'sequelize';
import type { CmsConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { guardQueries } from './guard-queries.js';
import { reuseTransactionConnections } from './sqlite-connections.js';
import { formatStatementStacksOnError } from './sqlite-statement-stacks.js';
import { sqliteModule } from './sqlite-module.js';
import { gateFor, WriteGate } from './write-gate.js';

const sqliteFile = (config: CmsConfig) => (isAbsolute(config.db.storage) ? config.db.storage : join(config.dataPath, config.db.storage));

/**
 * The SQLite file holds every tenant's data, password hashes and encrypted secrets: owner-only (0600),
 * created so before SQLite opens it (its -wal and -shm files take the database file's mode), and
 * tightened when an older version left it world-readable. A folder created for it is 0700.
 */
export function secureSqliteFile(config: CmsConfig): void {
  if (config.db.type !== 'sqlite') return;
  const file = sqliteFile(config);
  if (file === ':memory:' || file.startsWith('file:')) return;
  if (!existsSync(dirname(file))) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (existsSync(f)) chmodSync(f, 0o600);
    } catch {
      // Not the owner (a file shared on purpose): left as the operator set it.
    }
  }
}

/**
 * Opens the configured database: SQLite under the data folder (default) or MariaDB. Every query goes
 * through guardQueries (NUL refused; on SQLite, writes queue at the process's write gate and
 * transactions begin IMMEDIATE, so a transaction never fails half-way for want of the lock).
 */
export function createSequelize(config: CmsConfig, logger: Logger): Sequelize {
  // Values are inlined into logged SQL (session ids, token hashes): string literals are blanked.
  // CMS_LOG_SLOW_SQL_MS: statements slower than that are logged at warn with their time (the slow-query log).
  const slowMs = Number(process.env.CMS_LOG_SLOW_SQL_MS ?? '');
  // Cut first (a multi-row INSERT is hundreds of KB), then blank every literal, also one the cut left open.
  const blank = (sql: string) => sql.slice(0, 2000).replace(/'(?:[^'\\]|\\.|'')*(?:'|$)/g, "'…'");
  const logging = (sql: string, ms?: number) => {
    if (slowMs > 0 && typeof ms === 'number' && ms >= slowMs) logger.warn({ sql: blank(sql), ms }, 'slow SQL statement');
    else if (logger.isLevelEnabled('trace')) logger.trace({ sql: blank(sql) }, 'sql');
  };
  const benchmark = slowMs > 0;
  const db = config.db;
  if (db.type === 'sqlite') {
    const storage = sqliteFile(config);
    const sequelize = new Sequelize({
      dialect: 'sqlite',
      storage,
      dialectModule: sqliteModule(db.busyTimeoutMs),
      logging,
      benchmark,
      transactionType: Transaction.TYPES.IMMEDIATE,
      // Only a lock held by another process is worth another try; anything else (a unique violation) is final.
      retry: { max: 3, match: [/SQLITE_BUSY/] },
    });
    const { gate, release } = gateFor(
      storage,
      () =>
        new WriteGate({
          waitMs: db.writeWaitMs,
          longHoldMs: 5000,
          onLongHold: (label, heldMs) =>
            logger.warn({ holder: label, heldMs }, 'a write has held the SQLite writer for a long time; other writes are waiting'),
        }),
    );
    guardQueries(sequelize, gate, release);
    reuseTransactionConnections(sequelize);
    formatStatementStacksOnError(sequelize);
    return sequelize;
  }
  const sequelize = new Sequelize({
    dialect: 'mariadb',
    host: db.host,
    port: db.port,
    database: db.name,
    username: db.user,
    password: db.password,
    logging,
    benchmark,
    timezone: '+00:00',
    pool: { max: db.poolMax, min: 0, idle: 10000, acquire: db.connectTimeoutMs },
    dialectOptions: { connectTimeout: db.connectTimeoutMs },
  });
  guardQueries(sequelize, null);
  return sequelize;
}

/** A short description without credentials, for health and logs. */
export function describeDatabase(config: CmsConfig): { type: string; target: string } {
  const db = config.db;
  return db.type === 'sqlite'
    ? { type: 'sqlite', target: sqliteFile(config) }
    : { type: 'mariadb', target: `${db.host}:${db.port}/${db.name}` };
}
