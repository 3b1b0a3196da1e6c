import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isAbsolute, join, normalize } from 'node:path';
import { QueryTypes, Sequelize } from 'sequelize';
import { z } from 'zod';
import type { CmsConfig } from '../../kernel/config.js';
import { sqliteModule } from '../../kernel/db/sqlite-module.js';
import { ValidationError } from '../../kernel/errors.js';
import { DbConnectionFailedError, DbDriverMissingError } from './errors.js';

/** The spec's body of test-db and seed-db (API decisions: for sqlite, `database` is a file under the data folder). */
export const dbTargetSchema = z.object({
  type: z.enum(['sqlite', 'mariadb']),
  host: z.string().max(255).default('127.0.0.1'),
  port: z.coerce.number().int().min(1).max(65535).default(3306),
  database: z.string().min(1).max(191),
  username: z.string().max(191).default(''),
  password: z.string().max(1024).default(''),
  directConnection: z.boolean().optional(),
});
export type DbTarget = z.output<typeof dbTargetSchema>;

const TIMEOUT_MS = 15000;

export function sqliteFile(config: CmsConfig, database: string): string {
  const name = normalize(database);
  if (isAbsolute(name) || name.startsWith('..') || name.includes('\0') || !/^[\w.-]+$/.test(name)) {
    throw new ValidationError('For sqlite, database is a file name under the data folder (letters, digits, . _ -)', [
      { path: 'body.database', message: 'a plain file name' },
    ]);
  }
  return join(config.dataPath, name);
}

/** Whether the target is the database this instance runs on. */
export function isRunningDatabase(config: CmsConfig, target: DbTarget): boolean {
  const db = config.db;
  if (target.type !== db.type) return false;
  if (target.type === 'sqlite')
    return sqliteFile(config, target.database) === (isAbsolute(db.storage) ? db.storage : join(config.dataPath, db.storage));
  return target.host === db.host && target.port === db.port && target.database === db.name && target.username === db.user;
}

/** The driver package each database type needs, and the command that installs it (pinned major). */
const DRIVERS: Record<DbTarget['type'], { package: string; install: string }> = {
  sqlite: { package: 'sqlite3', install: 'npm install sqlite3@6' },
  mariadb: { package: 'mariadb', install: 'npm install mariadb@3' },
};

/**
 * Refuses a database type whose driver package cannot be found, with the command an operator runs to
 * install it. (The spec's wizard installs the driver; a web request running npm is a risk this
 * instance does not take, so it answers the manualCommand instead.)
 */
export function assertDriverInstalled(type: DbTarget['type']): void {
  const driver = DRIVERS[type];
  try {
    createRequire(import.meta.url).resolve(driver.package);
  } catch {
    throw new DbDriverMissingError(type, driver.install);
  }
}

/** Connects to the target (15 s limit) and reads its size; a failure carries the driver's reason. */
export async function testDatabase(config: CmsConfig, target: DbTarget): Promise<{ collections: number; dataSize: number }> {
  assertDriverInstalled(target.type);
  const sequelize =
    target.type === 'sqlite'
      ? new Sequelize({
          dialect: 'sqlite',
          storage: sqliteFile(config, target.database),
          dialectModule: sqliteModule(5000),
          logging: false,
        })
      : new Sequelize({
          dialect: 'mariadb',
          host: target.host,
          port: target.port,
          database: target.database,
          username: target.username,
          password: target.password,
          logging: false,
          pool: { max: 1, acquire: TIMEOUT_MS },
          dialectOptions: { connectTimeout: TIMEOUT_MS },
        });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    });
    return await Promise.race([measure(sequelize, config, target), timeout]);
  } catch (err) {
    const e = err as { parent?: { message?: string }; original?: { message?: string }; message?: string };
    throw new DbConnectionFailedError(e.parent?.message ?? e.original?.message ?? e.message ?? 'connection failed');
  } finally {
    clearTimeout(timer);
    await sequelize.close().catch(() => undefined);
  }
}

async function measure(sequelize: Sequelize, config: CmsConfig, target: DbTarget) {
  await sequelize.authenticate();
  if (target.type === 'sqlite') {
    const tables = await sequelize.query<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'", {
      type: QueryTypes.SELECT,
    });
    // The file and its write-ahead log: recent writes live in the -wal file until a checkpoint.
    const file = sqliteFile(config, target.database);
    const sizeOf = (path: string) =>
      stat(path).then(
        (s) => s.size,
        () => 0,
      );
    const size = (await sizeOf(file)) + (await sizeOf(`${file}-wal`));
    return { collections: Number(tables[0]?.n ?? 0), dataSize: size };
  }
  const rows = await sequelize.query<{ n: number; size: number | null }>(
    'SELECT COUNT(*) AS n, SUM(DATA_LENGTH + INDEX_LENGTH) AS size FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
    { replacements: [target.database], type: QueryTypes.SELECT },
  );
  return { collections: Number(rows[0]?.n ?? 0), dataSize: Number(rows[0]?.size ?? 0) };
}
