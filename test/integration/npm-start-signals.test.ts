import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { tempDir } from '../helpers/kernel.js';
import { childEnv } from '../helpers/cli-instance.js';

/**
 * `npm start` as an operator (or a process supervisor) runs it: a signal sent to the npm process must
 * stop the server. npm runs a script through `sh -c`; without `exec` the shell dies on the signal and
 * the node server behind it keeps running as an orphan, still holding its port.
 */

interface NpmStart {
  npm: ChildProcess;
  url: string;
  port: number;
  /** The pid of the node server (from its own log line), a descendant of npm. */
  serverPid: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether something accepts TCP connections on 127.0.0.1:port. */
const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The parent pid of a process (Linux /proc), or null where /proc is not available. */
const parentOf = (pid: number): number | null => {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return null;
  const text = readFileSync(stat, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
};

const isDescendant = (pid: number, ancestor: number): boolean => {
  for (let p: number | null = pid, hops = 0; p && p > 1 && hops < 10; p = parentOf(p), hops++) if (p === ancestor) return true;
  return false;
};

describe('npm start: signals to npm stop the server', function () {
  this.timeout(90000);
  const cleanup: string[] = [];
  const started: NpmStart[] = [];

  afterEach(() => {
    for (const s of started.splice(0)) {
      // Whatever the outcome, nothing this test started keeps running: by pid, never by name.
      if (s.npm.exitCode === null && s.npm.signalCode === null) s.npm.kill('SIGKILL');
      if (alive(s.serverPid)) process.kill(s.serverPid, 'SIGKILL');
    }
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function npmStart(): Promise<NpmStart> {
    const dataDir = tempDir('cms-npm-start-');
    cleanup.push(dataDir);
    const npm = spawn('npm', ['start'], {
      cwd: PROJECT_ROOT,
      env: {
        ...childEnv(dataDir),
        LOG_LEVEL: 'info',
        CMS_POOL_MAX_THREADS: '1',
        CMS_SETUP_ADMIN_EMAIL: 'admin@example.com',
        CMS_SETUP_ADMIN_PASSWORD: 'a long enough password',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    npm.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const deadline = Date.now() + 45000;
    let url: string | undefined;
    let serverPid: number | undefined;
    while (Date.now() < deadline && npm.exitCode === null) {
      url ??= /CMS listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      // The server's own log line carries its pid (pino's base field).
      serverPid ??= Number(/"pid":(\d+)[^\n]*"msg":"listening/.exec(out)?.[1]) || undefined;
      if (url && serverPid) break;
      await sleep(50);
    }
    if (!url || !serverPid) {
      npm.kill('SIGKILL');
      throw new Error(`npm start did not print its URL and server pid within 45 s; output:\n${out}`);
    }
    const s: NpmStart = { npm, url, port: Number(new URL(url).port), serverPid, output: () => out, exited };
    started.push(s);
    return s;
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process stops the node server: its process is gone and its port is closed`, async function () {
      const s = await npmStart();
      const health = await fetch(`${s.url}/api/health`);
      expect(health.status).to.equal(200);
      expect(((await health.json()) as { data: { status: string } }).data.status).to.equal('ok');
      expect(alive(s.serverPid), 'the server process runs').to.equal(true);
      if (parentOf(s.npm.pid!) !== null) expect(isDescendant(s.serverPid, s.npm.pid!), 'the server is started by npm').to.equal(true);

      s.npm.kill(signal);

      // Bounded: npm itself ends, then the server process and its port are gone.
      const npmExit = await Promise.race([s.exited, sleep(30000).then(() => 'timeout' as const)]);
      expect(npmExit, `npm did not exit within 30 s after ${signal}; output:\n${s.output()}`).not.to.equal('timeout');
      const deadline = Date.now() + 30000;
      while (Date.now() < deadline && (alive(s.serverPid) || (await accepting(s.port)))) await sleep(100);
      expect(alive(s.serverPid), `the node server (pid ${s.serverPid}) still runs after ${signal} to npm; output:\n${s.output()}`).to.equal(
        false,
      );
      expect(await accepting(s.port), `port ${s.port} still accepts connections`).to.equal(false);
      // It shut down cleanly (not killed): the kernel logged its shutdown.
      expect(s.output()).to.contain(`"signal":"${signal}"`);
      expect(s.output()).to.contain('"msg":"shutting down"');
    });
  }
});
