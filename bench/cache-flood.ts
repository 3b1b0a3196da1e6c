/**
 * Cache-flood case of `npm run bench` (called from bench/run.ts, or alone with `node dist/bench/cache-flood.js`):
 * (15) a client sends a unique list query on every request (`?limit=100&filter={"title":{"ne":"<n>"}}`, so
 * every answer is a full page of 100 posts of ~4 KiB, ~450 KiB of JSON, and a new cache entry), 50 connections for BENCH_SECONDS
 * (default 8 s). Prints the server's RSS before, at its peak, 2 s and 10 s after the flood, and the cache's
 * own figures (GET /api/system/cache): with a bounded memory store, the RSS holds near the configured
 * bound instead of growing with every distinct query. Own kernel and data folder, memory cache (no Redis).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DIST_ROOT } from '../kernel/version.js';
import { CONNECTIONS, SECONDS, signIn, startChild, stop } from './harness.js';
import { benchKernelEnv } from './seed-posts.js';

const MiB = 1024 * 1024;
/** The flood kernel's cache bounds (small, so an 8 s flood on a slow machine passes them): store and list layer. */
const STORE_MB = Number(process.env.BENCH_FLOOD_CACHE_MB ?? 16);
const LOCAL_MB = Math.max(1, Math.round(STORE_MB / 4));
const mb = (n: number) => `${Math.round(n / MiB)} MiB`;

function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

async function seed(url: string, cookie: string, count: number): Promise<void> {
  for (let batch = 0; batch < count / 100; batch++) {
    const entries = Array.from({ length: 100 }, (_, i) => ({
      title: `Flood post ${batch * 100 + i}`,
      excerpt: 'A short summary of the post.',
      body: '<p>'.concat('Lorem ipsum dolor sit amet. '.repeat(150), '</p>'),
      tags: ['bench', `batch-${batch}`],
      status: 'published',
    }));
    const res = await fetch(`${url}/api/collections/posts/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ entries }),
    });
    if (!res.ok) throw new Error(`seeding: ${res.status} ${await res.text()}`);
  }
}

interface Bound {
  bytes: number;
  maxBytes: number;
  evictions: number;
}

async function cacheFigures(url: string, cookie: string): Promise<string> {
  const res = await fetch(`${url}/api/system/cache`, { headers: { cookie } });
  if (!res.ok) return `cache figures: ${res.status}`;
  const { data } = (await res.json()) as {
    data: { overall: { size: number }; memory?: Bound; local?: Bound };
  };
  const m = data.memory;
  const l = data.local;
  return m && l
    ? `cache: ${data.overall.size} keys, store ${mb(m.bytes)} of ${mb(m.maxBytes)} counted (${m.evictions} evicted), list layer ${mb(l.bytes)} of ${mb(l.maxBytes)} (${l.evictions} evicted)`
    : `cache: ${data.overall.size} keys (no byte bound)`;
}

export async function runCacheFloodBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-flood-'));
  const env = {
    ...benchKernelEnv(dataDir),
    CMS_CACHE_MAX_MB: String(STORE_MB),
    CMS_CACHE_LOCAL_MAX_MB: String(LOCAL_MB),
  };
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], env, dataDir);
  const pid = kernel.child.pid!;
  try {
    const cookie = await signIn(kernel.url);
    await seed(kernel.url, cookie, 200);
    let n = 0;
    const path = () => `/api/collections/posts?limit=100&filter=${encodeURIComponent(JSON.stringify({ title: { ne: `q${n++}` } }))}`;
    // Warm-up: the same few queries, so the code paths are compiled before "before" is read.
    await autocannon({ url: `${kernel.url}/api/collections/posts?limit=100`, connections: 10, duration: 2, headers: { cookie } });
    const before = rssOf(pid);
    let peak = before;
    const poll = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
    let result: autocannon.Result;
    try {
      result = await autocannon({
        url: kernel.url,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { cookie },
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
      });
    } finally {
      clearInterval(poll);
    }
    peak = Math.max(peak, rssOf(pid));
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssOf(pid);
    // V8 returns memory after some idle seconds (its memory reducer): what stays is what is held.
    await new Promise((r) => setTimeout(r, 8000));
    const settled = rssOf(pid);
    console.log(
      `\n## 15. Unique-query flood: GET /api/collections/posts?limit=100&filter=<unique> (200 posts of ~4 KiB, session cookie, memory cache bounded at ${STORE_MB} MiB + ${LOCAL_MB} MiB list layer)`,
    );
    console.log(
      `${result.requests.total} requests (${Math.round(result.requests.average)} req/s, errors ${result.errors + result['4xx'] + result['5xx']}), ${n} distinct queries`,
    );
    console.log(
      `server RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)}), 2 s after ${mb(after)}, 10 s after ${mb(settled)}`,
    );
    console.log(await cacheFigures(kernel.url, cookie));
  } finally {
    await stop(kernel.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runCacheFloodBench();
