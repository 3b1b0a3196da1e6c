/**
 * Pipeline case of `npm run bench` (group `pipeline`, case 25; or `node dist/bench/pipeline-cpu.js` after a build),
 * issue 40 item 4: the CPU time a server process spends per request, read from /proc/<pid>/stat (Linux), for
 * GET /api/health on the kernel and a list answered 304 (website token, If-None-Match) against the bare Koa hello
 * (bench/bare-koa.ts, the same JSON as health). On a shared machine other processes take wall time from a server,
 * not CPU time, so these ratios are steadier than req/s. Each round sends BENCH_PIPELINE_REQUESTS (default 20,000)
 * requests per case over 10 connections, the three cases in a rotated order; BENCH_PIPELINE_ROUNDS (default 3)
 * rounds. Prints µs of CPU per request (the sum over rounds), the wall req/s, and the ratios hello/kernel (a
 * ratio of 0.5 means the kernel could answer half as many requests a second as bare Koa on the same CPU).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DIST_ROOT } from '../kernel/version.js';
import { startChild, stop } from './harness.js';
import { benchKernelEnv, seedPosts } from './seed-posts.js';

const REQUESTS = Number(process.env.BENCH_PIPELINE_REQUESTS ?? 20000);
const ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 3);

/** User + system CPU time of a process in ms (clock ticks of 10 ms), or NaN off Linux. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface Case {
  name: string;
  pid: number;
  url: string;
  headers?: Record<string, string>;
  status: number;
  cpuMs: number;
  wallMs: number;
  done: number;
  wrong: number;
}

async function measure(c: Case): Promise<void> {
  const before = cpuMsOf(c.pid);
  const started = performance.now();
  const r = await autocannon({ url: c.url, connections: 10, amount: REQUESTS, headers: c.headers });
  c.wallMs += performance.now() - started;
  c.cpuMs += cpuMsOf(c.pid) - before;
  c.done += r.requests.total;
  const expected = c.status === 304 ? r['3xx'] : r['2xx'];
  c.wrong += r.errors + r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'] - expected;
}

export async function runPipelineBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-pipeline-'));
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], benchKernelEnv(dataDir), dataDir);
  let bare: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    bare = await startChild([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, dataDir);
    const { token } = await seedPosts(kernel.url);
    const auth = { authorization: `Bearer ${token}` };
    const listUrl = `${kernel.url}/api/collections/posts?limit=20`;
    const first = await fetch(listUrl, { headers: auth });
    const etag = first.headers.get('etag') ?? '';
    const check = await fetch(listUrl, { headers: { ...auth, 'if-none-match': etag } });
    if (check.status !== 304) throw new Error(`the conditional list answered ${check.status}, not 304`);
    const blank = { cpuMs: 0, wallMs: 0, done: 0, wrong: 0 };
    const hello: Case = { name: 'bare Koa hello', pid: bare.child.pid!, url: `${bare.url}/api/health`, status: 200, ...blank };
    const health: Case = { name: 'kernel GET /api/health', pid: kernel.child.pid!, url: `${kernel.url}/api/health`, status: 200, ...blank };
    const notModified: Case = {
      name: 'kernel list 304 (token, If-None-Match)',
      pid: kernel.child.pid!,
      url: listUrl,
      headers: { ...auth, 'if-none-match': etag },
      status: 304,
      ...blank,
    };
    const cases = [hello, health, notModified];
    // Warm-up (JIT, caches), not reported.
    for (const c of cases) await autocannon({ url: c.url, connections: 10, amount: Math.round(REQUESTS / 4), headers: c.headers });
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < cases.length; i++) await measure(cases[(i + round) % cases.length]!);
    }
    console.log(`\n## 25. Pipeline CPU per request (${ROUNDS} rounds of ${REQUESTS} requests per case, 10 connections)`);
    const perRequest = (c: Case) => (c.cpuMs * 1000) / Math.max(1, c.done);
    for (const c of cases) {
      const rps = Math.round((c.done / c.wallMs) * 1000);
      console.log(
        `${c.name.padEnd(44)} ${perRequest(c).toFixed(1).padStart(7)} µs CPU/request   ${String(rps).padStart(6)} req/s   wrong answers ${c.wrong}`,
      );
    }
    const cpuRatio = (c: Case) => (perRequest(hello) / perRequest(c)).toFixed(2);
    const rpsRatio = (c: Case) => ((c.done / c.wallMs / (hello.done / hello.wallMs)) as number).toFixed(2);
    console.log(`ratio health/hello: CPU ${cpuRatio(health)} (hello's CPU per request / health's), throughput ${rpsRatio(health)}`);
    console.log(`ratio 304/hello: CPU ${cpuRatio(notModified)}, throughput ${rpsRatio(notModified)}`);
  } finally {
    await Promise.all([stop(kernel.child), bare && stop(bare.child)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runPipelineBench();
