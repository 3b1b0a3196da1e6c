/**
 * npm run bench: measures, in one run on this machine, (0) cold start and idle memory against a bare
 * Koa server started the same way (bench/startup.ts), (1) GET /api/health on the kernel against a
 * bare Koa server returning the same JSON, (2) a cached collection list read with a website token,
 * with and without If-None-Match, against the same baseline, and (3) health throughput alone and during a
 * storm of real sign-ins (bench/login-storm.ts); then the
 * media cases (bench/media.ts), the import cases (bench/import.ts) and the data-operation cases
 * (bench/data-ops.ts: backup create/restore of 100,000 entries, config plans over 1,000 roles, backup create with 1 GiB of media; `BENCH_DATAOPS_CASES` picks)
 * and the content-transfer cases (bench/content-transfer.ts: a 100,000-entry package exported and imported, a 10,000-entry sync; `BENCH_TRANSFER_CASES` picks)
 * and the audit case (bench/audit-signin.ts: sign-ins with the audit trail on against record() as a no-op)
 * and the cache-flood case (bench/cache-flood.ts: unique list queries, the server's RSS against the cache bound)
 * and the GraphQL subscribers case (bench/graphql-subscribers.ts: BENCH_SUBSCRIBERS, default 10,000, against 1,000: delivery delays).
 * Every load is bounded (BENCH_SECONDS, default 8 s per case; 50 connections on 127.0.0.1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, SECONDS, line, load, ratio, startChild, stop } from './harness.js';
import { DIST_ROOT } from '../kernel/version.js';
import { runAuditSignInBench } from './audit-signin.js';
import { runCacheFloodBench } from './cache-flood.js';
import { runContentTransferBench } from './content-transfer.js';
import { runDataOpsBench } from './data-ops.js';
import { runGraphqlSubscribersBench } from './graphql-subscribers.js';
import { runImportBench } from './import.js';
import { runLoginStormBench } from './login-storm.js';
import { runMediaBench } from './media.js';
import { benchKernelEnv, seedPosts } from './seed-posts.js';
import { runStartupBench } from './startup.js';

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  console.log(
    `# cms benchmark ${new Date().toISOString()}  node ${process.version}  ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}  ${SECONDS}s per case, ${CONNECTIONS} connections\n`,
  );
  await runStartupBench();
  console.log();
  const kernelEnv = benchKernelEnv(dataDir);
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv, dataDir);
  const bare = await startChild([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, dataDir);
  try {
    await load(`${kernel.url}/api/health`, { connections: 10 }); // warm-up, not reported
    console.log('## 1. GET /api/health: kernel against a bare Koa server with the same JSON');
    const bareFig = await load(`${bare.url}/api/health`);
    const kernelFig = await load(`${kernel.url}/api/health`);
    line('bare Koa', bareFig);
    line('kernel (full middleware chain)', kernelFig);
    console.log(`ratio kernel/bare: throughput ${ratio(kernelFig.rps, bareFig.rps)}, p99 ${ratio(kernelFig.p99, bareFig.p99)}\n`);

    console.log('## 2. GET /api/collections/posts?limit=20 (1,000 entries, website token), against the same bare Koa');
    const { token } = await seedPosts(kernel.url);
    const listUrl = `${kernel.url}/api/collections/posts?limit=20`;
    const auth = { authorization: `Bearer ${token}` };
    const first = await fetch(listUrl, { headers: auth });
    const etag = first.headers.get('etag') ?? '';
    await load(listUrl, { connections: 10, headers: auth }); // warm-up (fills the list cache), not reported
    const list = await load(listUrl, { headers: auth });
    const conditional = await load(listUrl, { headers: { ...auth, 'if-none-match': etag } });
    line('bare Koa (health JSON, as above)', bareFig);
    line('list, cached', list);
    line('list with If-None-Match (304)', conditional);
    console.log(`ratio list/bare: throughput ${ratio(list.rps, bareFig.rps)}, p99 ${ratio(list.p99, bareFig.p99)}`);
    console.log(`ratio list 304/bare: throughput ${ratio(conditional.rps, bareFig.rps)}, p99 ${ratio(conditional.p99, bareFig.p99)}\n`);
  } finally {
    await Promise.all([stop(kernel.child), stop(bare.child)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
  await runLoginStormBench();
  console.log();
  await runMediaBench();
  await runImportBench();
  await runDataOpsBench();
  await runContentTransferBench();
  await runAuditSignInBench();
  await runCacheFloodBench();
  await runGraphqlSubscribersBench();
}

await main();
