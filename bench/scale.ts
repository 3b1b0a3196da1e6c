/**
 * Scale curves of `npm run bench` (group `scale`, issue 40 item 1; also `node dist/bench/scale.js` alone): how the
 * cost of reading a collection grows with its size. One collection (`items`: title, a text with a searchable token,
 * an indexed number `batch` with 100 entries per value, an unindexed number `rank`, an author relation) grows through
 * BENCH_SCALE_SIZES (default 1,000, 10,000, 100,000 and 1,000,000 entries): the data is generated once, each size
 * adding to the last (multi-row INSERTs in one transaction per 10,000: the kernel's writers are not what this
 * measures), then the kernel restarts on it as after an import and each case runs BENCH_SCALE_REQUESTS (60) lists of
 * 20 through HTTP (the list cache off, except for the cached case), bounded by BENCH_SCALE_CASE_SECONDS (15) per case.
 * Printed as a table of p50/p99 per size and the growth from the smallest to the largest size, on SQLite and on
 * MariaDB (when BENCH_MARIADB_URL or CMS_TEST_MARIADB_URL is set), then the query plan of every statement of each case
 * at the largest size (SQLite EXPLAIN QUERY PLAN, MariaDB EXPLAIN), which is what explains a case that grows.
 * BENCH_SCALE_DBS (default `sqlite,mariadb`) picks the databases.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';
import { countStatements, MARIADB_URL, percentile, startBenchKernel, timed, type BenchKernel, type Db } from './content-model-kernel.js';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000,1000000').split(',').map((s) => Number(s.trim()));
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 60);
const CASE_SECONDS = Number(process.env.BENCH_SCALE_CASE_SECONDS ?? 15);
const AUTHORS = 1000;
const PER_BATCH = 100;

interface Case {
  name: string;
  path(size: number, i: number): string;
  /** Runs on the kernel with the list cache on. */
  cached?: boolean;
}

const q = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));
/** A spread of values over [0, n): the same sequence every run. */
const spread = (i: number, n: number) => (i * 7919) % Math.max(1, n);

const CASES: Case[] = [
  { name: 'list (cached)', cached: true, path: () => '/api/collections/items?limit=20' },
  { name: 'list (uncached)', path: () => '/api/collections/items?limit=20' },
  { name: 'filter, indexed field', path: (n, i) => `/api/collections/items?limit=20&filter=${q({ batch: spread(i, n / PER_BATCH) })}` },
  { name: 'sort, unindexed field', path: () => '/api/collections/items?limit=20&sort=rank:desc' },
  { name: 'populate (one relation)', path: () => '/api/collections/items?limit=20&populate=author' },
  { name: 'search (substring)', path: (_n, i) => `/api/collections/items?limit=20&search=k${spread(i, 1000)}x` },
  {
    name: 'count (half the rows)',
    path: (n) => `/api/collections/items?limit=1&filter=${q({ batch: { lt: Math.max(1, n / PER_BATCH / 2) } })}`,
  },
  { name: 'deep page (middle)', path: (n) => `/api/collections/items?limit=20&page=${Math.max(1, Math.floor(n / 20 / 2))}` },
  // Pages deep in the data by cursor (docs/features/content.md, "Cursor pages"): a keyset instead of an OFFSET, each
  // request another place (so no page comes from the cache), the total counted once per collection version.
  {
    name: 'deep pages by cursor (cache on)',
    cached: true,
    path: (_n, i) => `/api/collections/items?limit=20&after=${encodeURIComponent(deep.cursors[i % deep.cursors.length]!)}`,
  },
];

/** Cursors of entries spread over the second half of the default order (created_at DESC, id), made after each size is seeded. */
const deep = { cursors: [] as string[] };

async function noteCursors(k: BenchKernel, size: number): Promise<void> {
  deep.cursors = [];
  // One cursor per request of the case (none repeats, so none is answered from the cache).
  const count = Math.min(REQUESTS + 3, 200);
  for (let j = 0; j < count; j++) {
    const at = Math.floor(size / 2 + (j * size) / 2 / count);
    const [row] = await k.sequelize.query<{ created_at: number | string; id: string }>(
      `SELECT created_at, id FROM ${await tableOf(k, 'items')} ORDER BY created_at DESC, id ASC LIMIT 1 OFFSET ${Math.min(at, size - 21)}`,
      { type: QueryTypes.SELECT },
    );
    deep.cursors.push(Buffer.from(JSON.stringify({ s: '', v: [Number(row!.created_at), row!.id] })).toString('base64url'));
  }
}
async function tableOf(k: BenchKernel, name: string): Promise<string> {
  const c = await k.kernel.container.resolve<{ get(n: string): Promise<{ table: string }> }>('collections').get(name);
  return k.sequelize.getQueryInterface().quoteIdentifier(c.table);
}

/** The collections and the authors (through the API). */
async function prepare(k: BenchKernel): Promise<string[]> {
  await k.call('/api/collections', { json: { name: 'people', fields: [{ name: 'name', type: 'text' }] } });
  await k.call('/api/collections', {
    json: {
      name: 'items',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'batch', type: 'number', indexed: true },
        { name: 'rank', type: 'number' },
        { name: 'author', type: 'relation', collection: 'people' },
      ],
    },
  });
  for (let start = 0; start < AUTHORS; start += 100) {
    const entries = Array.from({ length: 100 }, (_, i) => ({ name: `Author ${start + i}`, status: 'published' }));
    await k.call('/api/collections/people/batch', { json: { entries } });
  }
  const rows = await k.sequelize.query<{ id: string }>(`SELECT id FROM ${await tableOf(k, 'people')} ORDER BY f_name`, {
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.id);
}

/** Entries [from, to) straight into the table: one transaction per 10,000 rows, multi-row INSERTs of 1,000. */
async function grow(k: BenchKernel, authors: string[], from: number, to: number): Promise<void> {
  const sequelize = k.sequelize as Sequelize;
  const table = (await tableOf(k, 'items')).replace(/^[`"]|[`"]$/g, '');
  const base = Date.UTC(2020, 0, 1);
  for (let chunk = from; chunk < to; chunk += 10_000)
    await sequelize.transaction(async (transaction) => {
      for (let start = chunk; start < Math.min(to, chunk + 10_000); start += 1000) {
        const rows = Array.from({ length: Math.min(1000, to - start) }, (_, j) => {
          const i = start + j;
          return {
            id: randomUUID(),
            tenant_id: 'default',
            sync_id: randomUUID(),
            slug: `item-${i}`,
            status: 'published',
            version: 1,
            created_by: 'bench',
            updated_by: 'bench',
            created_at: base + i * 1000,
            updated_at: base + i * 1000,
            f_title: `Item ${i} k${spread(i, 1000)}x`,
            f_batch: Math.floor(i / PER_BATCH),
            f_rank: spread(i, 1_000_003),
            f_author: authors[i % authors.length]!,
          };
        });
        await sequelize.getQueryInterface().bulkInsert(table, rows, { transaction });
      }
    });
}

/** Up to REQUESTS lists (after 3 to warm), bounded by CASE_SECONDS: their milliseconds. */
async function measure(k: BenchKernel, c: Case, size: number): Promise<number[]> {
  const out: number[] = [];
  const deadline = performance.now() + CASE_SECONDS * 1000;
  for (let i = 0; i < REQUESTS + 3 && performance.now() < deadline; i++) {
    const t = await timed(() => k.call(c.path(size, i)));
    if (i >= 3) out.push(t);
  }
  return out;
}

/** The plan of each statement one list of the case runs. */
async function explain(k: BenchKernel, c: Case, size: number): Promise<string[]> {
  const sequelize = k.sequelize as Sequelize;
  const { statements } = await countStatements(sequelize, () => k.call(c.path(size, 1)));
  const out: string[] = [];
  for (const sql of statements.filter((s) => /^\s*SELECT/i.test(s) && /cms_c_/.test(s))) {
    const sqlite = sequelize.getDialect() === 'sqlite';
    const plan = await sequelize
      .query<Record<string, unknown>>(`${sqlite ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${sql}`, { type: QueryTypes.SELECT })
      .catch(() => null); // a statement with bound parameters (MariaDB's log shows the placeholders): no plan
    const steps = plan
      ? plan.map((p) => (sqlite ? String(p.detail) : `${p.table} ${p.type} key=${p.key ?? '-'} rows=${p.rows} ${p.Extra ?? ''}`.trim()))
      : ['(bound parameters: not explained)'];
    out.push(`    ${sql.replace(/\s+/g, ' ').slice(0, 220)}\n      ${steps.join('\n      ')}`);
  }
  return out;
}

const cell = (v: number[]) => (v.length ? `${percentile(v, 50).toFixed(1)}/${percentile(v, 99).toFixed(1)}` : 'n/a');

async function runOn(db: Db): Promise<void> {
  let k = await startBenchKernel(db);
  const results = new Map<string, number[][]>(CASES.map((c) => [c.name, []]));
  const plans: string[] = [];
  try {
    const authors = await prepare(k);
    let have = 0;
    for (const size of SIZES) {
      const seeded = await timed(() => grow(k, authors, have, size));
      have = size;
      await noteCursors(k, size);
      console.log(`  ${db}: ${size.toLocaleString('en')} entries (seeded in ${(seeded / 1000).toFixed(1)} s)`);
      for (const cached of [false, true]) {
        k = await k.restart(cached);
        for (const c of CASES.filter((x) => Boolean(x.cached) === cached)) {
          results.get(c.name)!.push(await measure(k, c, size));
          if (size === SIZES[SIZES.length - 1] && !cached) plans.push(`  ${c.name}:`, ...(await explain(k, c, size)));
        }
      }
      k = await k.restart(false);
    }
  } finally {
    await k.close();
  }
  console.log(`\n  ${db}: p50/p99 ms of one list of 20 (HTTP, in-process kernel), per size; growth = p50 largest / p50 smallest`);
  console.log(`  | case | ${SIZES.map((s) => s.toLocaleString('en')).join(' | ')} | growth |`);
  console.log(`  |---|${SIZES.map(() => '---').join('|')}|---|`);
  for (const c of CASES) {
    const row = results.get(c.name)!;
    const growth = (percentile(row[row.length - 1] ?? [], 50) / Math.max(0.001, percentile(row[0] ?? [], 50))).toFixed(1);
    console.log(`  | ${c.name} | ${row.map(cell).join(' | ')} | ${growth}x |`);
  }
  console.log(`\n  ${db}: query plans at ${SIZES[SIZES.length - 1]!.toLocaleString('en')} entries\n${plans.join('\n')}\n`);
}

export async function runScaleBench(): Promise<void> {
  console.log(
    `## 24. Scale: lists of 20 at ${SIZES.map((s) => s.toLocaleString('en')).join(', ')} entries (issue 40), ${REQUESTS} per case and size, at most ${CASE_SECONDS} s each`,
  );
  const dbs = (process.env.BENCH_SCALE_DBS ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
  if (dbs.includes('sqlite')) await runOn('sqlite');
  if (!dbs.includes('mariadb')) return;
  if (MARIADB_URL) await runOn('mariadb');
  else console.log('  mariadb: skipped (set BENCH_MARIADB_URL or CMS_TEST_MARIADB_URL)');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runScaleBench();
