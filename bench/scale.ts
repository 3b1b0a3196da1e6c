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
 *
 * Search (docs/features/search.md): the seeded rows bypass the entries' writes, so after each size the kernel indexes
 * the collection again as on an upgrade (its search state forgotten, a restart, the background rebuild awaited through
 * content_search_state) and prints how long that took; then the index must hold a document per entry and each search
 * case must answer the number of matches the seeded titles make (an ERROR line and exit code 1 otherwise). The cases:
 * a rare word (1 match), a common word (10%), a prefix (1.1%), a phrase (0.1%) and a word of every entry.
 * BENCH_SCALE_SQLITE_DIR keeps SQLite's data dir after the run; a later run takes its entries and index up (so a
 * million entries are seeded and indexed once; every size must then be at least what it holds).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';
import { countStatements, MARIADB_URL, percentile, startBenchKernel, timed, type BenchKernel, type Db } from './content-model-kernel.js';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000,1000000').split(',').map((s) => Number(s.trim()));
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 60);
const CASE_SECONDS = Number(process.env.BENCH_SCALE_CASE_SECONDS ?? 15);
const AUTHORS = 1000;
/** SQLite's data dir, kept after the run; a later run takes its entries up (and seeds only beyond them). */
const KEEP = process.env.BENCH_SCALE_SQLITE_DIR;
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

/** Ten words, one in each tenth of the entries (entry i has WORDS[i % 10]); none is the prefix of another word of a title. */
const WORDS = ['amber', 'birch', 'cedar', 'dune', 'ember', 'fjord', 'grove', 'heath', 'inlet', 'juniper'];
/** A seeded entry's title: its number, a token shared by a thousandth of the entries (`k<n>x`) and a word of WORDS. */
const titleOf = (i: number) => `Item ${i} k${spread(i, 1000)}x ${WORDS[i % 10]}`;

/** The search cases: the term of request i at size n and the number of entries it matches there. */
interface Search {
  name: string;
  term(n: number, i: number): string;
  expect(n: number): number;
}
const SEARCHES: Search[] = [
  // A number in [n/10, n): its own entry only (words match as prefixes, and every longer number is past n).
  { name: 'search, rare word (1 match)', term: (n, i) => String(n / 10 + spread(i, (n * 9) / 10)), expect: () => 1 },
  { name: 'search, common word (10%)', term: (_n, i) => WORDS[i % 10]!, expect: (n) => n / 10 },
  // `k12` is the prefix of k12x and k120x..k129x: 11 of the 1,000 tokens.
  { name: 'search, prefix (1.1%)', term: (_n, i) => `k${10 + (i % 90)}`, expect: (n) => (11 * n) / 1000 },
  // Entries with the same k<n>x have the same i % 1000, so the same word after it: a thousandth of the entries.
  { name: 'search, phrase (0.1%)', term: (_n, i) => `"k${spread(i, 1000)}x ${WORDS[i % 10]}"`, expect: (n) => n / 1000 },
  { name: 'search, word of every entry', term: () => 'item', expect: (n) => n },
];

const CASES: Case[] = [
  { name: 'list (cached)', cached: true, path: () => '/api/collections/items?limit=20' },
  { name: 'list (uncached)', path: () => '/api/collections/items?limit=20' },
  { name: 'filter, indexed field', path: (n, i) => `/api/collections/items?limit=20&filter=${q({ batch: spread(i, n / PER_BATCH) })}` },
  { name: 'sort, unindexed field', path: () => '/api/collections/items?limit=20&sort=rank:desc' },
  { name: 'populate (one relation)', path: () => '/api/collections/items?limit=20&populate=author' },
  // Full-text search (docs/features/search.md) through the index, which holds every seeded entry (indexIt below); each
  // case's matches are known from the seeded titles (`expect`), checked on the first answer of each size.
  ...SEARCHES.map((s) => ({
    name: s.name,
    path: (n: number, i: number) => `/api/collections/items?limit=20&search=${encodeURIComponent(s.term(n, i))}`,
  })),
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
export async function prepare(k: BenchKernel): Promise<string[]> {
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

/** The authors and the number of entries of a data dir kept by an earlier run (BENCH_SCALE_SQLITE_DIR), else prepare()'s. */
async function resume(k: BenchKernel): Promise<{ authors: string[]; have: number }> {
  const items = await tableOf(k, 'items').catch(() => null);
  if (!items) return { authors: await prepare(k), have: 0 };
  const select = <T extends object>(sql: string) => k.sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  const authors = await select<{ id: string }>(`SELECT id FROM ${await tableOf(k, 'people')} ORDER BY f_name`);
  const [n] = await select<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${items}`);
  return { authors: authors.map((r) => r.id), have: Number(n!.n) };
}

/** Entries [from, to) straight into the table: one transaction per 10,000 rows, multi-row INSERTs of 1,000. */
export async function grow(k: BenchKernel, authors: string[], from: number, to: number): Promise<void> {
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
            f_title: titleOf(i),
            f_batch: Math.floor(i / PER_BATCH),
            f_rank: spread(i, 1_000_003),
            f_author: authors[i % authors.length]!,
          };
        });
        await sequelize.getQueryInterface().bulkInsert(table, rows, { transaction });
      }
    });
}

/**
 * Has the kernel index the collection again as on an upgrade's first start (its search state forgotten, the kernel
 * restarted: the background rebuild of plugins/content/index.ts, 500 entries per transaction) and waits until the
 * rebuild has written the state again: the kernel and the milliseconds from the restart on.
 */
export async function indexIt(k: BenchKernel): Promise<{ k: BenchKernel; ms: number }> {
  await k.sequelize.query(`DELETE FROM content_search_state WHERE collection = 'items'`);
  const started = performance.now();
  k = await k.restart(false);
  const done = () =>
    k.sequelize.query(`SELECT signature FROM content_search_state WHERE collection = 'items'`, { type: QueryTypes.SELECT });
  while (!(await done()).length) await new Promise((resolve) => setTimeout(resolve, 100));
  return { k, ms: performance.now() - started };
}

/** The documents of the collection's entries in the default locale, when its index has been made (else -1). */
async function indexed(k: BenchKernel): Promise<number> {
  const select = <T extends object>(sql: string) => k.sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  const state = await select(`SELECT signature FROM content_search_state WHERE collection = 'items'`);
  const [docs] = await select<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM content_search_docs WHERE collection = 'items' AND locale = ''`,
  );
  return state.length ? Number(docs!.n) : -1;
}

/** The index holds a document of every entry, and each search case answers the number of matches its titles make. */
async function verify(k: BenchKernel, db: Db, size: number): Promise<void> {
  const docs = await indexed(k);
  const errors: string[] = [];
  if (docs !== size) errors.push(`the index holds ${docs} documents, not ${size}`);
  for (const s of SEARCHES)
    for (const i of [0, 1]) {
      const { total, items } = (await k.call(`/api/collections/items?limit=20&search=${encodeURIComponent(s.term(size, i))}`)) as {
        total: number;
        items: unknown[];
      };
      if (total !== s.expect(size) || items.length !== Math.min(20, s.expect(size)))
        errors.push(`${s.name} (${s.term(size, i)}): total ${total}, ${items.length} items; expected ${s.expect(size)}`);
    }
  for (const e of errors) console.log(`  ${db}: ERROR at ${size.toLocaleString('en')}: ${e}`);
  if (errors.length) process.exitCode = 1;
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
  const keep = db === 'sqlite' ? KEEP : undefined;
  if (keep) mkdirSync(keep, { recursive: true });
  let k = await startBenchKernel(db, keep ? { dataDir: keep } : undefined);
  const results = new Map<string, number[][]>(CASES.map((c) => [c.name, []]));
  const plans: string[] = [];
  try {
    const resumed = await resume(k);
    const authors = resumed.authors;
    let have = resumed.have;
    if (SIZES.some((size) => size < have)) throw new Error(`${keep} holds ${have} entries: every size must be at least that`);
    for (const size of SIZES) {
      const seeded = await timed(() => grow(k, authors, have, size));
      // A kept data dir whose index is complete (state written, a document per entry) is not indexed again.
      const complete = have === size && (await indexed(k)) === size;
      have = size;
      await noteCursors(k, size);
      const index = complete ? { k, ms: NaN } : await indexIt(k);
      k = index.k;
      const rebuilt = complete ? 'index complete in the kept data dir' : `search index rebuilt in ${(index.ms / 1000).toFixed(1)} s`;
      const took = `seeded in ${(seeded / 1000).toFixed(1)} s, ${rebuilt}`;
      console.log(`  ${db}: ${size.toLocaleString('en')} entries (${took})`);
      await verify(k, db, size);
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
    await (keep ? k.kernel.close() : k.close());
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
