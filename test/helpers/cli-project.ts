/**
 * A project folder for CLI tests on one database variant (test/integration/cli-*.test.ts): SQLite in its data folder,
 * or a fresh MariaDB database; and a direct connection to that database, to look at what a command did.
 */
import { Sequelize } from 'sequelize';
import { project } from './cli-run.js';
import { createMariaDbDatabase, type DbVariant } from './services.js';

export interface CliProject {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Drops the MariaDB database (nothing for SQLite: the folder is cleaned up). */
  drop(): Promise<void>;
  /** A connection to the installation's database (close it). */
  connect(): Sequelize;
}

export async function cliProject(variant: DbVariant, cleanup: string[], extra: Record<string, string> = {}): Promise<CliProject> {
  let env: Record<string, string> = { DB_TYPE: 'sqlite', REDIS_URL: '' };
  let drop = async (): Promise<void> => undefined;
  if (variant.name === 'mariadb') {
    const db = await createMariaDbDatabase();
    drop = db.drop;
    env = { DB_TYPE: 'mariadb', DB_URL: db.url, REDIS_URL: '' };
  }
  const p = project({}, cleanup, { ...env, LOG_LEVEL: 'warn', ...extra });
  const connect = () =>
    variant.name === 'mariadb'
      ? new Sequelize(String(p.env.DB_URL), { logging: false })
      : new Sequelize({ dialect: 'sqlite', storage: `${p.env.CMS_DATA_DIR}/cms.sqlite`, logging: false });
  return { ...p, drop, connect };
}
