/**
 * Case 23 of the content-model group (bench/content-model.ts; issue 38, "Speed"): a list of 20 entries for a role
 * with a `where` rule and a `fields` rule against the same list for a role without rules, on SQLite and on MariaDB
 * when configured, list cache off (every list reads the database) and on (the second and later reads of a page come
 * from the cache), through HTTP with each role's signed-in session and through the in-process content client.
 * 1,000 published posts (title, body, category, internalNotes); the ruled role reads `{$or: [{createdBy: "$user"},
 * {status: "published"}]}` without `internalNotes`, so both roles list the same 20 entries per page.
 * BENCH_MODEL_ROUNDS (400) lists each way, alternating. The ratio (rules / none) is the figure: at most 1.2 is the target.
 */
import { MARIADB_URL, ms, percentile, startBenchKernel, timed, type BenchKernel, type Db } from './content-model-kernel.js';
import { ratio, seeded } from './harness.js';

const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS ?? 400);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const PASSWORD = 'benchmark password';
const RULES = [
  {
    action: 'read',
    collection: 'memos',
    fields: ['title', 'body', 'category'],
    where: { $or: [{ createdBy: '$user' }, { status: 'published' }] },
  },
  { action: 'update', collection: 'memos', fields: ['title', 'body'], where: { createdBy: '$user' } },
];

async function seed(k: BenchKernel): Promise<void> {
  await k.call('/api/collections', {
    json: {
      name: 'memos',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'richtext' },
        { name: 'category', type: 'text' },
        { name: 'internalNotes', type: 'text' },
      ],
    },
  });
  for (let b = 0; b < 10; b++) {
    const entries = Array.from({ length: 100 }, (_, i) => ({
      title: `Post ${String(b * 100 + i).padStart(4, '0')}`,
      body: `<p>${'The quick brown fox jumps over the lazy dog. '.repeat(8)}</p>`,
      category: `Category ${i % 7}`,
      internalNotes: `note ${i}`,
      status: 'published',
    }));
    await k.call('/api/collections/memos/batch', { json: { entries } });
  }
  await k.call('/api/roles', { json: { name: 'plain', permissions: ['content:read', 'content:write'] } });
  await k.call('/api/roles', { json: { name: 'ruled', permissions: ['content:read', 'content:write'], rules: RULES } });
}

/** A user of the role, signed in: its session cookie. */
async function userOf(k: BenchKernel, role: string): Promise<{ cookie: string; id: string }> {
  const email = `${role}@example.com`;
  const user = (await k.call('/api/user/create-user', { json: { email, password: PASSWORD, role } })) as { _id: string };
  const login = await fetch(`${k.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))
    ?.split(';')[0];
  if (!cookie) throw new Error(`sign-in as ${role} failed: ${login.status}`);
  return { cookie, id: user._id };
}

async function list(k: BenchKernel, cookie: string, page: number): Promise<{ items: Array<Record<string, unknown>> }> {
  const res = await fetch(`${k.url}/api/collections/memos?sort=category,title&limit=20&page=${page}`, { headers: { cookie } });
  if (!res.ok) throw new Error(`list: ${res.status}`);
  return ((await res.json()) as { data: { items: Array<Record<string, unknown>> } }).data;
}

interface Side {
  service: number[];
  http: number[];
}

async function rulesCase(db: Db, listCache: boolean): Promise<void> {
  if (db === 'mariadb' && !MARIADB_URL) return console.log('mariadb: skipped (BENCH_MARIADB_URL / CMS_TEST_MARIADB_URL not set)');
  const k = await startBenchKernel(db, undefined, listCache);
  try {
    await seed(k);
    const plainUser = await userOf(k, 'plain');
    const ruledUser = await userOf(k, 'ruled');
    const factory = k.kernel.container.resolve<(identity?: unknown) => any>('contentClient');
    const identity = (id: string, role: string, rules?: unknown) => ({
      kind: 'user',
      userId: id,
      role,
      permissions: ['content:read', 'content:write'],
      tenantId: 'default',
      ...(rules ? { rules } : {}),
    });
    const plainPosts = factory(identity(plainUser.id, 'plain')).entries('memos');
    const ruledPosts = factory(identity(ruledUser.id, 'ruled', RULES)).entries('memos');
    const plain: Side = { service: [], http: [] };
    const ruled: Side = { service: [], http: [] };
    // The four lists of a round run in a shuffled order (a seeded generator, the same every run): work a request
    // leaves behind it (a session's last-seen write, a log line) lands on whichever list follows, so a fixed order
    // would charge one side with the other's tail every round.
    const random = seeded(23);
    for (let i = 0; i < ROUNDS + 20; i++) {
      const page = 1 + (i % 5);
      const runs: Array<[number[], () => Promise<unknown>]> = [
        [plain.service, () => plainPosts.list({ sort: 'category,title', limit: 20, page })],
        [ruled.service, () => ruledPosts.list({ sort: 'category,title', limit: 20, page })],
        [plain.http, () => list(k, plainUser.cookie, page)],
        [ruled.http, () => list(k, ruledUser.cookie, page)],
      ];
      for (let j = runs.length - 1; j > 0; j--) {
        const at = Math.floor(random() * (j + 1));
        [runs[j], runs[at]] = [runs[at]!, runs[j]!];
      }
      for (const [into, run] of runs) {
        const took = await timed(run);
        if (i >= 20) into.push(took); // the first 20 rounds warm up
      }
    }
    const [p, r] = [await list(k, plainUser.cookie, 1), await list(k, ruledUser.cookie, 1)];
    const same = p.items.map((e) => e._id).join() === r.items.map((e) => e._id).join();
    const cache = listCache ? 'cache on ' : 'cache off';
    for (const via of ['service', 'http'] as const) {
      const [x, y] = [plain[via], ruled[via]];
      console.log(
        `${db} ${cache} ${via.padEnd(7)} no rules mean ${ms(mean(x))} p50 ${ms(percentile(x, 50))} p99 ${ms(percentile(x, 99))}` +
          ` | rules mean ${ms(mean(y))} p50 ${ms(percentile(y, 50))} p99 ${ms(percentile(y, 99))}` +
          ` | ratio rules/none: mean ${ratio(mean(y), mean(x))}, p50 ${ratio(percentile(y, 50), percentile(x, 50))}`,
      );
    }
    console.log(
      `${db} ${cache} page 1: the same ${r.items.length} entries for both roles: ${same}; internalNotes in the ruled answer: ${r.items.some((e) => 'internalNotes' in e)}`,
    );
  } finally {
    await k.close();
  }
}

export async function runRoleRulesBench(): Promise<void> {
  console.log(
    `## 23. List of 20 for a role with a where and a fields rule against a role without rules (${ROUNDS} lists each, list cache off and on)`,
  );
  for (const db of ['sqlite', 'mariadb'] as const) for (const listCache of [false, true]) await rulesCase(db, listCache);
  console.log();
}
