/**
 * Startup case of `npm run bench` (called from bench/run.ts, or alone with `node dist/bench/startup.js`):
 * (0) the kernel (SQLite, in-memory cache, local media) started STARTUP_RUNS times (default 3) against a
 * bare Koa server started the same way: median time from spawn to the first 200 on /api/health, and the
 * resident set size (/proc VmRSS) IDLE_SECONDS (default 10) after that first 200.
 * Each kernel run uses a fresh data directory (the first start of an empty directory migrates it) and
 * a second start on the same directory (the usual restart: migrations already applied) is reported too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratio, stop } from './harness.js';
import { childNodeArgs } from './node-args.js';
import { DIST_ROOT } from '../kernel/version.js';

const RUNS = Number(process.env.STARTUP_RUNS ?? 3);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 10);
const MiB = 1024 * 1024;

const rssOf = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns `node <args>`, polls /api/health on the port it prints until a 200; ms to that 200 and the RSS after the idle wait. */
async function startOnce(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ ms: number; rss: number }> {
  const nodeArgs = childNodeArgs(args[0]!);
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${args[0]} did not start in 30 s`)), 30000);
      child.stdout!.on('data', (chunk: Buffer) => {
        if (out === null) return;
        out += chunk.toString();
        const m = /listening on (http:\/\/[\d.:]+)/i.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
    });
    let ms = 0;
    for (let i = 0; i < 3000; i++) {
      const res = await fetch(`${url}/api/health`).catch(() => null);
      if (res?.status === 200) {
        ms = performance.now() - started;
        break;
      }
      await sleep(5);
    }
    if (!ms) throw new Error(`${args[0]}: no 200 on /api/health`);
    await sleep(IDLE_SECONDS * 1000);
    return { ms, rss: rssOf(child.pid!) };
  } finally {
    await stop(child);
  }
}

export async function runStartupBench(): Promise<void> {
  console.log(
    `\n## 0. Cold start and idle memory: spawn to first 200 on /api/health, and VmRSS ${IDLE_SECONDS} s later (median of ${RUNS} starts)`,
  );
  const kernelEnv = (dataDir: string) => ({
    CMS_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
    DB_TYPE: 'sqlite',
    MEDIA_STORAGE_TYPE: 'local',
    CMS_SETUP_ADMIN_EMAIL: 'bench@example.com',
    CMS_SETUP_ADMIN_PASSWORD: 'benchmark password',
  });
  const bare: { ms: number; rss: number }[] = [];
  const fresh: { ms: number; rss: number }[] = [];
  const restart: { ms: number; rss: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-start-'));
    try {
      bare.push(await startOnce([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, dataDir));
      fresh.push(await startOnce([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv(dataDir), dataDir));
      restart.push(await startOnce([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv(dataDir), dataDir));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const row = (label: string, xs: { ms: number; rss: number }[]) =>
    console.log(
      `${label.padEnd(44)} first 200 after ${String(Math.round(median(xs.map((x) => x.ms)))).padStart(5)} ms   idle RSS ${String(Math.round(median(xs.map((x) => x.rss)) / MiB)).padStart(4)} MiB`,
    );
  row('bare Koa', bare);
  row('kernel, empty data directory (migrates)', fresh);
  row('kernel, restart (migrations applied)', restart);
  const m = (xs: { ms: number; rss: number }[], k: 'ms' | 'rss') => median(xs.map((x) => x[k]));
  console.log(
    `ratio kernel restart/bare: start ${ratio(m(restart, 'ms'), m(bare, 'ms'))}, idle RSS ${ratio(m(restart, 'rss'), m(bare, 'rss'))}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStartupBench();
