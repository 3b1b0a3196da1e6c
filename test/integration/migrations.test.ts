import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { loadConfig } from '../../kernel/config.js';
import { createSequelize } from '../../kernel/db/database.js';
import { KERNEL_MIGRATIONS } from '../../kernel/db/kernel-migrations.js';
import { DbLock } from '../../kernel/db/lock.js';
import { MigrationRunner, type MigrationDefinition } from '../../kernel/db/migrations.js';
import { BootError } from '../../kernel/errors.js';
import { createLogger } from '../../kernel/logger.js';
import { fixturePlugin, startTestKernel, tempDir, writePlugin, type TestKernel, type TestKernelOptions } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, type DbVariant } from '../helpers/services.js';
import { requireVariant } from '../helpers/services.js';
import { rejectionOf } from '../helpers/assertions.js';

const logger = createLogger('silent');
const KERNEL_NAMES = KERNEL_MIGRATIONS.map((m) => m.name);

/** One empty database of the variant: the options that put a test kernel on it, a direct connection, cleanup. */
interface Target {
  kernelOptions: Pick<TestKernelOptions, 'db' | 'dataDir' | 'dbUrl'>;
  connect(): Sequelize;
  cleanup(): Promise<void>;
}

async function createTarget(variant: DbVariant): Promise<Target> {
  const dataDir = tempDir('cms-mig-');
  let dbUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (variant.name === 'mariadb') {
    const created = await createMariaDbDatabase();
    dbUrl = created.url;
    drop = created.drop;
  }
  const config = loadConfig({
    ignoreFile: true,
    env: {},
    overrides: { dataDir, logLevel: 'silent', db: dbUrl ? { url: dbUrl } : { type: 'sqlite', storage: 'cms.sqlite' } },
  });
  return {
    kernelOptions: dbUrl ? { db: 'mariadb', dbUrl, dataDir } : { db: 'sqlite', dataDir },
    connect: () => createSequelize(config, logger),
    async cleanup() {
      if (drop) await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function ledger(sequelize: Sequelize): Promise<Array<{ name: string; checksum: string; executed_at: string }>> {
  return sequelize.query('SELECT name, checksum, executed_at FROM cms_migrations ORDER BY name', { type: QueryTypes.SELECT });
}

async function countRows(sequelize: Sequelize, table: string): Promise<number> {
  const [row] = await sequelize.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT });
  return Number(row!.n);
}

async function tableExists(sequelize: Sequelize, table: string): Promise<boolean> {
  const tables = (await sequelize.getQueryInterface().showAllTables()) as Array<string | { tableName: string }>;
  return tables.some((t) => (typeof t === 'string' ? t : t.tableName) === table);
}

for (const variant of DB_VARIANTS) {
  describe(`migrations (${variant.name})`, function () {
    this.timeout(60000);

    before(function () {
      requireVariant(this, variant);
    });

    describe('two kernels started together on one database, then a restart', function () {
      let target: Target | undefined;
      let db: Sequelize | undefined;
      const kernels: TestKernel[] = [];

      before(async function () {
        target = await createTarget(variant);
        db = target.connect();
      });

      after(async function () {
        for (const k of kernels.splice(0)) await k.close();
        await db?.close();
        await target?.cleanup();
      });

      it('runs each migration exactly once when two kernels boot concurrently', async function () {
        const options = { ...target!.kernelOptions, plugins: [fixturePlugin('test-echo')] };
        const results = await Promise.allSettled([startTestKernel(options), startTestKernel(options)]);
        for (const r of results) if (r.status === 'fulfilled') kernels.push(r.value);
        for (const r of results) if (r.status === 'rejected') throw r.reason;

        expect(await countRows(db!, 'test_echo_runs')).to.equal(1);
        const names = (await ledger(db!)).map((r) => r.name);
        // Every migration the kernel declares (its own, the built-in plugins', the fixture's), once each.
        const declared = kernels[0]!.kernel.migrations.map((m) => m.name);
        expect(declared).to.include.members([...KERNEL_NAMES, 'test-echo/0001-runs']);
        for (const name of declared)
          expect(
            names.filter((n) => n === name),
            name,
          ).to.have.length(1);
        expect([...names].sort()).to.deep.equal([...declared].sort());
        // Both instances released the migrations lock.
        expect(await countRows(db!, 'cms_locks')).to.equal(0);
        for (const k of kernels.splice(0)) await k.close();
      });

      it('runs nothing new when a kernel starts on an already migrated database', async function () {
        const before = await ledger(db!);
        expect(before.map((r) => r.name)).to.include.members([...KERNEL_NAMES, 'test-echo/0001-runs']);

        const tk = await startTestKernel({ ...target!.kernelOptions, plugins: [fixturePlugin('test-echo')] });
        kernels.push(tk);
        expect(tk.kernel.phase).to.equal('WARMED');
        expect(await ledger(db!)).to.deep.equal(before);
        expect(await countRows(db!, 'test_echo_runs')).to.equal(1);

        // The same migration list run once more by hand applies nothing either.
        const runner = new MigrationRunner(tk.kernel.sequelize, tk.kernel.lock, logger);
        expect(await runner.run(tk.kernel.migrations)).to.deep.equal([]);
        expect(await ledger(db!)).to.deep.equal(before);
      });
    });

    describe('a migration changed after it ran', function () {
      let target: Target | undefined;
      let db: Sequelize | undefined;
      let pluginRoot: string | undefined;

      before(async function () {
        target = await createTarget(variant);
        db = target.connect();
        pluginRoot = tempDir('cms-mig-plugins-');
        // Written plugins are ES modules.
        writeFileSync(join(pluginRoot, 'package.json'), JSON.stringify({ type: 'module' }));
      });

      after(async function () {
        await db?.close();
        await target?.cleanup();
        if (pluginRoot) rmSync(pluginRoot, { recursive: true, force: true });
      });

      it('stops MigrationRunner.run with a BootError naming the migration and runs none of it', async function () {
        const runner = new MigrationRunner(db!, new DbLock(db!), logger);
        const original: MigrationDefinition = {
          name: 'checksum-test/0001-widgets',
          async up({ queryInterface, DataTypes }) {
            await queryInterface.createTable('mig_widgets', { id: { type: DataTypes.INTEGER, primaryKey: true } });
          },
        };
        const later: MigrationDefinition = {
          name: 'checksum-test/0002-gadgets',
          async up({ queryInterface, DataTypes }) {
            await queryInterface.createTable('mig_gadgets', { id: { type: DataTypes.INTEGER, primaryKey: true } });
          },
        };
        expect(await runner.run([...KERNEL_MIGRATIONS, original])).to.deep.equal([...KERNEL_NAMES, original.name]);

        const edited: MigrationDefinition = {
          name: original.name,
          async up({ queryInterface, DataTypes }) {
            await queryInterface.createTable('mig_widgets_v2', { id: { type: DataTypes.INTEGER, primaryKey: true } });
          },
        };
        const err = await rejectionOf(runner.run([...KERNEL_MIGRATIONS, edited, later]));
        expect(err).to.be.instanceOf(BootError);
        expect(err.message).to.include(`'${original.name}'`).and.to.include('changed after it ran');
        // Nothing ran: neither the edited body nor the migration after it.
        expect(await tableExists(db!, 'mig_widgets_v2')).to.equal(false);
        expect(await tableExists(db!, 'mig_gadgets')).to.equal(false);
        expect((await ledger(db!)).map((r) => r.name)).to.not.include(later.name);
        // The lock was released: the unchanged list still runs (only the new migration).
        expect(await new MigrationRunner(db!, new DbLock(db!), logger).run([...KERNEL_MIGRATIONS, original, later])).to.deep.equal([
          later.name,
        ]);
      });

      it('stops the next kernel boot with a BootError naming the plugin migration', async function () {
        const migration = (table: string) => `export default {
  register({ migrations }) {
    migrations.add({
      name: '0001-table',
      async up({ queryInterface, DataTypes }) {
        await queryInterface.createTable('${table}', { id: { type: DataTypes.INTEGER, primaryKey: true } });
      },
    });
  },
};
`;
        // Same plugin id twice, in two folders (a module URL is imported once per process).
        const v1 = writePlugin(join(pluginRoot!, 'v1'), { id: 'mig-edit' }, migration('mig_edit_v1'));
        const v2 = writePlugin(join(pluginRoot!, 'v2'), { id: 'mig-edit' }, migration('mig_edit_v2'));

        const first = await startTestKernel({ ...target!.kernelOptions, plugins: [v1] });
        await first.close();
        expect(await tableExists(db!, 'mig_edit_v1')).to.equal(true);
        const before = await ledger(db!);
        expect(before.map((r) => r.name)).to.include('mig-edit/0001-table');

        const err = await rejectionOf(startTestKernel({ ...target!.kernelOptions, plugins: [v2] }));
        expect(err).to.be.instanceOf(BootError);
        expect(err.message).to.include("'mig-edit/0001-table'").and.to.include('changed after it ran');
        expect(await tableExists(db!, 'mig_edit_v2')).to.equal(false);
        expect(await ledger(db!)).to.deep.equal(before);
        expect(await countRows(db!, 'cms_locks')).to.equal(0);

        // The original code still boots on that database.
        const again = await startTestKernel({ ...target!.kernelOptions, plugins: [v1] });
        expect(again.kernel.phase).to.equal('WARMED');
        await again.close();
      });
    });
  });
}
