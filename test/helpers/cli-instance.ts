import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { tempDir } from './kernel.js';

/**
 * A second, separate instance for tests that need two (content packages from one instance imported
 * into another): `node dist/kernel/cli.js start` in its own process with its own data folder and
 * SQLite database on a free 127.0.0.1 port, set up headlessly with an admin (CLI_ADMIN). Two kernels in
 * one process would share Sequelize model classes, so the second one is always a process.
 */
export const CLI_ADMIN = { email: 'second@example.com', password: 'second instance password' };

export interface CliInstance {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Session cookie of CLI_ADMIN (`session=...`). */
  signIn(): Promise<string>;
  stop(): Promise<void>;
}

/** The environment of a server started as a child process: only PATH and HOME of ours, its data folder, a free port on 127.0.0.1. */
export function childEnv(dataDir: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CMS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
}

export async function startCliInstance(env: Record<string, string> = {}): Promise<CliInstance> {
  const dataDir = tempDir('cms-cli-instance-');
  const child = spawn(process.execPath, [join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], {
    cwd: PROJECT_ROOT,
    env: {
      ...childEnv(dataDir),
      LOG_LEVEL: 'warn',
      DB_TYPE: 'sqlite',
      REDIS_URL: '',
      CMS_RATE_LIMIT_ENABLED: 'false',
      CMS_SETUP_ADMIN_EMAIL: CLI_ADMIN.email,
      CMS_SETUP_ADMIN_PASSWORD: CLI_ADMIN.password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the second instance did not start in 30 s:\n${output.slice(-2000)}`)), 30000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 64 * 1024) output = output.slice(-32 * 1024);
      const m = /listening on (http:\/\/[\d.:]+)/i.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the second instance exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    async signIn() {
      const res = await fetch(`${url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(CLI_ADMIN),
      });
      const cookie = res.headers
        .getSetCookie()
        .find((c) => c.startsWith('session='))
        ?.split(';')[0];
      if (!cookie) throw new Error(`sign-in on the second instance failed: ${res.status} ${await res.text()}`);
      return cookie;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
