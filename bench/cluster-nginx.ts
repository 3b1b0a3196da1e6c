/**
 * nginx case of `npm run bench` (25, group `nginx`; also `node dist/bench/cluster-nginx.js` alone), issue 41: the cached
 * list of 20 with a website token through nginx (cluster/nginx-proxy.ts, the deployment guide's configuration,
 * one worker) with 1, 2 and 3 instances behind it, against the same list read directly from one instance, and through
 * the harness's test proxy with 1 instance, in the same run. Besides req/s it prints the CPU time per request of each
 * process (utime + stime from /proc/<pid>/stat over the load): every instance, nginx (master and workers) and the load
 * generator (this process), so the proxy's own cost shows apart from what the 2 cores shared by everything allow.
 * Needs MariaDB, Redis (BENCH_MARIADB_URL, BENCH_REDIS_URL, defaults the CI's) and nginx; skipped, saying so, otherwise.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findNginx, type NginxProxy } from '../cluster/nginx-proxy.js';
import { startRoundRobinProxy } from '../cluster/round-robin-proxy.js';
import { startCluster, type Cluster } from '../cluster/start-cluster.js';
import { line, load, ratio, SECONDS, type Figures } from './harness.js';
import { seedPosts } from './seed-posts.js';

const MARIADB_URL = process.env.BENCH_MARIADB_URL ?? process.env.CMS_TEST_MARIADB_URL ?? 'mariadb://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.CMS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (ms) a process has used so far: utime + stime of /proc/<pid>/stat (0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

const selfMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Measured extends Figures {
  /** CPU ms per request: each instance given, nginx, the load generator. */
  perInstance: number[];
  proxy: number;
  loader: number;
}

/** One load with the CPU each process spent on it, per request. */
async function measured(url: string, headers: Record<string, string>, instancePids: number[], proxyPids: () => number[]) {
  const before = { inst: instancePids.map(cpuMs), proxy: new Map(proxyPids().map((pid) => [pid, cpuMs(pid)])), self: selfMs() };
  const f = await load(url, { headers });
  const requests = Math.max(1, f.rps * SECONDS);
  const perReq = (ms: number) => ms / requests;
  return {
    ...f,
    perInstance: instancePids.map((pid, i) => perReq(cpuMs(pid) - before.inst[i]!)),
    // Processes alive at the end (a worker that exited meanwhile is not counted; one that started counts from 0).
    proxy: perReq(proxyPids().reduce((sum, pid) => sum + cpuMs(pid) - (before.proxy.get(pid) ?? 0), 0)),
    loader: perReq(selfMs() - before.self),
  } satisfies Measured;
}

const ms = (n: number) => n.toFixed(3);
const cpu = (m: Measured, proxyName: string) =>
  `   CPU ms/req: instance${m.perInstance.length > 1 ? 's' : ''} ${m.perInstance.map(ms).join(' + ')}` +
  `${proxyName ? `, ${proxyName} ${ms(m.proxy)}` : ''}, load generator ${ms(m.loader)}`;

async function cases(cluster: Cluster, nginx: NginxProxy): Promise<void> {
  const { token } = await seedPosts(cluster.url);
  const headers = { authorization: `Bearer ${token}` };
  const path = '/api/collections/posts?limit=20';
  const urls = cluster.instances.map((i) => i.url);
  const pids = cluster.instances.map((i) => i.pid!);
  for (const u of urls) await load(`${u}${path}`, { connections: 10, headers }); // warm-up (fills each list cache)
  const direct = await measured(`${urls[0]}${path}`, headers, pids.slice(0, 1), () => []);
  line('one instance, direct (no proxy)', direct, cpu(direct, ''));
  const through: Measured[] = [];
  for (const n of [1, 2, 3]) {
    nginx.setUpstreams(urls.slice(0, n));
    await nginx.checkNow();
    await load(`${nginx.url}${path}`, { connections: 10, headers }); // warm-up (nginx's connections to the instances)
    const f = await measured(`${nginx.url}${path}`, headers, pids.slice(0, n), () => nginx.pids());
    through.push(f);
    line(`through nginx, ${n} instance${n > 1 ? 's' : ''}`, f, cpu(f, 'nginx'));
  }
  const test = await startRoundRobinProxy({ upstreams: [urls[0]!] });
  let viaTest: Measured;
  try {
    viaTest = await measured(`${test.url}${path}`, headers, pids.slice(0, 1), () => []);
  } finally {
    await test.close();
  }
  line('through the test proxy, 1 instance', viaTest, `${cpu(viaTest, '')} (the proxy runs in the load generator)`);
  const sum = (m: Measured) => m.perInstance.reduce((a, b) => a + b, 0);
  console.log(
    `ratio nginx with 1 instance / direct: throughput ${ratio(through[0]!.rps, direct.rps)} (goal at least 0.8), p99 ${ratio(through[0]!.p99, direct.p99)}; test proxy / direct: ${ratio(viaTest.rps, direct.rps)}`,
  );
  console.log(
    `nginx's own cost: ${ms(through[0]!.proxy)} CPU ms per request (${ratio(through[0]!.proxy, sum(direct))} of an instance's ${ms(sum(direct))}); instances' CPU per request with 1, 2, 3 behind nginx: ${through.map((m) => ms(sum(m))).join(', ')}`,
  );
  console.log(
    `ratio 3 instances / 1 instance through nginx: throughput ${ratio(through[2]!.rps, through[0]!.rps)} (2 cores shared by the instances, nginx and the load)\n`,
  );
}

export async function runNginxBench(): Promise<void> {
  console.log('## 26. nginx: GET /api/collections/posts?limit=20 (website token, cached) through nginx with 1, 2, 3 instances');
  if (!findNginx()) {
    console.log('skipped: nginx is not installed (apt-get install nginx)\n');
    return;
  }
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({
      instances: 3,
      mariadbUrl: MARIADB_URL,
      redisUrl: REDIS_URL,
      proxy: 'nginx',
      admin: { email: 'bench@example.com', password: 'benchmark password' },
      env: { CMS_RATE_LIMIT_ENABLED: 'false' },
      logLevel: 'warn',
    });
  } catch (err) {
    console.log(`skipped: the cluster did not start (MariaDB ${MARIADB_URL}, Redis ${REDIS_URL}): ${(err as Error).message}\n`);
    return;
  }
  try {
    await cases(cluster, cluster.proxy as NginxProxy);
  } finally {
    await cluster.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runNginxBench();
}
