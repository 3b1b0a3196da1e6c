/**
 * Content-transfer cases of `npm run bench` (called from bench/run.ts, or alone with
 * `node dist/bench/content-transfer.js`), on SQLite, two instances (own processes and data folders),
 * each against a baseline measured in the same run:
 * (12) a content package of BENCH_PACKAGE_ENTRIES (100,000) entries: export on instance A (plan + run as
 *      a job + download) and import on instance B (validate upload + plan + apply as a job): entries/s
 *      and each server's peak RSS (goal: under 300 MB), against the plain SELECT * -> NDJSON + SHA-256
 *      dump and the NDJSON -> INSERT load of bench/data-ops.ts in this process;
 * (13) a content sync of BENCH_SYNC_ENTRIES (10,000) entries from A to B over loopback (channel with an
 *      API key of B, plan push + push), then the same push again (nothing to send): entries/s against the
 *      same dump + load baseline for that many rows.
 * BENCH_TRANSFER_CASES (default `12,13`) picks the cases. Bounded: every request and job wait gives up
 * after 3 minutes; all files live under the OS temp dir and are removed.
 */
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { QueryTypes, Sequelize } from 'sequelize';
import {
  baselineDump,
  baselineLoad,
  client,
  itemsCollection,
  mb,
  measured,
  plus,
  rate,
  seedEntries,
  startKernelWithDb,
  type Call,
} from './data-ops.js';
import { signIn, stop } from './harness.js';

const PACKAGE_ENTRIES = Number(process.env.BENCH_PACKAGE_ENTRIES ?? 100_000);
const SYNC_ENTRIES = Number(process.env.BENCH_SYNC_ENTRIES ?? 10_000);
const CASES = new Set((process.env.BENCH_TRANSFER_CASES ?? '12,13').split(',').map((c) => c.trim()));
const TIMEOUT_MS = 3 * 60 * 1000;
const RSS_GOAL = 300 * 1024 * 1024;
const TABLE = 'cms_c_items';

interface Instance {
  url: string;
  pid: number;
  call: Call;
  cookie: string;
  db: Sequelize;
  dataDir: string;
  close(): Promise<void>;
}

async function instance(label: string): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), `cms-bench-transfer-${label}-`));
  const { kernel, db } = await startKernelWithDb(dataDir);
  const cookie = await signIn(kernel.url);
  return {
    url: kernel.url,
    pid: kernel.child.pid!,
    cookie,
    call: client(kernel.url, cookie),
    db,
    dataDir,
    async close() {
      await db.close().catch(() => undefined);
      await stop(kernel.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function count(db: Sequelize): Promise<number> {
  const [row] = await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM "${TABLE}"`, { type: QueryTypes.SELECT });
  return Number(row?.n ?? 0);
}

/** Polls a data-operation jobs route until the job is completed (outcome success) or failed. */
async function jobDone(call: Call, jobsPath: string, jobId: string): Promise<any> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    const job = (await call(`${jobsPath}?jobId=${encodeURIComponent(jobId)}`)).jobs[0];
    if (job?.status === 'completed' && (job.outcome ?? 'success') === 'success') return job;
    if (job?.status === 'completed' || job?.status === 'failed') throw new Error(`${jobsPath}: job ${JSON.stringify(job).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${jobsPath}: the job did not finish in 3 minutes`);
}

/** Apply-like call: 200 inline (outcome success) or 202 + the job. */
async function applied(call: Call, path: string, jobsPath: string, plan: { planId: string; planHash: string }): Promise<string | null> {
  const answer = await call(path, { json: { planId: plan.planId, planHash: plan.planHash, confirmed: true } });
  if (answer.jobId && !answer.outcome) {
    await jobDone(call, jobsPath, answer.jobId);
    return answer.jobId as string;
  }
  if (answer.outcome !== 'success') throw new Error(`${path}: ${JSON.stringify(answer).slice(0, 300)}`);
  return null;
}

/** Both baselines over the rows of `db`'s items table: seconds of the dump and of the load. */
async function baselines(db: Sequelize, dir: string): Promise<{ rows: number; dump: number; load: number }> {
  const file = join(dir, 'baseline.ndjson');
  const t0 = performance.now();
  const dump = await baselineDump(db, TABLE, file);
  const t1 = performance.now();
  await baselineLoad(db, TABLE, file);
  const t2 = performance.now();
  rmSync(file, { force: true });
  return { rows: dump.rows, dump: (t1 - t0) / 1000, load: (t2 - t1) / 1000 };
}

async function packageCase(a: Instance, b: Instance, scratch: string): Promise<void> {
  console.log(
    `\n## 12. Content package of ${PACKAGE_ENTRIES} entries: export on A, import on B (SQLite, two processes), against SELECT * -> NDJSON + SHA-256 and NDJSON -> INSERT`,
  );
  await itemsCollection(a.call);
  await seedEntries(a.db, TABLE, PACKAGE_ENTRIES);
  const base = await baselines(a.db, scratch);

  const archive = join(scratch, 'items.svelty-package');
  const exported = await measured(a.pid, async () => {
    const plan = await a.call('/api/content-export/plan', { json: { collections: ['items'] } });
    const jobId = await applied(a.call, '/api/content-export/run', '/api/content-export/jobs', plan);
    const query = jobId ? `jobId=${encodeURIComponent(jobId)}` : `planId=${encodeURIComponent(plan.planId)}`;
    const res = await fetch(`${a.url}/api/content-export/download?${query}`, {
      headers: { cookie: a.cookie },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok || !res.body) throw new Error(`download: ${res.status}`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(archive));
  });
  const size = statSync(archive).size;

  const phases: string[] = [];
  /** One phase of the import, with its time and B's peak RSS (where the memory goes). */
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    // B's JavaScript heap next to its RSS (from the dashboard's detailed metrics), to tell live objects from the rest.
    let heapPeak = 0;
    const sample = () =>
      b
        .call('/api/dashboard/metrics?detailed=true')
        .then((r: { memory?: { heapUsed: number } }) => (heapPeak = Math.max(heapPeak, r.memory?.heapUsed ?? 0)))
        .catch(() => undefined);
    const poll = setInterval(() => void sample(), 500);
    try {
      const m = await measured(b.pid, work);
      await sample();
      phases.push(`${name} ${m.seconds.toFixed(1)} s, peak RSS ${mb(m.peak)} (JS heap ${mb(heapPeak)})`);
      return m.value;
    } finally {
      clearInterval(poll);
    }
  };
  const imported = await measured(b.pid, async () => {
    const form = new FormData();
    form.append('file', await openAsBlob(archive), 'items.svelty-package');
    const body = await phase('upload + validate', async () => {
      const res = await fetch(`${b.url}/api/content-import/validate`, {
        method: 'POST',
        headers: { cookie: b.cookie },
        body: form,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const answer = (await res.json()) as { data: { uploadId: string; valid: boolean; problems: string[] } };
      if (!res.ok || !answer.data.valid) throw new Error(`validate: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
      return answer;
    });
    const plan = await phase('plan', () => b.call('/api/content-import/plan', { json: { uploadId: body.data.uploadId } }));
    if (plan.blockedReasons?.length) throw new Error(`import plan blocked: ${plan.blockedReasons.join('; ')}`);
    await phase('apply', () => applied(b.call, '/api/content-import/apply', '/api/content-import/jobs', plan));
  });
  const landed = await count(b.db);
  if (landed !== PACKAGE_ENTRIES) throw new Error(`instance B holds ${landed} entries after the import, not ${PACKAGE_ENTRIES}`);

  const baseDump = rate(base.rows, base.dump);
  const baseLoad = rate(base.rows, base.load);
  const exportRate = rate(PACKAGE_ENTRIES, exported.seconds);
  const importRate = rate(PACKAGE_ENTRIES, imported.seconds);
  console.log(`baseline SELECT * -> NDJSON + SHA-256: ${baseDump} entries/s; NDJSON -> INSERT (one transaction): ${baseLoad} entries/s`);
  console.log(
    `export (plan + run + download, ${mb(size)} package): ${exported.seconds.toFixed(1)} s: ${exportRate} entries/s; A ${plus(exported)}`,
  );
  console.log(`import (upload + validate + plan + apply): ${imported.seconds.toFixed(1)} s: ${importRate} entries/s; B ${plus(imported)}`);
  console.log(`import phases on B: ${phases.join('; ')}`);
  console.log(`ratio export/dump: ${(exportRate / baseDump).toFixed(2)}; import/load: ${(importRate / baseLoad).toFixed(2)}`);
  console.log(
    `peak RSS under 300 MB: export ${exported.peak < RSS_GOAL ? 'yes' : 'no'} (${mb(exported.peak)}), import ${imported.peak < RSS_GOAL ? 'yes' : 'no'} (${mb(imported.peak)})`,
  );
}

async function syncCase(a: Instance, b: Instance, scratch: string): Promise<void> {
  console.log(`\n## 13. Content sync of ${SYNC_ENTRIES} entries from A to B over loopback (push), against the same dump + load baseline`);
  if (CASES.has('12')) {
    // Case 12 left the collection on both: start from empty tables (the rows only; the schema stays).
    await a.db.query(`DELETE FROM "${TABLE}"`);
    await b.db.query(`DELETE FROM "${TABLE}"`);
  } else {
    // The channel's key may write entries, not create collections: B has the collection, as after case 12.
    await itemsCollection(a.call);
    await itemsCollection(b.call);
  }
  await seedEntries(a.db, TABLE, SYNC_ENTRIES);
  const base = await baselines(a.db, scratch);

  const key = await b.call('/api/api-keys', {
    json: { name: 'bench sync', permissions: ['content:read', 'content:sync', 'content:import', 'content:export'] },
  });
  const channel = await a.call('/api/content-sync/channels', { json: { name: 'bench-b', url: b.url, apiKey: key.key } });
  const channelId = channel.channelId ?? channel.channel?.channelId;
  const push = () =>
    measured(a.pid, async () => {
      const plan = await a.call('/api/content-sync/plan', { json: { channelId, direction: 'push', collections: ['items'] } });
      if (plan.blockedReasons?.length) throw new Error(`sync plan blocked: ${plan.blockedReasons.join('; ')}`);
      if (plan.summary.created + plan.summary.updated === 0) return plan.summary;
      await applied(a.call, '/api/content-sync/push', '/api/content-sync/jobs', plan);
      return plan.summary;
    });
  const first = await push();
  const landed = await count(b.db);
  if (landed !== SYNC_ENTRIES) throw new Error(`instance B holds ${landed} entries after the push, not ${SYNC_ENTRIES}`);
  const again = await push();

  const baseRate = rate(base.rows, base.dump + base.load);
  const pushRate = rate(SYNC_ENTRIES, first.seconds);
  console.log(`baseline dump + load of ${base.rows} rows in this process: ${(base.dump + base.load).toFixed(2)} s: ${baseRate} entries/s`);
  console.log(`push (plan + push, ${JSON.stringify(first.value)}): ${first.seconds.toFixed(1)} s: ${pushRate} entries/s; A ${plus(first)}`);
  console.log(`push again (nothing changed, ${JSON.stringify(again.value)}): ${again.seconds.toFixed(2)} s`);
  console.log(`ratio push/baseline: ${(pushRate / baseRate).toFixed(2)}`);
}

export async function runContentTransferBench(): Promise<void> {
  if (!CASES.has('12') && !CASES.has('13')) return;
  const scratch = mkdtempSync(join(tmpdir(), 'cms-bench-transfer-'));
  let a: Instance | undefined;
  let b: Instance | undefined;
  try {
    a = await instance('a');
    b = await instance('b');
    if (CASES.has('12')) await packageCase(a, b, scratch);
    if (CASES.has('13')) await syncCase(a, b, scratch);
  } finally {
    await a?.close();
    await b?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runContentTransferBench();
