/**
 * The replica case (BENCH_CASES=replica): the uncached list (page 7 of 1,000 posts, CMS_CONTENT_LIST_CACHE=false)
 * with its reads on a MariaDB replica (DB_READ_URLS) against the same list read on the primary, one kernel each
 * in turn on the same data; then the replica killed (reads fall back to the primary). The primary and the replica
 * are two mariadbd processes of cluster/mariadb-pair.ts on this machine, so the ratio shows what the routing costs
 * (a position check per request), not the capacity a replica on its own machine adds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mariadbPairUnavailable, startMariaDbPair } from '../cluster/mariadb-pair.js';
import { DIST_ROOT } from '../kernel/version.js';
import { line, load, ratio, startChild, stop, type Figures } from './harness.js';
import { benchKernelEnv, seedPosts } from './seed-posts.js';

export async function runReplicaBench(): Promise<void> {
  console.log(
    '## Replica: GET /api/collections/posts?limit=20&page=7 (1,000 entries, list cache off), reads on a replica against the primary',
  );
  const missing = mariadbPairUnavailable();
  if (missing) {
    console.log(`skipped: ${missing}\n`);
    return;
  }
  const pair = await startMariaDbPair();
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-replica-'));
  try {
    await pair.primary.query('CREATE DATABASE cms CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    const env = {
      ...benchKernelEnv(dataDir),
      DB_URL: pair.primary.url('cms'),
      CMS_CONTENT_LIST_CACHE: 'false',
      CMS_JOBS_ENABLED: 'false',
    };
    const replicaEnv = { ...env, DB_READ_URLS: `mariadb://root@127.0.0.1:${pair.replica.port}` };
    const page7 = '/api/collections/posts?limit=20&page=7';
    let token = '';
    let replicaDown = false;
    const measure = async (kernelEnv: Record<string, string>, seed: boolean): Promise<Figures> => {
      // On a machine shared with builds a boot can pass the harness's 30 s: one more try.
      const start = () => startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv, dataDir);
      const kernel = await start().catch(start);
      try {
        if (seed) token = (await seedPosts(kernel.url)).token;
        if (!replicaDown) await pair.waitForReplica();
        const headers = { authorization: `Bearer ${token}` };
        await load(`${kernel.url}${page7}`, { connections: 10, headers }); // warm-up, not reported
        return await load(`${kernel.url}${page7}`, { headers });
      } finally {
        await stop(kernel.child);
      }
    };
    // Alternating rounds (the replica's first right after seeding), so a drift of the shared machine's load hits both.
    const rounds: Array<{ replica: Figures; primary: Figures }> = [];
    for (let round = 0; round < 2; round++) {
      const replica = await measure(replicaEnv, round === 0);
      rounds.push({ replica, primary: await measure(env, false) });
    }
    await pair.replica.kill();
    replicaDown = true;
    const fallback = await measure(replicaEnv, false);
    rounds.forEach((r, i) => {
      line(`round ${i + 1}: reads on the replica (DB_READ_URLS)`, r.replica);
      line(`round ${i + 1}: reads on the primary (no DB_READ_URLS)`, r.primary);
    });
    line('DB_READ_URLS, replica down (reads on the primary)', fallback);
    const mean = (pick: (r: (typeof rounds)[number]) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
    const [replicaRps, primaryRps] = [mean((r) => r.replica.rps), mean((r) => r.primary.rps)];
    const [replicaP99, primaryP99] = [mean((r) => r.replica.p99), mean((r) => r.primary.p99)];
    console.log(
      `ratio replica/primary (means of the rounds): throughput ${ratio(replicaRps, primaryRps)}, p99 ${ratio(replicaP99, primaryP99)}`,
    );
    console.log(`ratio replica down/primary: throughput ${ratio(fallback.rps, primaryRps)}, p99 ${ratio(fallback.p99, primaryP99)}\n`);
  } finally {
    await pair.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
