import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes } from 'sequelize';
import { BootError, LockedError, ValidationError } from '../../kernel/errors.js';
import { DbLock } from '../../kernel/db/lock.js';
import { MigrationRunner, migrationChecksum, type MigrationDefinition } from '../../kernel/db/migrations.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/** The database lock, the checksummed migration runner and the query guard, on a real SQLite file. */
describe('unit: database lock, migrations and query guard', () => {
  let db: UnitDb;
  before(async () => {
    db = await openUnitDb();
  });
  after(() => db?.close());

  describe('DbLock', () => {
    it('a second holder waits until the first releases, then gets the lock', async () => {
      const a = new DbLock(db.sequelize);
      const b = new DbLock(db.sequelize);
      const order: string[] = [];
      const release = await a.acquire('unit-wait', { ttlMs: 10000 });
      const waiting = b.withLock('unit-wait', async () => void order.push('b runs'), { waitMs: 2000 });
      await sleep(60);
      order.push('a releases');
      await release();
      await waiting;
      assert.deepEqual(order, ['a releases', 'b runs']);
    });

    it('gives up with LockedError after waitMs while another holds it', async () => {
      const a = new DbLock(db.sequelize);
      const release = await a.acquire('unit-busy', { ttlMs: 10000 });
      try {
        await assert.rejects(new DbLock(db.sequelize).acquire('unit-busy', { waitMs: 80 }), LockedError);
      } finally {
        await release();
      }
    });

    it('an expired lock (its holder died) is taken over', async () => {
      await new DbLock(db.sequelize).acquire('unit-expired', { ttlMs: 1 }); // never released
      await sleep(5);
      const release = await new DbLock(db.sequelize).acquire('unit-expired', { waitMs: 1000 });
      await release();
    });

    it('withLock releases after a failure', async () => {
      const lock = new DbLock(db.sequelize);
      await assert.rejects(
        lock.withLock('unit-fail', async () => {
          throw new Error('inside');
        }),
        /inside/,
      );
      const rows = await db.sequelize.query('SELECT name FROM cms_locks WHERE name = ?', {
        replacements: ['unit-fail'],
        type: QueryTypes.SELECT,
      });
      assert.equal(rows.length, 0);
    });
  });

  describe('MigrationRunner', () => {
    const table = (name: string): MigrationDefinition => ({
      name: `unit/${name}`,
      async up({ queryInterface, DataTypes }) {
        await queryInterface.createTable(name, { id: { type: DataTypes.INTEGER, primaryKey: true } });
      },
    });

    it('runs each migration once and records it in the ledger', async () => {
      const m = table('unit_once');
      assert.deepEqual(await db.migrator.run([m]), ['unit/unit_once']);
      assert.deepEqual(await db.migrator.run([m]), [], 'already applied');
      const ledger = await db.migrator.ledger();
      assert.equal(ledger.find((r) => r.name === 'unit/unit_once')?.checksum, migrationChecksum(m));
    });

    it('stops with a BootError when an applied migration was changed afterwards', async () => {
      await db.migrator.run([table('unit_changed')]);
      const edited: MigrationDefinition = {
        name: 'unit/unit_changed',
        async up({ queryInterface, DataTypes }) {
          await queryInterface.createTable('unit_changed', {
            id: { type: DataTypes.INTEGER, primaryKey: true },
            extra: { type: DataTypes.TEXT },
          });
        },
      };
      await assert.rejects(
        db.migrator.run([edited]),
        (err: unknown) =>
          err instanceof BootError &&
          /unit\/unit_changed/.test((err as Error).message) &&
          /changed after it ran/.test((err as Error).message),
      );
    });

    it('refuses a list naming one migration twice', async () => {
      await assert.rejects(
        db.migrator.run([table('unit_twice'), table('unit_twice')]),
        (err: unknown) => err instanceof BootError && /declared twice/.test((err as Error).message),
      );
    });

    it('a failing migration is not recorded, so it runs again next time', async () => {
      let attempts = 0;
      const flaky: MigrationDefinition = {
        name: 'unit/flaky',
        checksum: 'fixed',
        async up() {
          if (++attempts === 1) throw new Error('first try fails');
        },
      };
      await assert.rejects(db.migrator.run([flaky]));
      assert.ok(!(await db.migrator.ledger()).some((r) => r.name === 'unit/flaky'));
      assert.deepEqual(await db.migrator.run([flaky]), ['unit/flaky']);
      assert.equal(attempts, 2);
    });

    it('two runners racing on one database apply a migration once', async () => {
      let runs = 0;
      const m: MigrationDefinition = {
        name: 'unit/race',
        checksum: 'race',
        async up() {
          runs++;
        },
      };
      const other = new MigrationRunner(db.sequelize, new DbLock(db.sequelize), db.logger);
      const [a, b] = await Promise.all([db.migrator.run([m]), other.run([m])]);
      assert.equal(runs, 1);
      assert.deepEqual([...a, ...b], ['unit/race']);
    });
  });

  describe('query guard (createSequelize)', () => {
    it('refuses text with a NUL character before it reaches SQLite (400)', async () => {
      await assert.rejects(
        db.sequelize.query('SELECT ? AS v', { replacements: ['a\u0000b'], type: QueryTypes.SELECT }),
        (err: unknown) => err instanceof ValidationError && err.status === 400,
      );
    });

    it('a transaction that fails writes nothing (rolled back)', async () => {
      await db.sequelize.query('CREATE TABLE IF NOT EXISTS unit_tx (v TEXT)');
      await assert.rejects(
        db.sequelize.transaction(async (transaction) => {
          await db.sequelize.query("INSERT INTO unit_tx (v) VALUES ('x')", { transaction });
          throw new Error('abort');
        }),
        /abort/,
      );
      const rows = await db.sequelize.query('SELECT v FROM unit_tx', { type: QueryTypes.SELECT });
      assert.equal(rows.length, 0);
    });
  });
});
