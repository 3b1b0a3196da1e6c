import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';

/** Where Debian puts the server; CMS_TEST_MARIADBD names another. */
export const MARIADBD = process.env.CMS_TEST_MARIADBD || '/usr/sbin/mariadbd';
const INSTALL_DB = process.env.CMS_TEST_MARIADB_INSTALL_DB || 'mariadb-install-db';

/** Why a pair cannot be started here (no server binary), or null when it can. */
export function mariadbPairUnavailable(): string | null {
  if (!existsSync(MARIADBD)) return `${MARIADBD} is missing (set CMS_TEST_MARIADBD): replica tests skipped`;
  if (spawnSync(INSTALL_DB, ['--help'], { stdio: 'ignore' }).error) return `${INSTALL_DB} is missing: replica tests skipped`;
  return null;
}

export interface MariaDbServer {
  port: number;
  /** `mariadb://root@127.0.0.1:<port>/<database>` */
  url(database: string): string;
  /** A statement as root on this server (no database selected unless the SQL names one). */
  query(sql: string, values?: unknown[]): Promise<any>;
  /** Kills the process (SIGKILL: as a crash) and waits for it to go. */
  kill(): Promise<void>;
  /** Starts it again on the same port and datadir (after kill()). */
  restart(): Promise<void>;
}

export interface MariaDbPair {
  primary: MariaDbServer;
  /** The first replica (`replicas[0]`). */
  replica: MariaDbServer;
  /** Every replica, in the order they were started. */
  replicas: MariaDbServer[];
  /** Pauses applying replicated changes on every replica (STOP SLAVE SQL_THREAD): they fall behind. */
  pauseReplication(): Promise<void>;
  resumeReplication(): Promise<void>;
  /** Resolves once every replica that runs has applied everything the primary has written so far. */
  waitForReplica(timeoutSeconds?: number): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function connect(port: number) {
  return mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', connectTimeout: 2000 });
}

async function waitUp(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`mariadbd on port ${port} exited (${child.exitCode}): ${log().slice(-2000)}`);
    try {
      const c = await connect(port);
      await c.end();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`mariadbd on port ${port} did not answer within 30 s: ${log().slice(-2000)}`);
}

/** One mariadbd in its own datadir on a free port of 127.0.0.1, run as a child process. */
async function startServer(root: string, name: string, args: string[]): Promise<MariaDbServer> {
  const datadir = join(root, name);
  const installed = spawnSync(
    INSTALL_DB,
    [`--datadir=${datadir}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db', '--no-defaults'],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) throw new Error(`${INSTALL_DB} failed: ${installed.stderr || installed.stdout}`);
  const port = await freePort();
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(root, `${name}.sock`)}`,
        `--pid-file=${join(root, `${name}.pid`)}`,
        '--user=root',
        '--skip-name-resolve',
        '--innodb-buffer-pool-size=32M',
        '--innodb-log-file-size=16M',
        '--max-connections=200',
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (d: Buffer) => void (output = (output + d.toString()).slice(-8000)));
    child.stderr!.on('data', (d: Buffer) => void (output = (output + d.toString()).slice(-8000)));
    await waitUp(port, child, () => output);
  };
  await launch();
  const exited = () =>
    new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
  return {
    port,
    url: (database) => `mariadb://root@127.0.0.1:${port}/${database}`,
    async query(sql, values) {
      const c = await connect(port);
      try {
        return await c.query(sql, values);
      } finally {
        await c.end();
      }
    },
    async kill() {
      child.kill('SIGKILL');
      await exited();
    },
    restart: launch,
  };
}

/**
 * A MariaDB primary (binary log, GTIDs, row format) and `replicas` replicas of it (GTID replication; one by
 * default), each its own mariadbd child process with a temporary datadir on a free port of 127.0.0.1, root
 * without a password. For tests and the bench of read replicas (DB_READ_URLS); stop() kills them all and
 * removes the datadirs.
 */
export async function startMariaDbPair(replicaCount = 1): Promise<MariaDbPair> {
  const root = mkdtempSync(join(tmpdir(), 'cms-mariadb-pair-'));
  const servers: MariaDbServer[] = [];
  const stop = async () => {
    for (const s of servers.reverse()) await s.kill().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primary = await startServer(root, 'primary', ['--server-id=1', '--log-bin=primary-bin', '--binlog-format=ROW']);
    servers.push(primary);
    const replicas: MariaDbServer[] = [];
    for (let i = 0; i < replicaCount; i++) {
      const replica = await startServer(root, i ? `replica${i + 1}` : 'replica', [`--server-id=${i + 2}`, '--skip-log-bin']);
      servers.push(replica);
      replicas.push(replica);
      await replica.query(
        `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos`,
      );
      await replica.query('START SLAVE');
    }
    const onEach = async (sql: string) => void (await Promise.all(replicas.map((r) => r.query(sql))));
    const pair: MariaDbPair = {
      primary,
      replica: replicas[0]!,
      replicas,
      pauseReplication: () => onEach('STOP SLAVE SQL_THREAD'),
      resumeReplication: () => onEach('START SLAVE SQL_THREAD'),
      async waitForReplica(timeoutSeconds = 30) {
        const [{ pos }] = await primary.query('SELECT @@gtid_binlog_pos AS pos');
        if (!pos) return;
        for (const replica of replicas) {
          // A replica that is down (killed by a test) is not waited for.
          const answer = await replica.query('SELECT MASTER_GTID_WAIT(?, ?) AS r', [pos, timeoutSeconds]).catch(() => null);
          if (answer && Number(answer[0].r) !== 0)
            throw new Error(`replica on port ${replica.port} did not reach ${pos} within ${timeoutSeconds} s`);
        }
      },
      stop,
    };
    await pair.waitForReplica();
    return pair;
  } catch (err) {
    await stop();
    throw err;
  }
}
