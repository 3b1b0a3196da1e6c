import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/** Two instances on one database apply the same migration at once: it runs once. */
for (const variant of DB_VARIANTS) {
  describe(`data migrations: two instances (${variant.name})`, function () {
    this.timeout(60000);
    let a: TestKernel;
    let b: TestKernel;
    const dirs: string[] = [];
    before(async function () {
      requireVariant(this, variant);
      const dirA = tempDir();
      const dirB = variant.name === 'sqlite' ? dirA : tempDir();
      dirs.push(...new Set([dirA, dirB]));
      const migration = {
        id: '2026-11-25-bump-labels',
        collection: 'items',
        // Not idempotent if it ran twice: x -> x-1 -> x-2.
        steps: [{ op: 'mapValues', field: 'label', values: { x: 'x-1', 'x-1': 'x-2' } }],
      };
      for (const dir of new Set([dirA, dirB])) {
        mkdirSync(join(dir, 'migrations'), { recursive: true });
        writeFileSync(join(dir, 'migrations', 'bump.json'), JSON.stringify(migration));
      }
      const plugins = [fixturePlugin('test-identity')];
      a = await startTestKernel({ db: variant.name, dataDir: dirA, plugins });
      await dataOf(await as(a, 'admin').post('/api/collections', { name: 'items', fields: [{ name: 'label', type: 'text' }] }), 201);
      for (let i = 0; i < 20; i++) await dataOf(await as(a, 'admin').post('/api/collections/items', { label: 'x' }), 201);
      b = await startTestKernel({ ...(variant.name === 'sqlite' ? { dataDir: dirB } : { dbUrl: a.dbUrl, dataDir: dirB }), plugins });
    });
    after(async () => {
      await b?.close();
      await a?.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it('runs the migration exactly once when both apply at the same time', async function () {
      const planA = await dataOf(await as(a, 'admin').post('/api/migrations/plan', {}));
      const planB = await dataOf(await as(b, 'admin').post('/api/migrations/plan', {}));
      expect(planA.operations).to.deep.equal([{ action: 'update', type: 'migration', target: '2026-11-25-bump-labels', count: 20 }]);
      expect(planB.operations).to.deep.equal(planA.operations);
      const answers = await Promise.all([
        as(a, 'admin').post('/api/migrations/apply', { planId: planA.planId }),
        as(b, 'admin').post('/api/migrations/apply', { planId: planB.planId }),
      ]);
      const bodies = await Promise.all(answers.map((r) => r.json()));
      const succeeded = bodies.filter((body, i) => answers[i]!.status === 200 && body.data.outcome === 'success');
      expect(succeeded, JSON.stringify(bodies)).to.have.length(1);
      const other = bodies.find((body, i) => !(answers[i]!.status === 200 && body.data.outcome === 'success'));
      // The loser waited for the lock and found the data changed, or could not get the lock, or rolled back on the ledger key.
      expect(JSON.stringify(other)).to.match(/PLAN_STALE|LOCK_CONTENTION|rollback/);
      const history = await dataOf(await as(b, 'admin').get('/api/migrations/history'));
      expect(history.history.map((h: { id: string }) => h.id)).to.deep.equal(['2026-11-25-bump-labels']);
      const list = await dataOf(await as(a, 'admin').get('/api/collections/items?limit=50'));
      expect(list.items).to.have.length(20);
      expect(new Set(list.items.map((e: { label: string }) => e.label))).to.deep.equal(new Set(['x-1']));
    });
  });
}
