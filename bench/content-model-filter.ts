/**
 * Case 19 of the content-model group (bench/content-model.ts): GET /api/collections/articles?filter={"author.name": ...}
 * over BENCH_MODEL_ENTRIES (100,000) articles on SQLite with the indexes the schema creates, against a filter on an
 * indexed integer field of the same selectivity (`{"batch": n}`), through the real route (list cache off). Articles
 * come in blocks of 100 per author (author 0 wrote the oldest), seeded with multi-row INSERTs in one transaction
 * (the kernel's writers are not what this case measures); the kernel is then restarted on the same data, as after an
 * import, and the filters are read for authors spread over the age of the data, the oldest included.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { countStatements, cpuTimed, ms, percentile, startBenchKernel, timed, type BenchKernel } from './content-model-kernel.js';
import { ratio } from './harness.js';

const ENTRIES = Number(process.env.BENCH_MODEL_ENTRIES ?? 100_000);
const PER_AUTHOR = 100;
const REQUESTS = Number(process.env.BENCH_MODEL_FILTER_REQUESTS ?? 400);

async function tableOf(k: BenchKernel, name: string): Promise<string> {
  return (await k.kernel.container.resolve<{ get(n: string): Promise<{ table: string }> }>('collections').get(name)).table;
}

/** The authors (one per PER_AUTHOR articles) through the batch route, then the articles straight into their table. */
async function seed(k: BenchKernel): Promise<string[]> {
  await k.call('/api/collections', { json: { name: 'people', fields: [{ name: 'name', type: 'text' }] } });
  await k.call('/api/collections', {
    json: {
      name: 'articles',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'batch', type: 'number', indexed: true },
        { name: 'author', type: 'relation', collection: 'people' },
      ],
    },
  });
  const authors = Math.ceil(ENTRIES / PER_AUTHOR);
  for (let start = 0; start < authors; start += 100) {
    const entries = Array.from({ length: Math.min(100, authors - start) }, (_, i) => ({
      name: `Author ${start + i}`,
      status: 'published',
    }));
    await k.call('/api/collections/people/batch', { json: { entries } });
  }
  const sequelize = k.sequelize as Sequelize;
  const people = await sequelize.query<{ id: string; f_name: string }>(`SELECT id, f_name FROM "${await tableOf(k, 'people')}"`, {
    type: QueryTypes.SELECT,
  });
  const byName = new Map(people.map((p) => [p.f_name, p.id]));
  const table = await tableOf(k, 'articles');
  const now = Date.now() - ENTRIES;
  await sequelize.transaction(async (transaction) => {
    for (let start = 0; start < ENTRIES; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, ENTRIES - start) }, (_, j) => {
        const i = start + j;
        const batch = Math.floor(i / PER_AUTHOR);
        return {
          id: randomUUID(),
          tenant_id: 'default',
          sync_id: randomUUID(),
          slug: `article-${i}`,
          status: 'published',
          version: 1,
          created_by: 'bench',
          updated_by: 'bench',
          created_at: now + i,
          updated_at: now + i,
          f_title: `Article ${i}`,
          f_batch: batch,
          f_author: byName.get(`Author ${batch}`)!,
        };
      });
      await sequelize.getQueryInterface().bulkInsert(table, rows, { transaction });
    }
  });
  return Array.from({ length: authors }, (_, i) => `Author ${i}`);
}

type Timings = { wall: number[]; cpu: number[] };
const timings = (): Timings => ({ wall: [], cpu: [] });

/** REQUESTS lists each way, alternating, over authors spread over the data (the oldest every tenth). */
async function measure(k: BenchKernel, authors: number): Promise<{ relation: Timings; indexed: Timings; oldest: Timings }> {
  const out = { relation: timings(), indexed: timings(), oldest: timings() };
  const list = (filter: unknown) => k.call(`/api/collections/articles?limit=20&filter=${encodeURIComponent(JSON.stringify(filter))}`);
  const keep = (t: Timings, f: { wall: number; cpu: number }) => (t.wall.push(f.wall), t.cpu.push(f.cpu));
  for (let i = 0; i < REQUESTS + 20; i++) {
    const n = i % 10 === 0 ? 0 : (i * 7919) % authors;
    let total = 0;
    const a = await cpuTimed(async () => (total = (await list({ 'author.name': `Author ${n}` })).total));
    if (total !== PER_AUTHOR) throw new Error(`author ${n}: ${total} articles, not ${PER_AUTHOR}`);
    const b = await cpuTimed(() => list({ batch: n }));
    if (i < 20) continue;
    keep(out.relation, a);
    keep(out.indexed, b);
    if (n === 0) keep(out.oldest, a);
  }
  return out;
}

const figures = (t: Timings) =>
  `wall p50 ${ms(percentile(t.wall, 50))} p99 ${ms(percentile(t.wall, 99))} max ${ms(Math.max(...t.wall))}   CPU p50 ${ms(percentile(t.cpu, 50))} p99 ${ms(percentile(t.cpu, 99))}`;

/** BENCH_MODEL_EXPLAIN: SQLite's plan of each statement of both filters (author 0). */
async function explain(k: BenchKernel): Promise<void> {
  const sequelize = k.sequelize as Sequelize;
  for (const filter of [{ 'author.name': 'Author 0' }, { batch: 0 }]) {
    const path = `/api/collections/articles?limit=20&filter=${encodeURIComponent(JSON.stringify(filter))}`;
    const { statements } = await countStatements(sequelize, () => k.call(path));
    for (const sql of statements) {
      const plan = await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, { type: QueryTypes.SELECT });
      console.log(`  ${sql.slice(0, 160)}\n    ${plan.map((p) => p.detail).join('\n    ')}`);
    }
  }
}

async function variants(k: BenchKernel): Promise<void> {
  const sequelize = k.sequelize as Sequelize;
  const a = await tableOf(k, 'articles');
  const p = await tableOf(k, 'people');
  const sub = `SELECT id FROM ${p} WHERE tenant_id = 'default' AND f_name = 'Author 0'`;
  for (const where of [`f_author IN (${sub})`, `likelihood(f_author IN (${sub}), 0.001)`, `unlikely(f_author IN (${sub}))`]) {
    const sql = `SELECT * FROM ${a} WHERE tenant_id = 'default' AND ${where} ORDER BY created_at DESC, id ASC LIMIT 20`;
    const plan = await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, { type: QueryTypes.SELECT });
    const t = await timed(() => sequelize.query(sql, { type: QueryTypes.SELECT }));
    console.log(`  ${where.slice(0, 40)}: ${ms(t)}\n    ${plan.map((x) => x.detail).join('\n    ')}`);
  }
}

export async function runRelationFilterBench(): Promise<void> {
  console.log(
    `## 19. Filter through a relation ({"author.name": ...}) over ${ENTRIES.toLocaleString('en')} entries on SQLite against a filter on an indexed field ({"batch": n}), same selectivity (${PER_AUTHOR}), ${REQUESTS} lists each`,
  );
  const first = await startBenchKernel('sqlite');
  let authors: string[];
  const started = performance.now();
  try {
    authors = await seed(first);
  } catch (err) {
    await first.close();
    throw err;
  }
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The same data folder again (as after an import): restarted so the kernel's start-up work sees the new rows.
  const k = await first.restart();
  try {
    if (process.env.BENCH_MODEL_EXPLAIN) await explain(k);
    if (process.env.BENCH_MODEL_EXPLAIN) await variants(k);
    const f = await measure(k, authors.length);
    console.log(`relation path (author.name)    ${figures(f.relation)}`);
    console.log(`  the oldest author's          ${figures(f.oldest)}`);
    console.log(`indexed field (batch)          ${figures(f.indexed)}`);
    const r = (p: number, key: keyof Timings) => ratio(percentile(f.relation[key], p), percentile(f.indexed[key], p));
    console.log(
      `ratio relation path/indexed field: wall p50 ${r(50, 'wall')}, p99 ${r(99, 'wall')}; CPU p50 ${r(50, 'cpu')}, p99 ${r(99, 'cpu')}\n`,
    );
  } finally {
    await k.close();
  }
}
