import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../logger.js';

/** Rows ANALYZE samples per index (SQLite's advice for PRAGMA optimize: milliseconds on a table of 100,000 rows). */
const ANALYSIS_LIMIT = 1000;
const HOUR = 60 * 60 * 1000;

/**
 * SQLite's planner picks an index from the statistics ANALYZE keeps (sqlite_stat1). Without them it guesses, and for a
 * list (`ORDER BY created_at DESC LIMIT 20`) filtered on an indexed column it prefers walking the order index over
 * the filter's index: a filter whose matches are the oldest rows then reads the whole table. `PRAGMA optimize` with
 * mask 0x10002 analyzes every table whose statistics are missing or out of date (the row count changed a lot), so it
 * costs little when nothing changed. A no-op on MariaDB (InnoDB keeps its statistics itself). Through the write gate
 * (it writes sqlite_stat1).
 */
export async function optimizeSqlite(sequelize: Sequelize): Promise<void> {
  if (sequelize.getDialect() !== 'sqlite') return;
  await sequelize.query(`PRAGMA analysis_limit=${ANALYSIS_LIMIT}`, { type: QueryTypes.SELECT });
  await sequelize.query('PRAGMA optimize=0x10002', { type: QueryTypes.UPDATE });
}

/**
 * At start (tables filled while the kernel was down, by another process or a restore, get statistics) and every hour
 * after (SQLite's advice for long-lived connections; bulk writes in between are caught there). Migrations run it too
 * (kernel/db/migrations.ts). Answers the stop function.
 */
export async function startSqliteStatistics(sequelize: Sequelize, logger: Logger): Promise<() => void> {
  if (sequelize.getDialect() !== 'sqlite') return () => undefined;
  const run = () => optimizeSqlite(sequelize).catch((err) => logger.warn({ err }, 'PRAGMA optimize failed'));
  await run();
  const timer = setInterval(() => void run(), HOUR).unref();
  return () => clearInterval(timer);
}
