/**
 * The checks of `cms doctor` (kernel/cli-doctor.ts) that need no booted plugin: the data folder, the Node.js
 * version, the database (reached, its server version, its migrations) and Redis. Each answers ok, warn or fail
 * with what to do in words; none changes the installation (no folder made, no migration run).
 */
import { constants, existsSync, readFileSync, statSync } from 'node:fs';
import { access, open, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import semver from 'semver';
import { inWords } from './cli-kernel.js';
import type { CmsConfig } from './config.js';
import { describeDatabase } from './db/database.js';
import { MigrationRunner } from './db/migrations.js';
import { createRedisSentinel } from './redis.js';
import type { Kernel } from './index.js';
import { PROJECT_ROOT } from './version.js';

const require = createRequire(import.meta.url);

export interface DoctorCheck {
  id: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

/** The oldest database servers the CMS supports (older ones lack SQL it uses: RETURNING, DROP COLUMN, window functions). */
export const MIN_VERSIONS = { sqlite: '3.35.0', mariadb: '10.6.0' } as const;
/** MariaDB series still maintained upstream from this one on (older: a warning to upgrade). */
const MARIADB_MAINTAINED = '10.11.0';

const check = (id: string, status: DoctorCheck['status'], message: string, fix?: string): DoctorCheck => ({
  id,
  status,
  message,
  ...(fix ? { fix } : {}),
});

/** Rejects after ms: a server that never answers (a dropped packet) cannot hang the doctor. */
export function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function nodeVersion(): DoctorCheck {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const range = pkg.engines?.node ?? '*';
  return semver.satisfies(process.versions.node, range)
    ? check('node', 'ok', `Node.js ${process.versions.node} meets ${range}`)
    : check('node', 'fail', `Node.js ${process.versions.node} does not meet ${range}`, `Install a Node.js version that meets ${range}`);
}

/** Writes and removes a probe file: the real test (permission bits do not stop root, a read-only mount does). */
async function writable(folder: string): Promise<string | null> {
  const probe = join(folder, `.doctor-${process.pid}-${Date.now()}`);
  try {
    await (await open(probe, 'wx', 0o600)).close();
    await unlink(probe);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The data folder: a folder, writable, owner-only (it holds the SQLite file, media, sealed secrets). */
export async function dataFolder(config: CmsConfig): Promise<DoctorCheck> {
  const path = config.dataPath;
  if (!existsSync(path))
    return check(
      'data-folder',
      'warn',
      `The data folder ${path} does not exist yet`,
      'A first start creates it (owner-only); check CMS_DATA_DIR / dataDir if it should exist',
    );
  const stat = statSync(path);
  if (!stat.isDirectory())
    return check(
      'data-folder',
      'fail',
      `The data folder ${path} is not a folder`,
      'Point CMS_DATA_DIR (or dataDir in cms.config.json) at a folder',
    );
  const refused = await writable(path);
  if (refused)
    return check(
      'data-folder',
      'fail',
      `The data folder ${path} is not writable: ${refused}`,
      `Give the user running the CMS write access (chown it to that user, chmod 700), or mount it read-write`,
    );
  if (stat.mode & 0o077)
    return check(
      'data-folder',
      'warn',
      `The data folder ${path} can be read by other users (mode ${(stat.mode & 0o777).toString(8)})`,
      `chmod 700 ${path}: it holds the database, media and sealed secrets`,
    );
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== stat.uid)
    return check(
      'data-folder',
      'warn',
      `The data folder ${path} belongs to user ${stat.uid}, not to this user (${uid})`,
      'Run cms as the user the service runs as',
    );
  return check('data-folder', 'ok', `${path} is a writable, owner-only folder`);
}

/** The database server's version against the supported ones. */
async function serverVersion(kernel: Kernel): Promise<DoctorCheck> {
  const sqlite = kernel.config.db.type === 'sqlite';
  const [row] = await kernel.sequelize.query<{ v: string }>(sqlite ? 'SELECT sqlite_version() AS v' : 'SELECT VERSION() AS v', {
    type: QueryTypes.SELECT,
  });
  const text = String(row?.v ?? '');
  const version = semver.coerce(text)?.version ?? '0.0.0';
  const name = sqlite ? 'SQLite' : /mariadb/i.test(text) ? 'MariaDB' : 'MySQL';
  if (name === 'MySQL') return check('database-version', 'warn', `MySQL ${text} is not tested`, 'Use MariaDB (10.11 or later)');
  const min = sqlite ? MIN_VERSIONS.sqlite : MIN_VERSIONS.mariadb;
  if (semver.lt(version, min))
    return check(
      'database-version',
      'fail',
      `${name} ${text} is older than ${min}, the oldest supported`,
      `Upgrade ${name} to ${min} or later`,
    );
  if (!sqlite && semver.lt(version, MARIADB_MAINTAINED))
    return check('database-version', 'warn', `MariaDB ${text} is no longer maintained upstream`, 'Upgrade MariaDB to 10.11 or a later LTS');
  return check('database-version', 'ok', `${name} ${text}`);
}

/** The migrations: none changed after it ran (a start stops), none pending (a start would apply them). */
async function migrations(kernel: Kernel): Promise<DoctorCheck> {
  const status = await new MigrationRunner(kernel.sequelize, kernel.lock, kernel.logger).status(kernel.migrations);
  const changed = status.migrations.filter((m) => m.state === 'changed').map((m) => m.name);
  const pending = status.migrations.filter((m) => m.state === 'pending').length;
  if (changed.length)
    return check(
      'migrations',
      'fail',
      `Migration(s) changed after they ran: ${changed.join(', ')}`,
      'The code does not match the database: put back the code that ran them, or restore a backup made with this code',
    );
  if (pending)
    return check(
      'migrations',
      'warn',
      `${pending} migration(s) pending`,
      "'cms migrate plan' lists them; 'cms migrate apply' (or a start) runs them",
    );
  return check('migrations', 'ok', `${status.migrations.length} migrations applied, none pending`);
}

/**
 * The database reached (within its connect timeout), then its version and migrations. An SQLite file that does not
 * exist yet is not created here. The list ends early (only `database`) when it cannot be reached.
 */
export async function database(kernel: Kernel): Promise<DoctorCheck[]> {
  const { type, target } = describeDatabase(kernel.config);
  if (type === 'sqlite' && !existsSync(target))
    return [
      check(
        'database',
        'warn',
        `No SQLite database at ${target} yet`,
        'A first start creates it (or set DB_TYPE/DB_URL if the database is elsewhere)',
      ),
    ];
  try {
    if (type === 'sqlite') await access(target, constants.R_OK | constants.W_OK);
    await within(kernel.config.db.connectTimeoutMs + 2000, `The database ${target}`, kernel.openDatabase());
  } catch (err) {
    const fix =
      type === 'sqlite'
        ? `Check that ${target} is a readable, writable SQLite file (DB_STORAGE, CMS_DATA_DIR)`
        : `Check that the MariaDB server at ${target} runs and is reachable from here, and DB_URL (or DB_HOST, DB_PORT, DB_NAME, DB_USER, DB_PASSWORD)`;
    return [check('database', 'fail', `Cannot open the ${type} database ${target}: ${inWords(err)}`, fix)];
  }
  const opened = check('database', 'ok', `${type} ${target} opens`);
  const more: DoctorCheck[] = [];
  for (const [id, run] of [
    ['database-version', serverVersion],
    ['migrations', migrations],
  ] as const) {
    try {
      more.push(await run(kernel));
    } catch (err) {
      more.push(check(id, 'fail', `Cannot read it: ${inWords(err)}`, 'See the database check'));
    }
  }
  return [opened, ...more];
}

/** Redis when REDIS_URL is set: connects (no retries) and answers PING; through Sentinel: the master answers PING. */
export async function redis(config: CmsConfig): Promise<DoctorCheck> {
  if (config.redis.sentinels?.length) return redisThroughSentinel(config);
  const url = config.redis.url;
  if (!url) return check('redis', 'ok', 'Not configured: one instance, caches in memory (set REDIS_URL to run several)');
  const where = url.replace(/\/\/[^@/]*@/, '//');
  const client = (require('redis') as typeof import('redis')).createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await within(7000, `Redis at ${where}`, client.connect());
    await within(5000, `Redis at ${where}`, client.ping());
    return check('redis', 'ok', `Redis at ${where} answers`);
  } catch (err) {
    return check(
      'redis',
      'fail',
      `Cannot reach Redis at ${where}: ${inWords(err)}`,
      'Check that Redis runs and REDIS_URL (host, port, password) is right',
    );
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** Redis through Sentinel: the sentinels name a master and it answers PING (bounded; the password never shown). */
async function redisThroughSentinel(config: CmsConfig): Promise<DoctorCheck> {
  const { sentinels = [], sentinelMaster } = config.redis;
  const where = `master '${sentinelMaster}' through the sentinels ${sentinels.join(', ')}`;
  const sentinel = createRedisSentinel(config.redis, { retry: false });
  sentinel.on('error', () => undefined);
  try {
    await within(10000, `Redis ${where}`, sentinel.connect());
    await within(5000, `Redis ${where}`, sentinel.ping());
    const master = sentinel.getMasterNode();
    return check('redis', 'ok', `Redis ${where} answers${master ? ` (master now ${master.host}:${master.port})` : ''}`);
  } catch (err) {
    return check(
      'redis',
      'fail',
      `Cannot reach Redis ${where}: ${inWords(err)}`,
      'Check that the sentinels run, REDIS_SENTINELS and REDIS_SENTINEL_MASTER are right, and REDIS_PASSWORD / REDIS_SENTINEL_PASSWORD match',
    );
  } finally {
    await within(5000, 'closing the Sentinel client', sentinel.destroy()).catch(() => undefined);
  }
}
