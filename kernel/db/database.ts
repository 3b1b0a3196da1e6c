import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { Sequelize, Transaction } from 'sequelize';
import type { CmsConfig } from '../config.js';
import { BootError } from '../errors.js';
import type { Logger } from '../logger.js';
import { guardQueries } from './guard-queries.js';
import { ReadRouting, type ReplicaTarget } from './read-routing.js';
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
    if (db.readUrls.length) throw new BootError('Invalid configuration: DB_READ_URLS (read replicas) needs MariaDB (DB_URL)');
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
  const replicas = readReplicas(config);
  const primary = { host: db.host, port: db.port, username: db.user, password: db.password };
  const sequelize = new Sequelize({
    dialect: 'mariadb',
    ...primary,
    database: db.name,
    logging,
    benchmark,
    timezone: '+00:00',
    pool: { max: db.poolMax, min: 0, idle: 10000, acquire: db.connectTimeoutMs },
    dialectOptions: { connectTimeout: db.connectTimeoutMs },
    // DB_READ_URLS: SELECTs outside transactions may go to the replicas (ReadRouting decides which do).
    ...(replicas.length
      ? {
          replication: {
            write: primary,
            read: replicas.map((r) => ({ host: r.host, port: r.port, username: r.user, password: r.password })),
          },
        }
      : {}),
  });
  guardQueries(sequelize, null);
  routings.set(
    sequelize,
    new ReadRouting(
      sequelize,
      replicas,
      { readYourWritesMs: db.readYourWritesMs, retryMs: db.replicaRetryMs, maxLagMs: db.replicaMaxLagMs, pollMs: 500 },
      logger,
    ),
  );
  return sequelize;
}

const routings = new WeakMap<Sequelize, ReadRouting>();

/** The read routing of a Sequelize made by createSequelize (one without replicas routes nothing). */
export function readRoutingOf(sequelize: Sequelize, logger: Logger): ReadRouting {
  let routing = routings.get(sequelize);
  if (!routing)
    routings.set(
      sequelize,
      (routing = new ReadRouting(sequelize, [], { readYourWritesMs: 0, retryMs: 0, maxLagMs: 0, pollMs: 0 }, logger)),
    );
  return routing;
}

/** DB_READ_URLS as connection targets: user and password default to the primary's; the database is the primary's. */
function readReplicas(config: CmsConfig): ReplicaTarget[] {
  return config.db.readUrls.map((text) => {
    const url = new URL(text);
    return {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: url.username ? decodeURIComponent(url.username) : config.db.user,
      password: url.username ? decodeURIComponent(url.password) : config.db.password,
    };
  });
}

/** A short description without credentials, for health and logs. */
export function describeDatabase(config: CmsConfig): { type: string; target: string; replicas?: string[] } {
  const db = config.db;
  return db.type === 'sqlite'
    ? { type: 'sqlite', target: sqliteFile(config) }
    : {
        type: 'mariadb',
        target: `${db.host}:${db.port}/${db.name}`,
        ...(db.readUrls.length ? { replicas: readReplicas(config).map((r) => `${r.host}:${r.port}`) } : {}),
      };
}
