/**
 * A child process for the two-process lock test: boots a kernel on the parent's MariaDB database
 * (DATA_OPS_DB_URL) with the fixture domain (DATA_OPS_PLUGIN_DIR) and applies DATA_OPS_PLAN_ID (domain
 * `fixture`, tenant `default`). It prints `locked` once this process holds the domain's lock
 * (`data-ops:fixture:default` in cms_locks, owned by this kernel's lock), then `done <answer JSON>`
 * when the apply has finished, and exits.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { DbLock } from '../../kernel/db/lock.js';
import type { DataOpsEngine } from '../../plugins/data-ops/public.js';
import { fixturePlugin, startTestKernel } from './kernel.js';

const env = process.env;
const t = await startTestKernel({
  db: 'mariadb',
  dbUrl: env.DATA_OPS_DB_URL!,
  plugins: [fixturePlugin('test-identity'), env.DATA_OPS_PLUGIN_DIR!],
});
try {
  const engine = t.kernel.container.resolve<DataOpsEngine>('dataOps');
  const lock = t.kernel.container.resolve<DbLock>('lock');
  const db = t.kernel.container.resolve<Sequelize>('sequelize');
  let finished = false;
  const applying = engine
    .apply(
      'fixture',
      { planId: env.DATA_OPS_PLAN_ID!, confirmed: true },
      { kind: 'user', userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' },
    )
    .finally(() => (finished = true));
  // Signal once the apply holds the lock (the parent then applies against it).
  while (!finished) {
    const held = await db.query<{ owner: string }>('SELECT owner FROM cms_locks WHERE name = ?', {
      replacements: ['data-ops:fixture:default'],
      type: QueryTypes.SELECT,
    });
    if (held[0]?.owner === lock.owner) {
      process.stdout.write('locked\n');
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const answer = await applying;
  process.stdout.write(`done ${JSON.stringify(answer)}\n`);
} finally {
  await t.close();
}
