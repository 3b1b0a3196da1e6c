import { expect } from 'chai';
import type { MariaDbPair } from '../../cluster/mariadb-pair.js';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { settledPair, startPairOrSkip } from '../helpers/mariadb-pair.js';
import { until } from '../helpers/until.js';

const NOTES = { name: 'notes', fields: [{ name: 'title', type: 'text', required: true }] };
const reader = (t: TestKernel) => as(t, 'viewer');

describe('read replicas (DB_READ_URLS) with two replicas: one failing leaves the other serving', function () {
  this.timeout(180000);
  let pair: MariaDbPair | undefined;
  let t: TestKernel;
  let table: string;
  let first: { _id: string };

  const health = async () => ((await (await fetch(`${t.url}/api/health`)).json()) as any).data;
  /** Each replica gets its own title for the same row (the primary never touches it again): a read shows who served it. */
  const markReplicas = async () => {
    for (const [i, replica] of pair!.replicas.entries())
      await replica.query(`UPDATE cms.\`${table}\` SET f_title = ? WHERE id = ?`, [`On replica ${i + 1}`, first._id]);
  };
  /**
   * The titles of `n` reads of the row by id at once (not cached: each is a statement on a replica or the primary;
   * at once, so the pool holds several connections, made to the replicas in turn).
   */
  const titlesOfReads = async (n: number) => {
    const reads = Array.from({ length: n }, async () => (await dataOf(await reader(t).get(`/api/collections/notes/${first._id}`))).title);
    return new Set<string>(await Promise.all(reads));
  };

  before(async function () {
    pair = await startPairOrSkip(this, 2);
    t = await startTestKernel({
      db: 'mariadb',
      dbUrl: pair.primary.url('cms'),
      plugins: [fixturePlugin('test-identity')],
      config: {
        db: {
          readUrls: pair.replicas.map((r) => `mariadb://root@127.0.0.1:${r.port}`),
          replicaRetryMs: 500,
          readYourWritesMs: 60000,
        },
      },
    });
    await dataOf(await as(t, 'admin').post('/api/collections', NOTES), 201);
    first = await dataOf(
      await as(t, 'editor').post('/api/collections/notes', { title: 'Written on the primary', status: 'published' }),
      201,
    );
    // The set-up's background writes (the new collection's search index) reach both replicas before the checks.
    await settledPair(pair);
    const [row] = await pair.replica.query("SELECT table_name AS name FROM cms.content_collections WHERE name = 'notes'");
    table = row.name;
    await markReplicas();
    await until(async () => ((await health()).status === 'ok' ? true : undefined), 'both replicas checked', 20000);
  });

  after(async () => {
    await t?.close();
    await pair?.stop();
  });

  it('reads are spread over both replicas, none on the primary', async () => {
    const seen = await until(async () => {
      const titles = await titlesOfReads(10);
      return titles.size === 2 ? titles : undefined;
    }, 'reads served by both replicas');
    expect([...seen].sort()).to.deep.equal(['On replica 1', 'On replica 2']);
  });

  it('the second replica killed: every read comes from the first (not the primary); health names the one down', async () => {
    await pair!.replicas[1]!.kill();
    // Every read answers 200 meanwhile: a read on the dead replica's pooled connection is answered by the primary.
    const h = await until(async () => {
      await titlesOfReads(2);
      const body = await health();
      return body.replicas?.list[1]?.state === 'down' ? body : undefined;
    }, 'health to name the second replica down');
    expect(h.status).to.equal('degraded');
    expect(h.replicas.readsOnReplicas).to.equal(true);
    expect(h.replicas.list.map((r: any) => r.state)).to.deep.equal(['ok', 'down']);
    expect([...(await titlesOfReads(12))]).to.deep.equal(['On replica 1']);
    // An uncached list answers from the first replica too.
    const list = await dataOf(await reader(t).get('/api/collections/notes?limit=9'));
    expect(list.items.map((e: any) => e.title)).to.deep.equal(['On replica 1']);
  });

  it('the second replica back: reads are spread over both again and health is ok', async () => {
    await pair!.replicas[1]!.restart();
    await pair!.waitForReplica();
    await until(async () => ((await health()).status === 'ok' ? true : undefined), 'health to be ok again', 20000);
    await until(
      async () => ((await titlesOfReads(10)).has('On replica 2') ? true : undefined),
      'a read served by the second replica again',
      20000,
    );
  });
});
