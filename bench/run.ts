/**
 * npm run bench: measures, in one run on this machine, (0) cold start and idle memory against a bare
 * Koa server started the same way (bench/startup.ts), (1) GET /api/health on the kernel against a
 * bare Koa server returning the same JSON, (2) a collection list of 20 against the "Koa stack list"
 * (bench/koa-stack-list.ts: koa, a router, request id, error handler, bearer check, 20 posts from memory
 * serialised and tagged per request) and Directus 11 when installed (bench/directus.ts): cached with a website
 * token and with a session cookie, 304 (also against bare Koa hello), and page 7 not cached (a second kernel on the
 * same data with CMS_CONTENT_LIST_CACHE=false), (3) health alone and during a storm of real sign-ins
 * (bench/login-storm.ts); then the
 * media cases (bench/media.ts), the import cases (bench/import.ts) and the data-operation cases
 * (bench/data-ops.ts: backup create/restore of 100,000 entries, config plans over 1,000 roles, backup create with 1 GiB of media; `BENCH_DATAOPS_CASES` picks)
 * and the content-transfer cases (bench/content-transfer.ts: a 100,000-entry package exported and imported, a 10,000-entry sync; `BENCH_TRANSFER_CASES` picks)
 * and the audit case (bench/audit-signin.ts: sign-ins with the audit trail on against record() as a no-op)
 * and the cache-flood case (bench/cache-flood.ts: unique list queries, the server's RSS against the cache bound)
 * and the GraphQL subscribers case (bench/graphql-subscribers.ts: BENCH_SUBSCRIBERS, default 10,000, against 1,000: delivery delays)
 * and the content-model cases (bench/content-model.ts: populate, a relation-path filter over 100,000 entries, blocks; `BENCH_MODEL_CASES` picks)
 * and the webhooks case (bench/webhooks.ts: entry writes with one webhook against none, deliveries once each, enqueue-to-delivery delay)
 * and the pipeline case (bench/pipeline-cpu.ts: CPU per request of health and a 304 against bare Koa hello, case 25)
 * and the scale curves (bench/scale.ts: lists at 1,000 to 1,000,000 entries, p50/p99 per size and the query plans; BENCH_SCALE_SIZES picks)
 * and the replica case (bench/replica.ts: the uncached list read on a MariaDB replica against the primary; own mariadbd pair).
 * Every load is bounded (BENCH_SECONDS, default 8 s per case; 50 connections on 127.0.0.1).
 * BENCH_CASES picks groups (comma list; default all): startup, http (cases 1, 2 and Directus), pipeline (25), storm, media, import,
 * dataops, transfer, audit, flood, subscribers, cluster (bench/cluster.ts: the list through the cluster harness's proxy), nginx (26, bench/cluster-nginx.ts:
 * the list through nginx with 1-3 instances, CPU per request per process), model, webhooks, scale, replica.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, SECONDS, line, load, ratio, startChild, stop, type Figures } from './harness.js';
import { DIST_ROOT } from '../kernel/version.js';
import { runAuditSignInBench } from './audit-signin.js';
import { runCacheFloodBench } from './cache-flood.js';
import { runClusterBench } from './cluster.js';
import { runNginxBench } from './cluster-nginx.js';
import { runContentModelBench } from './content-model.js';
import { runContentTransferBench } from './content-transfer.js';
import { runDataOpsBench } from './data-ops.js';
import { runDirectusBench } from './directus.js';
import { runGraphqlSubscribersBench } from './graphql-subscribers.js';
import { runImportBench } from './import.js';
import { runLoginStormBench } from './login-storm.js';
import { runMediaBench } from './media.js';
import { benchKernelEnv, seedPosts } from './seed-posts.js';
import { runStartupBench } from './startup.js';
import { runWebhooksBench } from './webhooks.js';
import { runPipelineBench } from './pipeline-cpu.js';
import { runScaleBench } from './scale.js';
import { runReplicaBench } from './replica.js';

const GROUPS = new Set(
  (
    process.env.BENCH_CASES ??
    'startup,http,pipeline,storm,media,import,dataops,transfer,audit,flood,subscribers,cluster,nginx,model,webhooks,scale,replica'
  ).split(','),
);

async function main(): Promise<void> {
  console.log(
    `# cms benchmark ${new Date().toISOString()}  node ${process.version}  ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}  ${SECONDS}s per case, ${CONNECTIONS} connections\n`,
  );
  if (GROUPS.has('startup')) {
    await runStartupBench();
    console.log();
  }
  if (GROUPS.has('http')) await runHttpCases();
  if (GROUPS.has('pipeline')) {
    await runPipelineBench();
    console.log();
  }
  if (GROUPS.has('storm')) {
    await runLoginStormBench();
    console.log();
  }
  if (GROUPS.has('media')) await runMediaBench();
  if (GROUPS.has('import')) await runImportBench();
  if (GROUPS.has('dataops')) await runDataOpsBench();
  if (GROUPS.has('transfer')) await runContentTransferBench();
  if (GROUPS.has('audit')) await runAuditSignInBench();
  if (GROUPS.has('flood')) await runCacheFloodBench();
  if (GROUPS.has('subscribers')) await runGraphqlSubscribersBench();
  if (GROUPS.has('cluster')) await runClusterBench();
  if (GROUPS.has('nginx')) await runNginxBench();
  if (GROUPS.has('model')) await runContentModelBench();
  if (GROUPS.has('webhooks')) await runWebhooksBench();
  if (GROUPS.has('scale')) await runScaleBench();
  if (GROUPS.has('replica')) await runReplicaBench();
}

/** Cases 1 and 2, with Directus (when installed) measured first, while none of the other servers runs. */
async function runHttpCases(): Promise<void> {
  const directus = await runDirectusBench();
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  const kernelEnv = benchKernelEnv(dataDir);
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv, dataDir);
  const bare = await startChild([join(DIST_ROOT, 'bench', 'bare-koa.js')], {}, dataDir);
  const stack = await startChild([join(DIST_ROOT, 'bench', 'koa-stack-list.js')], { BENCH_KOA_TOKEN: 'bench-token' }, dataDir);
  const stackAuth = { authorization: 'Bearer bench-token' };
  try {
    await load(`${kernel.url}/api/health`, { connections: 10 }); // warm-up, not reported
    console.log('## 1. GET /api/health: kernel against a bare Koa server with the same JSON');
    const bareFig = await load(`${bare.url}/api/health`);
    const kernelFig = await load(`${kernel.url}/api/health`);
    line('bare Koa', bareFig);
    line('kernel (full middleware chain)', kernelFig);
    console.log(`ratio kernel/bare: throughput ${ratio(kernelFig.rps, bareFig.rps)}, p99 ${ratio(kernelFig.p99, bareFig.p99)}\n`);

    console.log('## 2. GET /api/collections/posts?limit=20 (1,000 entries): kernel against the Koa stack list (bench/koa-stack-list.ts)');
    const { token, cookie } = await seedPosts(kernel.url);
    const listUrl = `${kernel.url}/api/collections/posts?limit=20`;
    const auth = { authorization: `Bearer ${token}` };
    const first = await fetch(listUrl, { headers: auth });
    const etag = first.headers.get('etag') ?? '';
    await load(listUrl, { connections: 10, headers: auth }); // warm-up (fills the list cache), not reported
    await load(`${stack.url}/api/collections/posts?limit=20`, { connections: 10, headers: stackAuth }); // warm-up
    const stackFig = await load(`${stack.url}/api/collections/posts?limit=20`, { headers: stackAuth });
    const list = await load(listUrl, { headers: auth });
    const listCookie = await load(listUrl, { headers: { cookie } });
    const conditional = await load(listUrl, { headers: { ...auth, 'if-none-match': etag } });
    // Page 7 not cached: a second kernel on the same SQLite file with the list cache off reads every list.
    const nocache = await startChild(
      [join(DIST_ROOT, 'kernel', 'cli.js'), 'start'],
      { ...kernelEnv, CMS_CONTENT_LIST_CACHE: 'false' },
      dataDir,
    );
    const page7 = `${nocache.url}/api/collections/posts?limit=20&page=7`;
    let uncached: Figures;
    try {
      await load(page7, { connections: 10, headers: auth }); // warm-up, not reported
      uncached = await load(page7, { headers: auth });
    } finally {
      await stop(nocache.child);
    }
    line('bare Koa hello (health JSON, as above)', bareFig);
    line('Koa stack list (token, 20 posts from memory)', stackFig);
    line('list (website token, cached)', list);
    line('list (session cookie, cached)', listCookie);
    line('list 304 (website token, If-None-Match)', conditional);
    line('list page 7, not cached (SQLite, token)', uncached);
    console.log(
      `ratio list (website token, cached)/Koa stack list: throughput ${ratio(list.rps, stackFig.rps)}, p99 ${ratio(list.p99, stackFig.p99)}`,
    );
    console.log(
      `ratio list (session cookie, cached)/Koa stack list: throughput ${ratio(listCookie.rps, stackFig.rps)}, p99 ${ratio(listCookie.p99, stackFig.p99)}`,
    );
    console.log(
      `ratio list 304/Koa stack list: throughput ${ratio(conditional.rps, stackFig.rps)}, p99 ${ratio(conditional.p99, stackFig.p99)}`,
    );
    console.log(
      `ratio list 304/bare Koa hello: throughput ${ratio(conditional.rps, bareFig.rps)}, p99 ${ratio(conditional.p99, bareFig.p99)}`,
    );
    console.log(
      `ratio list page 7 not cached/Koa stack list: throughput ${ratio(uncached.rps, stackFig.rps)}, p99 ${ratio(uncached.p99, stackFig.p99)}`,
    );
    if (directus) {
      const d = directus;
      console.log(`ratio list (website token, cached)/Directus cached: throughput ${ratio(list.rps, d.cachedList.rps)}`);
      console.log(`ratio list page 7 not cached/Directus page 7 not cached: throughput ${ratio(uncached.rps, d.uncachedPage7.rps)}`);
    }
    console.log();
  } finally {
    await Promise.all([stop(kernel.child), stop(bare.child), stop(stack.child)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
