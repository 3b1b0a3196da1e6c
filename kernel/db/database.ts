import { isAbsolute, join } from 'node:path';
import { Sequelize } from 'sequelize';
import type { CmsConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { sqliteModule } from './sqlite-module.js';

/** Opens the configured database: SQLite under the data folder (default) or MariaDB. */
export function createSequelize(config: CmsConfig, logger: Logger): Sequelize {
  // Values are inlined into logged SQL (session ids, token hashes): string literals are blanked.
  const logging = (sql: string) => logger.trace({ sql: sql.replace(/'(?:[^'\\]|\\.|'')*'/g, "'…'") }, 'sql');
  const db = config.db;
  if (db.type === 'sqlite') {
    const storage = isAbsolute(db.storage) ? db.storage : join(config.dataPath, db.storage);
    return new Sequelize({ dialect: 'sqlite', storage, dialectModule: sqliteModule, logging, retry: { max: 3 } });
  }
  return new Sequelize({
    dialect: 'mariadb',
    host: db.host,
    port: db.port,
    database: db.name,
    username: db.user,
    password: db.password,
    logging,
    timezone: '+00:00',
    pool: { max: db.poolMax, min: 0, idle: 10000, acquire: db.connectTimeoutMs },
    dialectOptions: { connectTimeout: db.connectTimeoutMs },
  });
}

/** A short description without credentials, for health and logs. */
export function describeDatabase(config: CmsConfig): { type: string; target: string } {
  const db = config.db;
  return db.type === 'sqlite'
    ? { type: 'sqlite', target: isAbsolute(db.storage) ? db.storage : join(config.dataPath, db.storage) }
    : { type: 'mariadb', target: `${db.host}:${db.port}/${db.name}` };
}
