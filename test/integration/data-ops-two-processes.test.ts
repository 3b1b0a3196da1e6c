import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { as, dataOf } from '../helpers/content.js';
import { FIXTURE_TABLE, fixtureDomainPluginDir } from '../helpers/data-ops-fixture-domain.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { createMariaDbDatabase, MARIADB_URL } from '../helpers/services.js';

const CHILD = fileURLToPath(new URL('../helpers/data-ops-apply-child.js', import.meta.url));
type Rows = Record<string, string>;
const SEED: Rows = { a: '1', b: '2', x: '9' };
const INPUT = [
  { name: 'a', value: '1' },
  { name: 'b', value: '3' },
  { name: 'c', value: '4' },
];
const LOCK_WAIT_MS = 300;

/**
 * Lock contention between two instances: two processes (the test's kernel and a child process's kernel)
 * on one MariaDB database. While the child applies a plan that holds (holding `data-ops:fixture:default` in
 * cms_locks until the parent creates the plan's release file, however slow the machine), the parent's apply waits DATA_OPS_LOCK_WAIT_MS and answers 409 LOCK_CONTENTION without
 * touching the rows; once the child's apply is done, the parent's (re-planned: the first plan is stale)
 * succeeds.
 */
describe('data operations: lock contention between two processes on one MariaDB', function () {
  this.timeout(60000);
  let database: { url: string; drop(): Promise<void> } | undefined;
  let t: TestKernel | undefined;
  let child: ChildProcess | undefined;
  let pluginDir: string;

  before(async function () {
    if (!MARIADB_URL) {
      console.log('      CMS_TEST_MARIADB_URL is not set: two-process lock contention test skipped');
      this.skip();
    }
    pluginDir = fixtureDomainPluginDir();
    database = await createMariaDbDatabase();
    t = await startTestKernel({
      db: 'mariadb',
      dbUrl: database.url,
      plugins: [fixturePlugin('test-identity'), pluginDir],
      config: { plugins: { options: { 'data-ops': { lockWaitMs: LOCK_WAIT_MS } } } },
    });
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await t?.close();
    await database?.drop();
  });

  async function rows(): Promise<Rows> {
    const data = await dataOf(await as(t!, 'viewer').get('/api/fixture-data/rows'));
    return Object.fromEntries(data.rows.map((r: { name: string; value: string }) => [r.name, r.value]));
  }
  const plan = async (body: object) => dataOf(await as(t!, 'admin').post('/api/fixture-data/fixture/plan', body));
  const apply = (body: object) => as(t!, 'admin').post('/api/fixture-data/fixture/apply', body);
  async function refused(res: TestResponse, status: number, code: string): Promise<void> {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.equal(status);
    expect(body.error, JSON.stringify(body)).to.equal(code);
  }

  it("an apply in another process holds the domain's lock: 409 LOCK_CONTENTION, rows untouched; afterwards the parent's apply succeeds", async () => {
    const db = t!.kernel.container.resolve<Sequelize>('sequelize');
    for (const [name, value] of Object.entries(SEED)) {
      await db.query(`INSERT INTO ${FIXTURE_TABLE} (tenant_id, name, value) VALUES ('default', ?, ?)`, { replacements: [name, value] });
    }
    const releaseFile = join(tempDir(), 'release');
    const slow = await plan({ rows: INPUT, mode: 'mirror', releaseFile });

    child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, DATA_OPS_PLAN_ID: slow.planId, DATA_OPS_PLUGIN_DIR: pluginDir, DATA_OPS_DB_URL: database!.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const exited = new Promise<number | string | null>((resolve) => child!.on('exit', (code, signal) => resolve(signal ?? code)));
    const waitFor = async (line: string, ms: number) => {
      const deadline = Date.now() + ms;
      while (!out.split('\n').some((l) => l.startsWith(line))) {
        if (Date.now() > deadline || child!.exitCode !== null)
          throw new Error(`the child did not print '${line}': stdout ${out} stderr ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    await waitFor('locked', 30000);
    // Planned while the child's apply runs (its transaction is not committed: the parent sees the seed).
    const quick = await plan({ rows: [{ name: 'q', value: '1' }], mode: 'add' });
    const started = Date.now();
    await refused(await apply({ planId: quick.planId }), 409, 'LOCK_CONTENTION');
    expect(Date.now() - started).to.be.at.least(LOCK_WAIT_MS - 50);
    // All of this happened while the child still held the lock (it holds it until released).
    expect(out).to.not.include('done');
    expect(await rows()).to.deep.equal(SEED);
    writeFileSync(releaseFile, '');

    await waitFor('done', 30000);
    expect(await exited).to.equal(0);
    const answer = JSON.parse(
      out
        .split('\n')
        .find((l) => l.startsWith('done '))!
        .slice('done '.length),
    );
    expect(answer.status, JSON.stringify(answer)).to.equal(200);
    expect(answer.data).to.include({ planId: slow.planId, outcome: 'success' });
    expect(await rows()).to.deep.equal({ a: '1', b: '3', c: '4' });

    // The parent's first plan was made against the seed: stale now, nothing applied; re-planned, it applies.
    await refused(await apply({ planId: quick.planId }), 409, 'PLAN_STALE');
    expect(await rows()).to.deep.equal({ a: '1', b: '3', c: '4' });
    const again = await plan({ rows: [{ name: 'q', value: '1' }], mode: 'add' });
    const done = await dataOf(await apply({ planId: again.planId }));
    expect(done.outcome).to.equal('success');
    expect(await rows()).to.deep.equal({ a: '1', b: '3', c: '4', q: '1' });
  });
});
