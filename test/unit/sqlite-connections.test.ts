import { strict as assert } from 'node:assert';
import { QueryTypes, type Transaction } from 'sequelize';
import { NestedWriteError } from '../../kernel/db/write-gate.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

type Connection = { open: boolean };
const connectionOf = (t: Transaction) => (t as unknown as { connection: Connection }).connection;

/**
 * SQLite transactions on the kernel's database (kernel/db/sqlite-connections.ts): the connection of a finished
 * transaction serves the next one, clean (a rollback leaves nothing open), and is closed with the database; a
 * transaction's gate label names its caller when it is shown.
 */
describe('unit: SQLite transaction connections', function () {
  this.timeout(20000);
  let db: UnitDb;
  before(async () => {
    db = await openUnitDb({ migrate: false });
    await db.sequelize.query('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  });
  after(async () => db?.close());
  const count = async (t?: Transaction) =>
    Number((await db.sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM notes', { type: QueryTypes.SELECT, transaction: t }))[0]!.n);

  it('runs one transaction after the other on the same open connection', async () => {
    const first = await db.sequelize.transaction(async (t) => {
      await db.sequelize.query("INSERT INTO notes (body) VALUES ('one')", { transaction: t });
      return connectionOf(t);
    });
    const second = await db.sequelize.transaction(async (t) => {
      assert.equal(await count(t), 1);
      return connectionOf(t);
    });
    assert.equal(second, first);
    assert.equal(first.open, true);
  });

  it('hands on a clean connection after a rollback: nothing of the rolled-back transaction is left', async () => {
    const before = await count();
    await assert.rejects(
      db.sequelize.transaction(async (t) => {
        await db.sequelize.query("INSERT INTO notes (body) VALUES ('gone')", { transaction: t });
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    // The next transaction begins (no transaction left open on its connection) and sees no trace.
    await db.sequelize.transaction(async (t) => {
      assert.equal(await count(t), before);
      await db.sequelize.query("INSERT INTO notes (body) VALUES ('kept')", { transaction: t });
    });
    assert.equal(await count(), before + 1);
  });

  it("names the transaction's caller in a nested write's refusal (the label read when shown)", async () => {
    await db.sequelize.transaction(async () => {
      // A write without its transaction, from inside it: refused at once, naming the transaction that holds the gate.
      const refused = await db.sequelize.query("INSERT INTO notes (body) VALUES ('nested')").catch((err: unknown) => err);
      assert.ok(refused instanceof NestedWriteError);
      assert.match(refused.message, /\(transaction at .*sqlite-connections\.test\.js/);
      assert.match(refused.message, /A write \(INSERT INTO notes \(body\) VALUES \('…'\)\)/);
    });
  });

  it('closes the waiting connection with the database', async () => {
    const other = await openUnitDb({ migrate: false });
    const connection = await other.sequelize.transaction(async (t) => connectionOf(t));
    assert.equal(connection.open, true);
    await other.close();
    assert.equal(connection.open, false);
  });
});
