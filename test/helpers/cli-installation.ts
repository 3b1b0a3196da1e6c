/**
 * An installation for the CLI tests of operators' commands (test/integration/cli-backup.test.ts, cli-config.test.ts):
 * a project folder with its data folder (SQLite) or its own MariaDB database, the installation's server started on it
 * when a test needs one (`cms start` in a child process, set up headlessly with CLI_ADMIN) with a signed-in client,
 * and its audit log read straight from the database.
 */
import { execFile, execFileSync } from 'node:child_process';
import { QueryTypes, Sequelize } from 'sequelize';
import { startCliInstance } from './cli-instance.js';
import { CLI, project, runCli, type CliResult } from './cli-run.js';
import { createMariaDbDatabase, type DbVariant } from './services.js';

export interface CliInstallation {
  env: NodeJS.ProcessEnv;
  cms(args: string[], input?: string): Promise<CliResult>;
  /**
   * Runs the CLI with a terminal on its standard input (util-linux `script` gives it a pseudo-terminal), `input`
   * typed there; standard output and error come back together in `stdout`.
   */
  onTerminal(args: string[], input: string): Promise<CliResult>;
  /** Starts the installation's server; `api` calls it signed in as its administrator. */
  serve(): Promise<{ api: (method: string, path: string, body?: unknown) => Promise<any>; stop(): Promise<void> }>;
  /** The audit entries with these actions, oldest first (details parsed). */
  audit(actions: string[]): Promise<Array<{ action: string; message: string; details: Record<string, unknown> | null }>>;
  drop(): Promise<void>;
}

/** Whether util-linux `script` is here to give the CLI a terminal (CliInstallation.onTerminal). */
export const TERMINAL_AVAILABLE = (() => {
  try {
    return execFileSync('script', ['--version'], { encoding: 'utf8' }).includes('util-linux');
  } catch {
    return false;
  }
})();

const quoted = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export async function cliInstallation(variant: DbVariant, cleanup: string[]): Promise<CliInstallation> {
  let extra: Record<string, string> = { DB_TYPE: 'sqlite', REDIS_URL: '' };
  let drop = async () => undefined as void;
  if (variant.name === 'mariadb') {
    const db = await createMariaDbDatabase();
    drop = db.drop;
    extra = { DB_TYPE: 'mariadb', DB_URL: db.url, REDIS_URL: '' };
  }
  const p = project({}, cleanup, { ...extra, LOG_LEVEL: 'warn' });
  const sequelize = () =>
    variant.name === 'mariadb'
      ? new Sequelize(String(p.env.DB_URL), { logging: false })
      : new Sequelize({ dialect: 'sqlite', storage: `${p.env.CMS_DATA_DIR}/cms.sqlite`, logging: false });
  return {
    env: p.env,
    cms: (args, input) => runCli(args, p.cwd, p.env, input),
    onTerminal: (args, input) =>
      new Promise((resolve, reject) => {
        const command = [process.execPath, CLI, ...args].map(quoted).join(' ');
        const child = execFile(
          'script',
          ['-qec', command, '/dev/null'],
          { cwd: p.cwd, env: p.env, timeout: 60000 },
          (err, stdout, stderr) => {
            if (err && typeof err.code !== 'number') return reject(err);
            resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
          },
        );
        child.stdin?.end(input);
      }),
    async serve() {
      const server = await startCliInstance({ CMS_DATA_DIR: String(p.env.CMS_DATA_DIR), ...extra });
      try {
        const cookie = await server.signIn();
        const api = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${server.url}${path}`, {
            method,
            headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const text = await res.text();
          if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
          return text ? JSON.parse(text).data : null;
        };
        return { api, stop: () => server.stop() };
      } catch (err) {
        await server.stop();
        throw err;
      }
    },
    async audit(actions) {
      const db = sequelize();
      try {
        const rows = await db.query<{ action: string; message: string; details: unknown }>(
          `SELECT action, message, details FROM cms_audit_log WHERE action IN (${actions.map(() => '?').join(', ')}) ORDER BY id`,
          { type: QueryTypes.SELECT, replacements: actions },
        );
        return rows.map((r) => ({
          action: r.action,
          message: r.message,
          details: typeof r.details === 'string' ? JSON.parse(r.details) : ((r.details as Record<string, unknown> | null) ?? null),
        }));
      } finally {
        await db.close();
      }
    },
    drop,
  };
}
