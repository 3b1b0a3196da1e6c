/**
 * Data-operation cases of `npm run bench` (called at the end of bench/run.ts main, or run alone with
 * `node dist/bench/data-ops.js`), on SQLite, each against a baseline measured in the same run:
 * (9) backup create (background job) and restore (restore-plan + restore) of BENCH_BACKUP_ENTRIES
 *     (100,000) entries seeded in one transaction: entries/s and the server's peak RSS increase, against
 *     a plain keyset `SELECT *` streamed to an NDJSON file with SHA-256 (create) and that NDJSON read back
 *     and bulk-inserted in one transaction (restore), both in this process on the same database file;
 * (10) a config plan over BENCH_CONFIG_ROLES (1,000) roles exported to files (100 changed and 100 extra
 *     in the database), in merge and mirror mode: ms per plan against reading, parsing and hashing the
 *     exported files.
 * (11) backup create with includeMedia over a BENCH_MEDIA_FILES (64) x 16 MiB (1 GiB) local media library
 *     uploaded through POST /api/media/upload (own kernel and data folder): MiB/s and the server's peak RSS
 *     increase, against the same files streamed through SHA-256 into copies on disk in this process; then
 *     POST /api/backups/validate of that backup, timed.
 * BENCH_DATAOPS_CASES (default `9,10,11`) picks the cases, e.g. `BENCH_DATAOPS_CASES=11 node dist/bench/data-ops.js`.
 * Bounded: each request and the job wait give up after 3 minutes; the plan loop runs at most
 * BENCH_PLAN_SECONDS (10) or 50 plans per mode. Every file is written under the OS temp dir and removed.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { QueryTypes, Sequelize } from 'sequelize';
import { signIn, startChild, stop, streamUpload } from './harness.js';
import { sqliteModule } from '../kernel/db/sqlite-module.js';
import { DIST_ROOT } from '../kernel/version.js';
import { benchKernelEnv } from './seed-posts.js';

const ENTRIES = Number(process.env.BENCH_BACKUP_ENTRIES ?? 100_000);
const ROLES = Number(process.env.BENCH_CONFIG_ROLES ?? 1_000);
const PLAN_SECONDS = Number(process.env.BENCH_PLAN_SECONDS ?? 10);
const MEDIA_FILES = Number(process.env.BENCH_MEDIA_FILES ?? 64);
const MEDIA_FILE_MIB = 16;
const UPLOAD_CONCURRENCY = 4;
const RSS_LIMIT_MIB = 64;
const CASES = new Set((process.env.BENCH_DATAOPS_CASES ?? '9,10,11').split(',').map((c) => c.trim()));
const PAGE = 500;
const TIMEOUT_MS = 3 * 60 * 1000;
const MiB = 1024 * 1024;
export const mb = (n: number) => `${Math.round(n / MiB)} MiB`;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

function hwmOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** Samples a process's RSS every 50 ms while `work` runs: its result, seconds, RSS before and peak. */
export async function measured<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; before: number; peak: number }> {
  const before = rssOf(pid);
  let peak = before;
  const poll = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, rssOf(pid));
    return { value, seconds: (performance.now() - started) / 1000, before, peak };
  } finally {
    clearInterval(poll);
  }
}

export type Call = (path: string, init?: { method?: string; json?: unknown }) => Promise<any>;

export function client(url: string, cookie: string): Call {
  return async (path, init = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: { cookie, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json()) as { success: boolean; data: any };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.data;
  };
}

/** 100,000 entry rows in one transaction, 1,000 per multi-row insert (the content plugin's columns). */
export async function seedEntries(db: Sequelize, table: string, count: number): Promise<void> {
  const now = Date.now();
  await db.transaction(async (transaction) => {
    for (let start = 0; start < count; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - start) }, (_, k) => {
        const i = start + k;
        return {
          id: randomUUID(),
          tenant_id: 'default',
          sync_id: randomUUID(),
          slug: `item-${i}`,
          status: i % 3 ? 'published' : 'draft',
          version: 1,
          created_by: 'bench',
          updated_by: 'bench',
          created_at: now + i,
          updated_at: now + i,
          f_title: `Item ${i}`,
          f_views: i % 1000,
          f_body: `<p>Body of item ${i}. The quick brown fox jumps over the lazy dog.</p>`,
        };
      });
      await db.getQueryInterface().bulkInsert(table, rows, { transaction });
    }
  });
}

/** Baseline for create: keyset pages of SELECT *, one JSON line per row, hashed as written. */
export async function baselineDump(db: Sequelize, table: string, file: string): Promise<{ rows: number; sha256: string }> {
  const out = createWriteStream(file);
  const hash = createHash('sha256');
  let last = '';
  let rows = 0;
  for (;;) {
    const page = await db.query<Record<string, unknown>>(`SELECT * FROM "${table}" WHERE id > ? ORDER BY id LIMIT ${PAGE}`, {
      replacements: [last],
      type: QueryTypes.SELECT,
    });
    if (!page.length) break;
    const chunk = Buffer.from(page.map((r) => JSON.stringify(r)).join('\n') + '\n');
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
    rows += page.length;
    last = String(page[page.length - 1]!.id);
  }
  out.end();
  await once(out, 'finish');
  return { rows, sha256: hash.digest('hex') };
}

/** Baseline for restore: the NDJSON read back and inserted into an empty copy of the table, in one transaction. */
export async function baselineLoad(db: Sequelize, table: string, file: string): Promise<number> {
  const copy = `${table}_bench_copy`;
  await db.query(`DROP TABLE IF EXISTS "${copy}"`);
  await db.query(`CREATE TABLE "${copy}" AS SELECT * FROM "${table}" WHERE 0`);
  let n = 0;
  await db.transaction(async (transaction) => {
    let batch: Array<Record<string, unknown>> = [];
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (!line) continue;
      batch.push(JSON.parse(line) as Record<string, unknown>);
      if (batch.length >= PAGE) {
        await db.getQueryInterface().bulkInsert(copy, batch, { transaction });
        n += batch.length;
        batch = [];
      }
    }
    if (batch.length) await db.getQueryInterface().bulkInsert(copy, batch, { transaction });
    n += batch.length;
  });
  await db.query(`DROP TABLE "${copy}"`);
  return n;
}

async function waitForJob(call: Call, jobId: string): Promise<any> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    const job = (await call(`/api/backups/jobs?jobId=${encodeURIComponent(jobId)}`)).jobs[0];
    if (job?.status === 'completed') return job;
    if (job?.status === 'failed') throw new Error(`backup job failed: ${job.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('backup job did not finish in 3 minutes');
}

/** The `items` collection of the backup and transfer cases: a title, a number and a rich text. */
export async function itemsCollection(call: Call): Promise<void> {
  await call('/api/collections', {
    json: {
      name: 'items',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'views', type: 'number' },
        { name: 'body', type: 'richtext' },
      ],
    },
  });
}

/** A kernel child on `dataDir` (SQLite) and a connection of this process to its database file. */
export async function startKernelWithDb(dataDir: string): Promise<{ kernel: Awaited<ReturnType<typeof startChild>>; db: Sequelize }> {
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnvOf(dataDir), dataDir);
  const db = new Sequelize({
    dialect: 'sqlite',
    storage: join(dataDir, 'cms.sqlite'),
    dialectModule: sqliteModule(30_000),
    logging: false,
  });
  return { kernel, db };
}

export const rate = (n: number, s: number) => Math.round(n / s);
export const plus = (m: { before: number; peak: number }) =>
  `server RSS before ${mb(m.before)}, peak ${mb(m.peak)} (+${mb(m.peak - m.before)})`;

async function backupCase(call: Call, db: Sequelize, pid: number, dataDir: string): Promise<void> {
  console.log(
    `\n## 9. Backup create and restore of ${ENTRIES} entries (SQLite), against SELECT * -> NDJSON + SHA-256 and NDJSON -> INSERT`,
  );
  await itemsCollection(call);
  const table = 'cms_c_items';
  const seedStart = performance.now();
  await seedEntries(db, table, ENTRIES);
  console.log(`seeded ${ENTRIES} entries in one transaction in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const ndjson = join(dataDir, 'baseline.ndjson');
  const parentRss = process.memoryUsage().rss;
  const dumpStart = performance.now();
  const dump = await baselineDump(db, table, ndjson);
  const dumpSeconds = (performance.now() - dumpStart) / 1000;
  const loadStart = performance.now();
  const loaded = await baselineLoad(db, table, ndjson);
  const loadSeconds = (performance.now() - loadStart) / 1000;
  const parentPeak = process.memoryUsage().rss;
  rmSync(ndjson, { force: true });

  const create = await measured(pid, async () => {
    const answer = await call('/api/backups/create', { json: {} });
    if (answer.jobId) await waitForJob(call, answer.jobId);
    return answer.backupId as string;
  });
  const backupId = create.value;
  const listed = (await call('/api/backups')).backups.find((b: any) => b.backupId === backupId);
  if (listed?.entries !== ENTRIES) throw new Error(`the backup holds ${listed?.entries} entries, not ${ENTRIES}`);

  const restore = await measured(pid, async () => {
    const plan = await call('/api/backups/restore-plan', { json: { backupId } });
    if (plan.blockedReasons?.length) throw new Error(`restore plan blocked: ${plan.blockedReasons.join('; ')}`);
    const answer = await call('/api/backups/restore', { json: { planId: plan.planId, planHash: plan.planHash, confirmed: true } });
    if (answer.outcome !== 'success' || answer.verify?.ok === false) throw new Error(`restore: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer;
  });
  const restored = Number((await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`, { type: QueryTypes.SELECT }))[0]!.n);
  if (restored !== ENTRIES) throw new Error(`after restore the table holds ${restored} rows`);

  const baseCreate = rate(dump.rows, dumpSeconds);
  const baseRestore = rate(loaded, loadSeconds);
  const kernelCreate = rate(ENTRIES, create.seconds);
  const kernelRestore = rate(ENTRIES, restore.seconds);
  console.log(`baseline SELECT * -> NDJSON + SHA-256: ${dump.rows} rows in ${dumpSeconds.toFixed(1)} s: ${baseCreate} entries/s`);
  console.log(`baseline NDJSON -> INSERT (one transaction): ${loaded} rows in ${loadSeconds.toFixed(1)} s: ${baseRestore} entries/s`);
  console.log(`(baseline process RSS ${mb(parentRss)} -> ${mb(parentPeak)} after both)`);
  console.log(
    `backup create (job, 202 -> completed): ${ENTRIES} in ${create.seconds.toFixed(1)} s: ${kernelCreate} entries/s; ${plus(create)}`,
  );
  console.log(
    `backup restore (plan + restore, verify ok): ${ENTRIES} in ${restore.seconds.toFixed(1)} s: ${kernelRestore} entries/s; ${plus(restore)}`,
  );
  console.log(
    `ratio create/baseline: ${(kernelCreate / baseCreate).toFixed(2)}; restore/baseline: ${(kernelRestore / baseRestore).toFixed(2)}`,
  );
}

async function configCase(call: Call, db: Sequelize, dataDir: string): Promise<void> {
  console.log(
    `\n## 10. Config plan over ${ROLES} roles (files exported, 10 % changed, 10 % extra in the database), against reading and hashing the files`,
  );
  const rows = Array.from({ length: ROLES }, (_, i) => ({
    tenant_id: 'default',
    name: `bench-role-${String(i).padStart(5, '0')}`,
    description: `Bench role ${i}`,
    permissions: JSON.stringify(['content:read', 'media:read', ...(i % 2 ? ['content:write'] : [])]),
  }));
  await db.getQueryInterface().bulkInsert('auth_roles', rows);
  const exported = await call('/api/config/export', { json: { types: ['role'] } });
  const folder = join(dataDir, 'config', 'sync', 'role');
  const files = (await readdir(folder)).filter((n) => n.endsWith('.json'));
  // Drift: every tenth role changed in the database, and as many new roles only in the database.
  await db.query(`UPDATE auth_roles SET description = description || ' (changed)' WHERE name LIKE 'bench-role-%0'`);
  await db.getQueryInterface().bulkInsert(
    'auth_roles',
    rows.slice(0, ROLES / 10).map((r) => ({ ...r, name: r.name.replace('bench-role', 'bench-extra') })),
  );

  const hashFiles = async () => {
    let n = 0;
    for (const f of files) {
      const parsed = JSON.parse(await readFile(join(folder, f), 'utf8')) as { data: unknown };
      createHash('sha256').update(JSON.stringify(parsed.data)).digest('hex');
      n++;
    }
    return n;
  };
  const loop = async (work: () => Promise<unknown>) => {
    await work(); // warm-up, not counted
    const started = performance.now();
    let n = 0;
    while (n < 50 && performance.now() - started < PLAN_SECONDS * 1000) {
      await work();
      n++;
    }
    return { n, ms: (performance.now() - started) / n };
  };
  const base = await loop(hashFiles);
  const summaries: Record<string, string> = {};
  const planOf = (mode: string) => async () => {
    const plan = await call('/api/config/plan', { json: { mode, types: ['role'] } });
    summaries[mode] = JSON.stringify(plan.summary);
  };
  const merge = await loop(planOf('merge'));
  const mirror = await loop(planOf('mirror'));
  console.log(`exported ${exported.written} role files (${files.length} in ${folder.slice(dataDir.length + 1)})`);
  console.log(`baseline read + parse + SHA-256 of ${files.length} files: ${base.ms.toFixed(1)} ms per pass (${base.n} passes)`);
  console.log(
    `POST /api/config/plan merge:  ${merge.ms.toFixed(1)} ms per plan, ${(1000 / merge.ms).toFixed(1)} plans/s (${merge.n} plans) ${summaries.merge}`,
  );
  console.log(
    `POST /api/config/plan mirror: ${mirror.ms.toFixed(1)} ms per plan, ${(1000 / mirror.ms).toFixed(1)} plans/s (${mirror.n} plans) ${summaries.mirror}`,
  );
  console.log(`ratio plan/baseline: merge ${(merge.ms / base.ms).toFixed(2)}, mirror ${(mirror.ms / base.ms).toFixed(2)}`);
}

export const kernelEnvOf = (dataDir: string): NodeJS.ProcessEnv => ({
  ...benchKernelEnv(dataDir),
});

/**
 * `count` text files of `mib` MiB each (random base64 text, so they pass the default allow list as
 * text/plain and do not compress): one random 1 MiB block written repeatedly, the first bytes of each
 * file made unique so no two files are the same.
 */
async function generateFiles(dir: string, count: number, mib: number): Promise<string[]> {
  const block = Buffer.from(randomBytes((MiB / 4) * 3).toString('base64'));
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(dir, `bench-media-${String(i).padStart(3, '0')}.txt`);
    const out = createWriteStream(file);
    const first = Buffer.from(block);
    first.write(`bench media file ${i} ${randomUUID()}\n`);
    for (let b = 0; b < mib; b++) if (!out.write(b === 0 ? first : block)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    files.push(file);
  }
  return files;
}

/** Streams one file from disk as a multipart POST /api/media/upload (never held in memory). */
async function uploadFile(url: string, cookie: string, file: string): Promise<void> {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const size = statSync(file).size;
  const { status, body } = await streamUpload(url, cookie, { name, size, timeoutMs: TIMEOUT_MS }, (req, tail) => {
    const stream = createReadStream(file);
    stream.on('error', (err) => req.destroy(err));
    stream.on('end', () => req.end(tail));
    stream.pipe(req, { end: false });
  });
  if (status !== 201) throw new Error(`upload of ${name}: ${status} ${body.slice(0, 300)}`);
}

/** Baseline: each file streamed through SHA-256 into a copy on disk, one after another (like the backup). */
async function baselineCopy(files: string[], dir: string): Promise<number> {
  let bytes = 0;
  for (const file of files) {
    const hash = createHash('sha256');
    await pipeline(
      createReadStream(file),
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          bytes += chunk.length;
          cb(null, chunk);
        },
      }),
      createWriteStream(join(dir, file.slice(file.lastIndexOf('/') + 1))),
    );
    hash.digest('hex');
  }
  return bytes;
}

/** Samples this process's RSS every 50 ms while `work` runs. */
async function measuredSelf<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; before: number; peak: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const poll = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, seconds: (performance.now() - started) / 1000, before, peak };
  } finally {
    clearInterval(poll);
  }
}

async function mediaBackupCase(): Promise<void> {
  const totalMiB = MEDIA_FILES * MEDIA_FILE_MIB;
  console.log(
    `\n## 11. Backup create with media: ${MEDIA_FILES} x ${MEDIA_FILE_MIB} MiB (${totalMiB} MiB) local media (SQLite), against read -> SHA-256 -> copy on disk`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-backup-media-'));
  const source = join(dataDir, 'bench-source');
  const copies = join(dataDir, 'bench-copies');
  mkdirSync(source);
  mkdirSync(copies);
  const env = { ...kernelEnvOf(dataDir), MEDIA_STORAGE_TYPE: 'local', MEDIA_MAX_UPLOAD_MB: String(MEDIA_FILE_MIB * 4) };
  let kernel: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], env, dataDir);
    const genStart = performance.now();
    const files = await generateFiles(source, MEDIA_FILES, MEDIA_FILE_MIB);
    const genSeconds = (performance.now() - genStart) / 1000;
    const uploadUrl = kernel.url;
    const uploadCookie = await signIn(uploadUrl);
    const upStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
        while (next < files.length) await uploadFile(uploadUrl, uploadCookie, files[next++]!);
      }),
    );
    const upSeconds = (performance.now() - upStart) / 1000;
    console.log(
      `generated ${MEDIA_FILES} files in ${genSeconds.toFixed(1)} s; uploaded through POST /api/media/upload (${UPLOAD_CONCURRENCY} at a time) in ${upSeconds.toFixed(1)} s: ${Math.round(totalMiB / upSeconds)} MiB/s`,
    );
    // A fresh server for the backup, so its RSS is not the uploads' already-grown heap and buffers.
    await stop(kernel.child);
    kernel = undefined;
    kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], env, dataDir);
    const url = kernel.url;
    const call = client(url, await signIn(url));
    const pid = kernel.child.pid!;
    await call('/api/backups');

    const base = await measuredSelf(() => baselineCopy(files, copies));
    await rm(copies, { recursive: true, force: true });
    if (base.value !== totalMiB * MiB) throw new Error(`the baseline copied ${base.value} bytes`);

    const create = await measured(pid, async () => {
      const answer = await call('/api/backups/create', { json: { includeMedia: true } });
      if (answer.jobId) await waitForJob(call, answer.jobId);
      return { backupId: answer.backupId as string, status: answer.jobId ? '202 -> completed' : '200' };
    });
    const hwmAfterCreate = hwmOf(pid);
    const { backupId } = create.value;
    const listed = (await call('/api/backups')).backups.find((b: any) => b.backupId === backupId);
    if (!listed?.includesMedia || listed.size < totalMiB * MiB) throw new Error(`the backup is not complete: ${JSON.stringify(listed)}`);

    const validate = await measured(pid, () => call('/api/backups/validate', { json: { backupId } }));
    if (!validate.value.valid) throw new Error(`validate: ${JSON.stringify(validate.value.problems).slice(0, 300)}`);

    const baseRate = totalMiB / base.seconds;
    const createRate = totalMiB / create.seconds;
    const baseUp = base.peak - base.before;
    const createUp = create.peak - create.before;
    console.log(
      `baseline read -> SHA-256 -> copy: ${totalMiB} MiB in ${base.seconds.toFixed(1)} s: ${Math.round(baseRate)} MiB/s; bench process RSS before ${mb(base.before)}, peak ${mb(base.peak)} (+${mb(baseUp)})`,
    );
    console.log(
      `backup create includeMedia (${create.value.status}, ${(listed.size / MiB).toFixed(0)} MiB written): ${create.seconds.toFixed(1)} s: ${Math.round(createRate)} MiB/s; ${plus(create)}`,
    );
    console.log(
      `ratio create/baseline: throughput ${(createRate / baseRate).toFixed(2)}, RSS increase ${baseUp > 0 ? (createUp / baseUp).toFixed(2) : 'n/a'}`,
    );
    console.log(
      `RSS increase <= ${RSS_LIMIT_MIB} MiB: ${createUp <= RSS_LIMIT_MIB * MiB ? 'yes' : 'no'} (+${(createUp / MiB).toFixed(1)} MiB)`,
    );
    console.log(`(server restarted after the uploads; its VmHWM, peak RSS since that start, after the backup: ${mb(hwmAfterCreate)})`);
    console.log(
      `backup validate (valid, every file re-hashed in the pool): ${validate.seconds.toFixed(1)} s: ${Math.round(totalMiB / validate.seconds)} MiB/s; ${plus(validate)}`,
    );
  } finally {
    if (kernel) await stop(kernel.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runDataOpsBench(): Promise<void> {
  if (CASES.has('9') || CASES.has('10')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-dataops-'));
    const { kernel, db } = await startKernelWithDb(dataDir);
    try {
      const call = client(kernel.url, await signIn(kernel.url));
      if (CASES.has('9')) await backupCase(call, db, kernel.child.pid!, dataDir);
      if (CASES.has('10')) await configCase(call, db, dataDir);
    } finally {
      await db.close().catch(() => undefined);
      await stop(kernel.child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (CASES.has('11')) await mediaBackupCase();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runDataOpsBench();
