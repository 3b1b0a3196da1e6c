import { randomBytes } from 'node:crypto';
import mariadb from 'mariadb';

/** Real MariaDB and Redis run only when CI (or a developer) sets these; otherwise those variants skip and say so. */
export const MARIADB_URL = process.env.CMS_TEST_MARIADB_URL || '';
export const REDIS_URL = process.env.CMS_TEST_REDIS_URL || '';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** A connection to the MariaDB server of the URL, without a database. */
function serverOptions(base: URL) {
  return {
    host: base.hostname,
    port: Number(base.port || 3306),
    user: decodeURIComponent(base.username || 'root'),
    password: decodeURIComponent(base.password),
  };
}

/** Creates a fresh database on the test MariaDB server and returns its URL and a drop function. */
export async function createMariaDbDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(MARIADB_URL);
  const name = uniqueName('cms_test');
  const conn = await mariadb.createConnection(serverOptions(base));
  try {
    await conn.query(`CREATE DATABASE \`${name}\``);
  } finally {
    await conn.end();
  }
  const url = new URL(MARIADB_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = await mariadb.createConnection(serverOptions(base));
      try {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}

export interface DbVariant {
  name: 'sqlite' | 'mariadb';
  /** Null when the variant is skipped (its variable is unset). */
  available: boolean;
  skipReason?: string;
}

export const DB_VARIANTS: DbVariant[] = [
  { name: 'sqlite', available: true },
  { name: 'mariadb', available: Boolean(MARIADB_URL), skipReason: 'CMS_TEST_MARIADB_URL is not set: MariaDB variant skipped' },
];

export const CACHE_VARIANTS: Array<{ name: 'memory' | 'redis'; available: boolean; skipReason?: string }> = [
  { name: 'memory', available: true },
  { name: 'redis', available: Boolean(REDIS_URL), skipReason: 'CMS_TEST_REDIS_URL is not set: Redis variant skipped' },
];

/** Skips the suite (saying why) when its service variable is unset. Call from a before hook. */
export function requireVariant(context: Mocha.Context, variant: { available: boolean; skipReason?: string }): void {
  if (variant.available) return;
  console.log(`      ${variant.skipReason}`);
  context.skip();
}

/** Skips the suite (saying why) unless both MariaDB and Redis are set: two instances of one installation share them. */
export function requireSharedServices(context: Mocha.Context): void {
  if (REDIS_URL && MARIADB_URL) return;
  console.log('      CMS_TEST_MARIADB_URL or CMS_TEST_REDIS_URL is not set: multi-instance variant skipped');
  context.skip();
}
