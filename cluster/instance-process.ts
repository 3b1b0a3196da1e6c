import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { DIST_ROOT, PROJECT_ROOT } from '../kernel/version.js';

export interface InstanceProcess {
  /** 1-based, as printed. */
  index: number;
  url: string;
  port: number;
  /** Pid of the running process (changes on restart), null while stopped. */
  pid: number | null;
  /** Where the instance's stdout and stderr go (appended across restarts). */
  logFile: string;
  /** Its own data folder (CMS_DATA_DIR: private config, mail outbox without SMTP); nothing shared lives there. */
  dataDir: string;
  /** Sends the signal and resolves when the process has exited (its exit code or signal). */
  kill(signal?: NodeJS.Signals): Promise<string>;
  /** Stops the process (SIGTERM, unless it has already exited) and starts it again on the same port; resolves when it is ready. */
  restart(): Promise<void>;
  running(): boolean;
}

export interface InstanceSpec {
  index: number;
  env: Record<string, string>;
  logFile: string;
  /** How long start-up (to a 200 from the readiness probe) may take. */
  startTimeoutMs?: number;
}

/** `node dist/kernel/cli.js start` as a child process on 127.0.0.1, its output appended to logFile. */
export async function startInstance(spec: InstanceSpec): Promise<InstanceProcess> {
  const log: WriteStream = createWriteStream(spec.logFile, { flags: 'a' });
  let child: ChildProcess | null = null;
  let port = Number(spec.env.PORT ?? 0);
  const launch = async (): Promise<void> => {
    const proc = spawn(process.execPath, [join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...spec.env, HOST: '127.0.0.1', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let tail = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`instance ${spec.index} did not listen in time:\n${tail.slice(-2000)}`));
      }, spec.startTimeoutMs ?? 60000);
      const onData = (chunk: Buffer) => {
        log.write(chunk);
        tail = (tail + chunk.toString()).slice(-16 * 1024);
        // pino's 'listening' line comes at the start of the boot (the server answers 503 until READY).
        const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(tail) ?? /listening on (http:\/\/127\.0\.0\.1:\d+)/i.exec(tail);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`instance ${spec.index} exited (${code ?? signal}) before listening:\n${tail.slice(-2000)}`));
      });
    });
    port = Number(new URL(url).port);
    await waitReady(url, spec.startTimeoutMs ?? 60000, () => proc.exitCode !== null || proc.signalCode !== null);
  };
  await launch();
  const running = () => child !== null && child.exitCode === null && child.signalCode === null;
  const instance: InstanceProcess = {
    index: spec.index,
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get pid() {
      return running() ? (child!.pid ?? null) : null;
    },
    logFile: spec.logFile,
    dataDir: spec.env.CMS_DATA_DIR ?? '',
    running,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      const proc = child;
      if (!proc) return 'not started';
      if (proc.exitCode !== null || proc.signalCode !== null) return String(proc.exitCode ?? proc.signalCode);
      const exited = new Promise<string>((resolve) => proc.once('exit', (code, sig) => resolve(String(code ?? sig))));
      proc.kill(signal);
      // A process that ignores SIGTERM past its own shutdown bound is killed.
      const force = setTimeout(() => proc.kill('SIGKILL'), 60000);
      const outcome = await exited;
      clearTimeout(force);
      return outcome;
    },
    async restart() {
      await instance.kill('SIGTERM');
      await launch();
    },
  };
  return instance;
}

/** Polls GET /api/health/ready until 200; fails early when the process has exited. */
export async function waitReady(url: string, timeoutMs: number, exited: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`the instance at ${url} exited while starting`);
    try {
      const res = await fetch(`${url}/api/health/ready`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the instance at ${url} was not ready within ${timeoutMs} ms`);
}
