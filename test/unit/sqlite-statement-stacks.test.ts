import { strict as assert } from 'node:assert';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/**
 * A failed SQLite statement on the kernel's database (kernel/db/sqlite-statement-stacks.ts) still carries a stack
 * trace that names the code that ran it (the trace is formatted only then); a good statement answers as before.
 */
describe('unit: SQLite statement stack traces', function () {
  this.timeout(20000);
  let db: UnitDb;
  before(async () => {
    db = await openUnitDb({ migrate: false });
  });
  after(() => db.close());

  it("a failed statement's error names its caller, and Error.stackTraceLimit is left as it was", async () => {
    const limit = Error.stackTraceLimit;
    async function readMissingTable() {
      return await db.sequelize.query('SELECT * FROM no_such_table');
    }
    const err = await readMissingTable().then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err, 'the statement failed');
    assert.match(err.name, /SequelizeDatabaseError/);
    assert.match(err.stack ?? '', /readMissingTable/);
    assert.equal(Error.stackTraceLimit, limit);
    assert.deepEqual(await db.sequelize.query('SELECT 1 AS one', { plain: true }), { one: 1 });
  });

  it('a write after the last gated write finds no gate scope (the storage is off between writes)', async () => {
    await db.sequelize.query('CREATE TABLE IF NOT EXISTS marks (id INTEGER PRIMARY KEY)');
    await db.sequelize.transaction(async (transaction) => {
      await db.sequelize.query('INSERT INTO marks (id) VALUES (1)', { transaction });
    });
    // Two writes at once and one after: each gets the writer in turn (none is taken for a nested write).
    await Promise.all([db.sequelize.query('INSERT INTO marks (id) VALUES (2)'), db.sequelize.query('INSERT INTO marks (id) VALUES (3)')]);
    await db.sequelize.query('INSERT INTO marks (id) VALUES (4)');
    const row = (await db.sequelize.query('SELECT COUNT(*) AS n FROM marks', { plain: true })) as { n: number } | null;
    assert.equal(Number(row?.n), 4);
  });
});
