/**
 * A child process for the crash test: boots a kernel on the parent's database (DATA_OPS_DATA_DIR for
 * SQLite, DATA_OPS_DB_URL for MariaDB) with the fixture domain (DATA_OPS_PLUGIN_DIR), prints `applying`
 * and applies DATA_OPS_PLAN_ID; the parent kills it with SIGKILL in the middle of the apply.
 */
import type { DataOpsEngine } from '../../plugins/data-ops/public.js';
import { fixturePlugin, startTestKernel } from './kernel.js';

const env = process.env;
const t = await startTestKernel({
  ...(env.DATA_OPS_DB_URL ? { db: 'mariadb' as const, dbUrl: env.DATA_OPS_DB_URL } : { dataDir: env.DATA_OPS_DATA_DIR! }),
  plugins: [fixturePlugin('test-identity'), env.DATA_OPS_PLUGIN_DIR!],
  config: { plugins: { options: { 'data-ops': { lockTtlMs: 1500 } } } },
});
const engine = t.kernel.container.resolve<DataOpsEngine>('dataOps');
process.stdout.write('applying\n');
const answer = await engine.apply(
  'fixture',
  { planId: env.DATA_OPS_PLAN_ID!, confirmed: true },
  { kind: 'user', userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' },
);
process.stdout.write(`done ${JSON.stringify(answer)}\n`);
await t.close();
