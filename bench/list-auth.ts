/**
 * Bench case 2 alone (`node dist/bench/list-auth.js`): GET /api/collections/posts?limit=20 (1,000 entries,
 * cached list) with a website token and with a session cookie, against the bare Koa health server, in one
 * run; BENCH_ROUNDS rounds (default 2) of BENCH_SECONDS each. Besides req/s and p99 it prints the kernel
 * process's CPU time per request (user + system from /proc/<pid>/stat over the load), which is steadier
 * than req/s on a shared machine. `BENCH_LIST_CASES=token` loads only the token case (for a CPU profile of
 * that path: BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof", then `node dist/bench/cpu-top.js`).
 * `uncached` (not in the default list) loads `?limit=20&page=7` with the website token on a second kernel on the same
 * data with the list cache off (CMS_CONTENT_LIST_CACHE=false), so every request reads SQLite;
 * every case also prints its ratio to the Koa stack list (bench/koa-stack-list.ts) of the same round.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_ROOT } from '../kernel/version.js';
import { CONNECTIONS, SECONDS, line, load, ratio, startChild, stop, type Figures } from './harness.js';
import { benchKernelEnv, seedPosts } from './seed-posts.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CASES = (process.env.BENCH_LIST_CASES ?? 'token,cookie').split(',');

/** CPU time (user + system) the process has used so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measured(pid: number, url: string, headers: Record<string, string>): Promise<Figures & { cpuPerReq: number }> {
  const before = cpuMs(pid);
  const f = await load(url, { headers });
  const requests = f.rps * SECONDS;
  return { ...f, cpuPerReq: requests > 0 ? (cpuMs(pid) - before) / requests : 0 };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-list-'));
  console.log(`# list-auth bench ${new Date().toISOString()}  ${SECONDS}s per case, ${CONNECTIONS} connections, ${ROUNDS} rounds\n`);
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], benchKernelEnv(dataDir), dataDir);
  const bare = await startChild([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, dataDir);
  const stack = await startChild([join(DIST_ROOT, 'bench', 'koa-stack-list.js')], { BENCH_KOA_TOKEN: 'bench-token' }, dataDir);
  const stackList = `${stack.url}/api/collections/posts?limit=20`;
  const stackAuth = { authorization: 'Bearer bench-token' };
  let nocache: Awaited<ReturnType<typeof startChild>> | null = null;
  try {
    const { token, cookie } = await seedPosts(kernel.url);
    const listUrl = `${kernel.url}/api/collections/posts?limit=20`;
    const byCase: Record<string, Record<string, string>> = {
      token: { authorization: `Bearer ${token}` },
      cookie: { cookie },
      uncached: { authorization: `Bearer ${token}` },
    };
    const labels: Record<string, string> = { token: 'website token', cookie: 'session cookie', uncached: 'page 7 not cached, token' };
    await load(stackList, { connections: 10, headers: stackAuth }); // warm-up, not reported
    nocache = CASES.includes('uncached')
      ? await startChild(
          [join(DIST_ROOT, 'kernel', 'cli.js'), 'start'],
          { ...benchKernelEnv(dataDir), CMS_CONTENT_LIST_CACHE: 'false' },
          dataDir,
        )
      : null;
    const urlOf = (c: string) => (c === 'uncached' ? `${nocache!.url}/api/collections/posts?limit=20&page=7` : listUrl);
    const pidOf = (c: string) => (c === 'uncached' ? nocache!.child.pid! : kernel.child.pid!);
    for (const c of CASES) await load(urlOf(c), { connections: 10, headers: byCase[c] }); // warm-up, not reported
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`## round ${round}: GET /api/collections/posts?limit=20 (cached; uncached: page 7, list cache off)`);
      const bareFig = await load(`${bare.url}/api/health`);
      line('bare Koa (health JSON)', bareFig);
      const stackFig = await measured(stack.child.pid!, stackList, stackAuth);
      line('Koa stack list', stackFig, `   server CPU ${stackFig.cpuPerReq.toFixed(3)} ms/req`);
      for (const c of CASES) {
        const f = await measured(pidOf(c), urlOf(c), byCase[c]!);
        line(`list, ${labels[c] ?? c}`, f, `   server CPU ${f.cpuPerReq.toFixed(3)} ms/req`);
        console.log(`ratio list (${c})/bare: throughput ${ratio(f.rps, bareFig.rps)}; /Koa stack list: ${ratio(f.rps, stackFig.rps)}`);
      }
      console.log('');
    }
  } finally {
    await Promise.all([stop(kernel.child), stop(bare.child), stop(stack.child), ...(nocache ? [stop(nocache.child)] : [])]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
