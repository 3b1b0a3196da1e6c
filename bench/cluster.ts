/**
 * Cluster case of `npm run bench` (17; also `node dist/bench/cluster.js` alone): the cached list of 20 with a website
 * token read through the cluster harness's round-robin proxy (cluster/start-cluster.ts: separate kernel processes on
 * one MariaDB database and one Redis) with 1, 2 and 3 instances behind it, against the same list read directly from
 * one instance (no proxy) in the same run. Besides req/s it reads what each request costs the shared services: Redis
 * commands (INFO stats, total_commands_processed) and MariaDB statements (SHOW GLOBAL STATUS Questions) per request
 * over each load, so a per-request round trip that grows with the instances shows. The proxy runs in this process,
 * beside the load generator; this machine has 2 cores, so adding instances cannot add throughput: the figures to
 * read are req/s per instance and the shared services' work per request. Needs MariaDB and Redis
 * (BENCH_MARIADB_URL, BENCH_REDIS_URL, defaults the CI's; skipped when either does not answer). Bounded by BENCH_SECONDS.
 */
import { fileURLToPath } from 'node:url';
import mariadb from 'mariadb';
import { startCluster, type Cluster } from '../cluster/start-cluster.js';
import { closeRedis, createRedisClient } from '../kernel/redis.js';
import { line, load, ratio, type Figures } from './harness.js';
import { seedPosts } from './seed-posts.js';

const MARIADB_URL = process.env.BENCH_MARIADB_URL ?? process.env.CMS_TEST_MARIADB_URL ?? 'mariadb://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.CMS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type SharedCounters = () => Promise<{ redis: number; mariadb: number }>;

async function sharedCounters(): Promise<{ read: SharedCounters; close(): Promise<void> }> {
  const redis = createRedisClient(REDIS_URL);
  redis.on('error', () => undefined);
  await redis.connect();
  const u = new URL(MARIADB_URL);
  const db = await mariadb.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  });
  return {
    async read() {
      const info = await redis.info('stats');
      const rows = (await db.query("SHOW GLOBAL STATUS LIKE 'Questions'")) as Array<{ Value: string }>;
      return {
        redis: Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0),
        mariadb: Number(rows[0]?.Value ?? 0),
      };
    },
    async close() {
      await closeRedis(redis);
      await db.end();
    },
  };
}

/** One load with the shared services' work per request (the counters' own reads are subtracted). */
async function measured(url: string, headers: Record<string, string>, counters: SharedCounters) {
  const before = await counters();
  const f = await load(url, { headers });
  const after = await counters();
  const requests = Math.max(1, f.rps * Number(process.env.BENCH_SECONDS ?? 8));
  return {
    ...f,
    redisPerReq: Math.max(0, after.redis - before.redis - 2) / requests,
    mariadbPerReq: Math.max(0, after.mariadb - before.mariadb - 2) / requests,
  };
}

const shared = (f: { redisPerReq: number; mariadbPerReq: number }) =>
  `   Redis ${f.redisPerReq.toFixed(3)} cmd/req, MariaDB ${f.mariadbPerReq.toFixed(3)} stmt/req`;

export async function runClusterBench(): Promise<void> {
  console.log('## 17. Cluster: GET /api/collections/posts?limit=20 (website token, cached) through the proxy with 1, 2, 3 instances');
  let counters: Awaited<ReturnType<typeof sharedCounters>>;
  try {
    counters = await sharedCounters();
  } catch (err) {
    console.log(`skipped: MariaDB (${MARIADB_URL}) or Redis (${REDIS_URL}) does not answer: ${(err as Error).message}\n`);
    return;
  }
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({
      instances: 3,
      mariadbUrl: MARIADB_URL,
      redisUrl: REDIS_URL,
      admin: { email: 'bench@example.com', password: 'benchmark password' },
      env: { CMS_RATE_LIMIT_ENABLED: 'false' },
      logLevel: 'warn',
    });
    const { token } = await seedPosts(cluster.url);
    const headers = { authorization: `Bearer ${token}` };
    const path = '/api/collections/posts?limit=20';
    const urls = cluster.instances.map((i) => i.url);
    for (const u of urls) await load(`${u}${path}`, { connections: 10, headers }); // warm-up (fills each list cache)
    const direct = await measured(`${urls[0]}${path}`, headers, counters.read);
    line('one instance, direct (no proxy)', direct, shared(direct));
    const through: Array<Figures & { redisPerReq: number; mariadbPerReq: number }> = [];
    for (const n of [1, 2, 3]) {
      cluster.proxy.setUpstreams(urls.slice(0, n));
      await cluster.proxy.checkNow();
      const f = await measured(`${cluster.url}${path}`, headers, counters.read);
      through.push(f);
      line(`through the proxy, ${n} instance${n > 1 ? 's' : ''}`, f, `   ${Math.round(f.rps / n)} req/s per instance${shared(f)}`);
    }
    console.log(
      `ratio proxy with 1 instance / direct: throughput ${ratio(through[0]!.rps, direct.rps)}, p99 ${ratio(through[0]!.p99, direct.p99)}`,
    );
    console.log(
      `ratio 3 instances / 1 instance through the proxy: throughput ${ratio(through[2]!.rps, through[0]!.rps)} (2 cores shared by the instances, the proxy and the load)\n`,
    );
  } finally {
    await cluster?.stop();
    await counters.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runClusterBench();
}
