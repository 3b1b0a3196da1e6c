import { createWriteStream } from 'node:fs';
/** What every bench file shares: child servers, bounded autocannon loads, and the printed figures. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import autocannon from 'autocannon';
import { childNodeArgs } from './node-args.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const CONNECTIONS = 50;
const MiB = 1024 * 1024;

export interface Figures {
  rps: number;
  p99: number;
  errors: number;
  /** Average throughput in MiB/s. */
  mbps: number;
}

/** Starts `node <args>` and resolves once it prints "listening on http://...". */
export function startChild(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const nodeArgs = childNodeArgs(args[0]!);
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      env: { ...process.env, ...env },
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // A server that did not start is stopped, so a caller that tries again does not leave it running.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args[0]} did not start in 30 s`));
    }, 30000);
    let out: string | null = '';
    // BENCH_CHILD_LOG=<file>: the servers' log lines are appended there (with CMS_LOG_SLOW_SQL_MS, the slow statements).
    const log = process.env.BENCH_CHILD_LOG ? createWriteStream(process.env.BENCH_CHILD_LOG, { flags: 'a' }) : null;
    child.stdout!.on('data', (chunk: Buffer) => {
      log?.write(chunk);
      if (out === null) return;
      out += chunk.toString();
      const m = /listening on (http:\/\/[\d.:]+)/i.exec(out);
      if (m) {
        out = null;
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** One load case of SECONDS; 304 Not Modified counts as a success (conditional requests). */
export async function load(
  url: string,
  opts: { method?: 'GET' | 'POST'; connections?: number; headers?: Record<string, string> } = {},
): Promise<Figures> {
  const r = await autocannon({
    url,
    method: opts.method ?? 'GET',
    connections: opts.connections ?? CONNECTIONS,
    duration: SECONDS,
    headers: opts.headers,
  });
  return {
    rps: Math.round(r.requests.average),
    p99: r.latency.p99,
    errors: r.errors + r['4xx'] + r['5xx'],
    mbps: Math.round((r.throughput.average / MiB) * 10) / 10,
  };
}

export const line = (label: string, f: Figures, extra = '') =>
  console.log(`${label.padEnd(44)} ${String(f.rps).padStart(7)} req/s   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}${extra}`);
/** A small seeded generator (mulberry32): the same sequence every run (generated files, shuffled orders). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');

/** Sign-in of the headless-setup admin the bench kernels are started with: the session cookie. */
export async function signIn(url: string): Promise<string> {
  const login = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))
    ?.split(';')[0];
  if (!cookie) throw new Error(`bench sign-in failed: ${login.status}`);
  return cookie;
}

/**
 * A multipart POST /api/media/upload of one text/plain file of `size` bytes, streamed: `send` writes the
 * file's bytes after the part's head and ends the request with `tail`. Gives up after `timeoutMs`.
 */
export function streamUpload(
  url: string,
  cookie: string,
  file: { name: string; size: number; timeoutMs: number },
  send: (req: ClientRequest, tail: Buffer) => void,
): Promise<{ status: number; body: string }> {
  const boundary = `----cmsbench${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const target = new URL('/api/media/upload', url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        timeout: file.timeoutMs,
        headers: {
          cookie,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + file.size + tail.length,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    const minutes = file.timeoutMs / 60000;
    req.on('timeout', () => req.destroy(new Error(`upload of ${file.name} did not finish in ${minutes} minutes`)));
    req.on('error', reject);
    req.write(head);
    send(req, tail);
  });
}
