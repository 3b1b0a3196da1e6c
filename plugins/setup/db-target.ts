import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isAbsolute, join, normalize } from 'node:path';
import { QueryTypes, Sequelize } from 'sequelize';
import { z } from 'zod';
import { type CmsConfig, ValidationError } from '../../kernel/sdk.js';
import { sqliteModule } from '../../kernel/db/sqlite-module.js';
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

type DriverError = { code?: unknown; errno?: unknown; message?: unknown; parent?: DriverError; original?: DriverError };

/**
 * A failed database test in words a person can act on, then the driver's own reason in brackets (its
 * "(conn:…, no:…, SQLState:…)" prefix dropped). Known driver codes get a hint; the password is never
 * repeated, even when a driver's text contains it.
 */
export function describeDbFailure(err: unknown, target: DbTarget): string {
  const e = (err ?? {}) as DriverError;
  const driver = e.parent ?? e.original ?? e;
  const code = typeof driver.code === 'string' ? driver.code : typeof e.code === 'string' ? e.code : '';
  const errno = typeof driver.errno === 'number' ? driver.errno : undefined;
  let reason = String(driver.message ?? e.message ?? 'connection failed')
    .replace(/^\(conn:[^)]*\)\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
  if (target.password.length > 0) reason = reason.split(target.password).join('***');
  const where = `${target.host}:${target.port}`;
  let hint: string | null = null;
  if (target.type === 'mariadb') {
    if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR' || errno === 1045 || errno === 1698)
      hint = `The database server at ${where} refused the user name or password: check the user "${target.username}" and its password.`;
    else if (code === 'ER_DBACCESS_DENIED_ERROR' || errno === 1044)
      hint = `The user "${target.username}" may not use the database "${target.database}": grant it access (GRANT ALL ON \`${target.database}\`.* TO …) or use another user.`;
    else if (code === 'ER_BAD_DB_ERROR' || errno === 1049)
      hint = `The database "${target.database}" does not exist on ${where}: create it first (CREATE DATABASE \`${target.database}\` CHARACTER SET utf8mb4) or check the name.`;
    else if (code === 'ER_HOST_NOT_PRIVILEGED' || errno === 1130)
      hint = `The database server at ${where} does not accept connections from this machine for that user: allow this host for the user.`;
    else if (code === 'ECONNREFUSED')
      hint = `Nothing accepts connections at ${where}: is MariaDB running there, and are the host and port right?`;
    else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
      hint = `The host name "${target.host}" was not found: check its spelling, or use an IP address.`;
    else if (
      code === 'ETIMEDOUT' ||
      code === 'ER_CONNECTION_TIMEOUT' ||
      code === 'ER_GET_CONNECTION_TIMEOUT' ||
      /^no answer within/.test(reason)
    )
      hint = `${where} did not answer within ${TIMEOUT_MS / 1000} s: check the host, the port and any firewall in between.`;
    else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
      hint = `${where} cannot be reached from this machine: check the host and the network.`;
  } else if (code === 'SQLITE_CANTOPEN') {
    hint = `The SQLite file "${target.database}" cannot be opened or created in the data folder: check that the folder is writable.`;
  } else if (code === 'SQLITE_NOTADB') {
    hint = `"${target.database}" is not an SQLite database file.`;
  }
  return hint ? `${hint} (${reason})` : reason;
}

/** Connects to the target (15 s limit) and reads its size; a failure says why in words, with the driver's reason. */
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
    throw new DbConnectionFailedError(describeDbFailure(err, target));
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
