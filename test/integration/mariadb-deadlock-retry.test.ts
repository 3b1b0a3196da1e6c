import { expect } from 'chai';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { MARIADB_URL } from '../helpers/services.js';

/**
 * Two transactions that lock two rows in opposite order: InnoDB rolls one back as the deadlock victim.
 * The kernel runs a managed transaction that lost this way again, so both writes land and nobody sees a 500.
 */
describe('MariaDB: a transaction rolled back as a deadlock victim is run again', function () {
  this.timeout(30000);
  let t: TestKernel;
  let sequelize: Sequelize;
  before(async function () {
    if (!MARIADB_URL) {
      console.log('      (skipped: CMS_TEST_MARIADB_URL is not set)');
      this.skip();
    }
    t = await startTestKernel({ db: 'mariadb' });
    sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
    await sequelize.query('CREATE TABLE deadlock_probe (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB');
    await sequelize.query('INSERT INTO deadlock_probe (id, n) VALUES (1, 0), (2, 0)');
  });
  after(() => t?.close());

  it('completes both crossing transactions, one of them on a second attempt', async () => {
    let attempts = 0;
    let firstHolds!: () => void;
    const firstLocked = new Promise<void>((resolve) => (firstHolds = resolve));
    let secondHolds!: () => void;
    const secondLocked = new Promise<void>((resolve) => (secondHolds = resolve));
    const bump = (t: Transaction, id: number) =>
      sequelize.query('UPDATE deadlock_probe SET n = n + 1 WHERE id = ?', { replacements: [id], transaction: t });
    const first = sequelize.transaction(async (t) => {
      attempts++;
      await bump(t, 1);
      firstHolds();
      if (attempts === 1) await secondLocked;
      await bump(t, 2);
    });
    let secondAttempts = 0;
    const second = sequelize.transaction(async (t) => {
      secondAttempts++;
      await firstLocked;
      await bump(t, 2);
      secondHolds();
      await bump(t, 1);
    });
    await Promise.all([first, second]);
    // One of the two was the victim and ran twice.
    expect(attempts + secondAttempts).to.equal(3);
    const rows = await sequelize.query<{ id: number; n: number }>('SELECT id, n FROM deadlock_probe ORDER BY id', {
      type: QueryTypes.SELECT,
    });
    expect(rows.map((r) => ({ id: Number(r.id), n: Number(r.n) }))).to.deep.equal([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
