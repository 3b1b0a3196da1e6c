import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import { as, dataOf } from '../helpers/content.js';
import { FIXTURE_TABLE, startFixtureDomainKernel } from '../helpers/data-ops-fixture-domain.js';
import type { TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const CHILD = fileURLToPath(new URL('../helpers/data-ops-crash-child.js', import.meta.url));
const SEED = { a: '1', b: '2', x: '9' };

/**
 * kill -9 of the process that applies a plan, in the middle of the apply (a transactional domain, one
 * operation written, the next one waiting): the data is as before, the audit chain verifies, the lock
 * left by the dead process expires, and the plan applies afterwards.
 */
for (const variant of DB_VARIANTS) {
  describe(`data operations: kill -9 during an apply (${variant.name})`, function () {
    this.timeout(90000);
    let t: TestKernel;
    let pluginDir: string;

    before(async function () {
      requireVariant(this, variant);
      ({ t, pluginDir } = await startFixtureDomainKernel({
        db: variant.name,
        config: { plugins: { options: { 'data-ops': { lockWaitMs: 8000 } } } },
      }));
    });
    after(async () => t?.close());

    it('leaves the rows as before, a verifiable audit chain and a re-appliable plan', async () => {
      const db = t.kernel.container.resolve<Sequelize>('sequelize');
      for (const [name, value] of Object.entries(SEED)) {
        await db.query(`INSERT INTO ${FIXTURE_TABLE} (tenant_id, name, value) VALUES ('default', ?, ?)`, { replacements: [name, value] });
      }
      const input = [
        { name: 'a', value: '1' },
        { name: 'b', value: '3' },
        { name: 'c', value: '4' },
      ];
      const plan = await dataOf(await as(t, 'admin').post('/api/fixture-data/fixture/plan', { rows: input, mode: 'mirror', delayMs: 400 }));
      const child = spawn(process.execPath, [CHILD], {
        env: {
          ...process.env,
          DATA_OPS_PLAN_ID: plan.planId,
          DATA_OPS_PLUGIN_DIR: pluginDir,
          ...(t.dbUrl ? { DATA_OPS_DB_URL: t.dbUrl } : { DATA_OPS_DATA_DIR: t.dataDir }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
      const deadline = Date.now() + 30000;
      while (!out.includes('applying')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child did not start applying: ${out} ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // Operation 1 is written after 400 ms, operation 2 after 800 ms: kill in between.
      await new Promise((r) => setTimeout(r, 650));
      child.kill('SIGKILL');
      expect(await exited).to.equal('SIGKILL');
      expect(out).to.not.include('done');

      const rows = async () =>
        Object.fromEntries(
          (await dataOf(await as(t, 'viewer').get('/api/fixture-data/rows'))).rows.map((r: { name: string; value: string }) => [
            r.name,
            r.value,
          ]),
        );
      expect(await rows()).to.deep.equal(SEED);
      expect((await t.kernel.container.resolve<AuditLog>('audit').verify()).valid).to.equal(true);
      // The dead process's lock expires (lease 1.5 s); the plan was never marked applied.
      const done = await dataOf(await as(t, 'admin').post('/api/fixture-data/fixture/apply', { planId: plan.planId, confirmed: true }));
      expect(done.outcome).to.equal('success');
      expect(await rows()).to.deep.equal({ a: '1', b: '3', c: '4' });
      expect((await t.kernel.container.resolve<AuditLog>('audit').verify()).valid).to.equal(true);
    });
  });
}
