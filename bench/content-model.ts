/**
 * Content-model cases of `npm run bench` (group `model`; also `node dist/bench/content-model.js` alone), each against
 * a baseline measured in the same run, on a kernel in this process with the list cache off (every list reads the
 * database):
 * (18) a list of 20 with `populate` of two one-relations and a many-relation (5 targets each) against the same list
 *      without populate: time per list (through the in-process content client and through HTTP) and the SQL statements
 *      one list runs (SQLite: its trace hook; MariaDB: Sequelize's logging hook), on SQLite and on MariaDB;
 * (19) a filter through a relation (`{"author.name": ...}`) over BENCH_MODEL_ENTRIES (100,000) entries on SQLite,
 *      p50/p99 against a filter on an indexed field of the same selectivity (bench/content-model-filter.ts);
 * (20) writes and reads of an entry with a blocks field of 50 blocks: the event loop's longest stall
 *      (perf_hooks.monitorEventLoopDelay) against the same with a text field of the same size (bench/content-model-blocks.ts).
 * (22) a list of 20 in a non-default locale with fallback against the same list in the default locale
 *      (bench/content-locales.ts, issue 36).
 * (23) a list of 20 for a role with a where and a fields rule against a role without rules (bench/role-rules.ts, issue 38).
 * MariaDB runs when BENCH_MARIADB_URL or CMS_TEST_MARIADB_URL is set (else its lines say skipped). BENCH_MODEL_CASES
 * (default `18,19,20,22,23`) picks the cases. Bounded: a fixed number of requests per case.
 */
import { fileURLToPath } from 'node:url';
import type { Sequelize } from 'sequelize';
import { runBlocksBench } from './content-model-blocks.js';
import { runLocalesBench } from './content-locales.js';
import { runRoleRulesBench } from './role-rules.js';
import { runRelationFilterBench } from './content-model-filter.js';
import {
  countStatements,
  MARIADB_URL,
  ms,
  percentile,
  startBenchKernel,
  timed,
  type BenchKernel,
  type Db,
} from './content-model-kernel.js';
import { ratio } from './harness.js';

const CASES = new Set((process.env.BENCH_MODEL_CASES ?? '18,19,20,22,23').split(',').map((c) => c.trim()));
const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS ?? 400);
const POPULATE = 'author,editor,topics';

/** people and topics (5 each) and 100 stories, each with an author, an editor and the 5 topics. */
async function seedStories(k: BenchKernel): Promise<void> {
  for (const c of [
    { name: 'people', fields: [{ name: 'name', type: 'text' }] },
    { name: 'topics', fields: [{ name: 'name', type: 'text' }] },
    {
      name: 'stories',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'richtext' },
        { name: 'author', type: 'relation', collection: 'people' },
        { name: 'editor', type: 'relation', collection: 'people' },
        { name: 'topics', type: 'relation', collection: 'topics', cardinality: 'many' },
      ],
    },
  ])
    await k.call('/api/collections', { json: c });
  const made = async (collection: string, name: string) =>
    (await k.call(`/api/collections/${collection}`, { json: { name, status: 'published' } }))._id as string;
  const people: string[] = [];
  const topics: string[] = [];
  for (let i = 0; i < 5; i++) people.push(await made('people', `Person ${i}`));
  for (let i = 0; i < 5; i++) topics.push(await made('topics', `Topic ${i}`));
  const entries = Array.from({ length: 100 }, (_, i) => ({
    title: `Story ${String(i).padStart(3, '0')}`,
    body: `<p>${'The quick brown fox jumps over the lazy dog. '.repeat(10)}</p>`,
    status: 'published',
    author: people[i % 5],
    editor: people[(i + 1) % 5],
    topics,
  }));
  await k.call('/api/collections/stories/batch', { json: { entries } });
}

interface Side {
  service: number[];
  http: number[];
}

/** ROUNDS lists each way, alternating (so both see the same machine), through the content client and through HTTP. */
async function timeLists(k: BenchKernel): Promise<{ plain: Side; populated: Side }> {
  const client = k.kernel.container.resolve<(identity?: unknown) => any>('contentClient')();
  const stories = client.entries('stories');
  const plain: Side = { service: [], http: [] };
  const populated: Side = { service: [], http: [] };
  const query = { sort: 'title', limit: 20 };
  for (let i = 0; i < ROUNDS + 20; i++) {
    const page = 1 + (i % 5);
    const a = await timed(() => stories.list({ ...query, page }));
    const b = await timed(() => stories.list({ ...query, page, populate: POPULATE }));
    const c = await timed(() => k.call(`/api/collections/stories?sort=title&limit=20&page=${page}`));
    const d = await timed(() => k.call(`/api/collections/stories?sort=title&limit=20&page=${page}&populate=${POPULATE}`));
    if (i < 20) continue; // warm-up
    plain.service.push(a);
    populated.service.push(b);
    plain.http.push(c);
    populated.http.push(d);
  }
  return { plain, populated };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The statements of one list (the fewest of 5, so a kernel timer's query during one does not count). */
async function statementsOf(k: BenchKernel, path: string): Promise<string[]> {
  let fewest: string[] | undefined;
  for (let i = 0; i < 5; i++) {
    const { statements } = await countStatements(k.sequelize as Sequelize, () => k.call(path));
    if (!fewest || statements.length < fewest.length) fewest = statements;
  }
  return fewest!;
}

async function populateCase(db: Db): Promise<void> {
  if (db === 'mariadb' && !MARIADB_URL) return console.log('mariadb: skipped (BENCH_MARIADB_URL / CMS_TEST_MARIADB_URL not set)');
  const k = await startBenchKernel(db);
  try {
    await seedStories(k);
    const { plain, populated } = await timeLists(k);
    const plainSql = await statementsOf(k, '/api/collections/stories?sort=title&limit=20');
    const populatedSql = await statementsOf(k, `/api/collections/stories?sort=title&limit=20&populate=${POPULATE}`);
    for (const via of ['service', 'http'] as const) {
      const [p, q] = [plain[via], populated[via]];
      console.log(
        `${db} ${via.padEnd(7)} plain mean ${ms(mean(p))} p50 ${ms(percentile(p, 50))} p99 ${ms(percentile(p, 99))}` +
          ` | populated mean ${ms(mean(q))} p50 ${ms(percentile(q, 50))} p99 ${ms(percentile(q, 99))}` +
          ` | ratio populated/plain: mean ${ratio(mean(q), mean(p))}, p50 ${ratio(percentile(q, 50), percentile(p, 50))}`,
      );
    }
    console.log(`${db} statements per list: plain ${plainSql.length}, populated ${populatedSql.length}`);
    if (process.env.BENCH_MODEL_SQL) for (const s of populatedSql) console.log(`  ${s.slice(0, 200)}`);
  } finally {
    await k.close();
  }
}

export async function runContentModelBench(): Promise<void> {
  if (CASES.has('18')) {
    console.log(
      `## 18. List of 20 with populate of two one-relations and a many-relation (5 each) against the same list without (list cache off, ${ROUNDS} lists each)`,
    );
    await populateCase('sqlite');
    await populateCase('mariadb');
    console.log();
  }
  if (CASES.has('19')) await runRelationFilterBench();
  if (CASES.has('20')) await runBlocksBench();
  if (CASES.has('22')) await runLocalesBench();
  if (CASES.has('23')) await runRoleRulesBench();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runContentModelBench();
