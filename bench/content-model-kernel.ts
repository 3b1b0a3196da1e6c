/**
 * What the content-model cases (bench/content-model.ts) share: a kernel in this process on SQLite or on a fresh
 * MariaDB database (the list cache off, so every list reads the database), a signed-in JSON client, a counter of
 * the SQL statements the database runs, and percentiles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import type { Sequelize } from 'sequelize';
import { loadConfig } from '../kernel/config.js';
import { createKernel, type Kernel } from '../kernel/index.js';
import { createLogger } from '../kernel/logger.js';
import { signIn } from './harness.js';
import { benchKernelEnv } from './seed-posts.js';

export const MARIADB_URL = process.env.BENCH_MARIADB_URL ?? process.env.CMS_TEST_MARIADB_URL ?? '';

export type Db = 'sqlite' | 'mariadb';

export interface BenchKernel {
  kernel: Kernel;
  url: string;
  sequelize: Sequelize;
  call: (path: string, init?: { method?: string; json?: unknown }) => Promise<any>;
  close(): Promise<void>;
  /** Closes the kernel and boots another on the same data (and signs in again), with the list cache on or off (default: as before). */
  restart(listCache?: boolean): Promise<BenchKernel>;
}

/** A fresh MariaDB database on the server of MARIADB_URL: its URL and a drop function. */
async function mariadbDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(MARIADB_URL);
  const server = {
    host: base.hostname,
    port: Number(base.port || 3306),
    user: decodeURIComponent(base.username || 'root'),
    password: decodeURIComponent(base.password),
  };
  const name = `cms_bench_${Date.now().toString(36)}`;
  const run = async (sql: string) => {
    const conn = await mariadb.createConnection(server);
    try {
      await conn.query(sql);
    } finally {
      await conn.end();
    }
  };
  await run(`CREATE DATABASE \`${name}\``);
  const url = new URL(MARIADB_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``) };
}

/** Boots a kernel in this process (headless setup admin, list cache off) and signs in as its admin. */
export async function startBenchKernel(
  db: Db,
  same?: { dataDir: string; maria?: { url: string; drop(): Promise<void> } },
  /** The list cache on (else off: every list reads the database). */
  listCache = false,
): Promise<BenchKernel> {
  const dataDir = same?.dataDir ?? mkdtempSync(join(tmpdir(), 'cms-bench-model-'));
  const maria = same ? same.maria : db === 'mariadb' ? await mariadbDatabase() : undefined;
  const env = { ...benchKernelEnv(dataDir), LOG_LEVEL: 'error' };
  const config = loadConfig({
    ignoreFile: true,
    env,
    overrides: {
      db: maria ? { url: maria.url } : { type: 'sqlite', storage: 'cms.sqlite' },
      // maxListOffset: the scale bench measures deep pages by number (the middle page).
      plugins: { options: { content: { listCache, maxListOffset: 10_000_000 } } },
    },
  });
  const kernel = createKernel({ config, env, logger: createLogger('error') });
  await kernel.start();
  const url = kernel.url;
  const cookie = await signIn(url);
  const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: { cookie, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const body = (await res.json()) as { data: any };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.data;
  };
  return {
    kernel,
    url,
    sequelize: kernel.container.resolve<Sequelize>('sequelize'),
    call,
    async close() {
      await kernel.close();
      await maria?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    async restart(next = listCache) {
      await kernel.close();
      return startBenchKernel(db, { dataDir, maria }, next);
    },
  };
}

// The statement counter the populate test uses too (SQLite's trace hook, Sequelize's logging hook on MariaDB).
export { countStatements } from '../test/helpers/sql-statements.js';

/** The p-th percentile (0-100) of the values, in their unit. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Milliseconds `work` takes. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Wall milliseconds `work` takes and the CPU milliseconds (user + system, every thread of this process) it uses. */
export async function cpuTimed(work: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const wall = await timed(work);
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

export const ms = (n: number) => `${n.toFixed(2)} ms`;
