import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { AuditLog, GENESIS_HASH, type AuditEntry, type AuditInput } from '../../kernel/audit.js';
import { DbLock } from '../../kernel/db/lock.js';
import { ValidationError } from '../../kernel/errors.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { requireVariant } from '../helpers/services.js';
import { rejectionOf } from '../helpers/assertions.js';
import { openTwoConnections, type TwoConnections } from '../helpers/two-connections.js';

function input(n: number, overrides: Partial<AuditInput> = {}): AuditInput {
  return {
    domain: 'content-package',
    operation: 'apply',
    planId: `plan-${n}`,
    mode: 'merge',
    actor: { userId: `user-${n % 3}`, tenantId: n % 2 ? 'acme' : 'default' },
    outcome: 'success',
    summary: { created: n, updated: 2 * n, deleted: 0, skipped: 1, failed: 0 },
    durationMs: 10 + n,
    message: `applied package #${n}`,
    ...overrides,
  };
}

for (const variant of DB_VARIANTS) {
  describe(`audit log (${variant.name})`, function () {
    this.timeout(60000);
    let connections: TwoConnections | undefined;
    let dbA: Sequelize | undefined;
    let dbB: Sequelize | undefined;
    let auditA: AuditLog;
    let auditB: AuditLog;

    before(async function () {
      requireVariant(this, variant);
      // Two instances: each its own connection and its own lock owner.
      connections = await openTwoConnections(variant, 'cms-audit');
      dbA = connections.dbA;
      dbB = connections.dbB;
      auditA = new AuditLog(dbA, new DbLock(dbA));
      auditB = new AuditLog(dbB, new DbLock(dbB));
    });

    after(async function () {
      await connections?.close();
    });

    beforeEach(async function () {
      await dbA!.query('DELETE FROM cms_audit_log');
    });

    async function appendSeveral(count: number): Promise<AuditEntry[]> {
      const entries: AuditEntry[] = [];
      for (let n = 1; n <= count; n++) entries.push(await (n % 2 ? auditA : auditB).append(input(n)));
      return entries;
    }

    async function allRows(): Promise<AuditEntry[]> {
      const { items } = await auditA.list({ limit: 100 });
      return items.reverse();
    }

    it('appends entries with the spec fields, chained by SHA-256, and verifies the chain', async function () {
      const appended = await appendSeveral(5);
      expect(await auditA.verify()).to.deep.equal({ valid: true, checked: 5 });
      expect(await auditB.verify()).to.deep.equal({ valid: true, checked: 5 });

      const stored = await allRows();
      expect(stored).to.deep.equal(appended);
      expect(stored[0]!.previousHash).to.equal(GENESIS_HASH).and.to.equal('0'.repeat(64));
      for (let k = 1; k < stored.length; k++) {
        expect(stored[k]!.id).to.be.greaterThan(stored[k - 1]!.id);
        expect(stored[k]!.previousHash, `entry ${k}`).to.equal(stored[k - 1]!.currentHash);
      }
      for (const e of stored) expect(e.currentHash).to.match(/^[0-9a-f]{64}$/);
      expect(new Set(stored.map((e) => e.currentHash)).size).to.equal(5);

      const third = stored[2]!;
      expect(third).to.include({
        domain: 'content-package',
        operation: 'apply',
        planId: 'plan-3',
        mode: 'merge',
        outcome: 'success',
        durationMs: 13,
        level: 'low',
        action: 'content-package.apply',
        message: 'applied package #3',
        details: null,
      });
      expect(third.actor).to.deep.equal({ userId: 'user-0', tenantId: 'acme' });
      expect(third.summary).to.deep.equal({ created: 3, updated: 6, deleted: 0, skipped: 1, failed: 0 });
      expect(third.timestamp).to.match(/^\d{4}-\d{2}-\d{2}T/);
      expect((await auditA.list({ tenantId: 'acme' })).total).to.equal(3);
    });

    it('names the altered entry when a row is changed behind its back (hash-mismatch)', async function () {
      const entries = await appendSeveral(5);
      const target = entries[2]!;
      await dbB!.query('UPDATE cms_audit_log SET message = ? WHERE id = ?', {
        replacements: ['nothing to see here', target.id],
        type: QueryTypes.UPDATE,
      });
      expect(await auditA.verify()).to.deep.equal({ valid: false, checked: 2, firstInvalid: { id: target.id, reason: 'hash-mismatch' } });

      // Summary counts are covered by the hash too.
      await dbB!.query('UPDATE cms_audit_log SET message = ? WHERE id = ?', {
        replacements: [target.message, target.id],
        type: QueryTypes.UPDATE,
      });
      expect(await auditA.verify()).to.deep.equal({ valid: true, checked: 5 });
      const first = entries[0]!;
      await dbB!.query('UPDATE cms_audit_log SET summary = ? WHERE id = ?', {
        replacements: [JSON.stringify({ ...first.summary, deleted: 99 }), first.id],
        type: QueryTypes.UPDATE,
      });
      expect(await auditA.verify()).to.deep.equal({ valid: false, checked: 0, firstInvalid: { id: first.id, reason: 'hash-mismatch' } });
    });

    it('names the entry after a deleted one (chain-broken)', async function () {
      const entries = await appendSeveral(5);
      await dbB!.query('DELETE FROM cms_audit_log WHERE id = ?', { replacements: [entries[2]!.id], type: QueryTypes.DELETE });
      expect(await auditA.verify()).to.deep.equal({
        valid: false,
        checked: 2,
        firstInvalid: { id: entries[3]!.id, reason: 'chain-broken' },
      });
    });

    it('rejects invalid input with a ValidationError and appends nothing', async function () {
      await appendSeveral(2);
      const bad = [
        input(3, { outcome: 'maybe' as never }),
        input(4, { mode: 'overwrite' as never }),
        input(5, { domain: '' }),
        input(6, { summary: { created: -1 } }),
        input(7, { durationMs: 1.5 }),
      ];
      for (const entry of bad) {
        const err = await rejectionOf(auditA.append(entry));
        expect(err).to.be.instanceOf(ValidationError);
      }
      const err = (await rejectionOf(auditB.append(input(8, { outcome: 'maybe' as never })))) as ValidationError;
      expect(err.issues.map((i) => i.path)).to.include('outcome');
      expect(await auditA.verify()).to.deep.equal({ valid: true, checked: 2 });
    });

    it('keeps one linear valid chain under concurrent appends from two instances', async function () {
      const total = 24;
      const appended = await Promise.all(
        Array.from({ length: total }, (_, i) => (i % 2 ? auditA : auditB).append(input(i + 1, { message: `concurrent #${i + 1}` }))),
      );
      expect(await auditB.verify()).to.deep.equal({ valid: true, checked: total });

      const stored = await allRows();
      expect(stored).to.have.length(total);
      expect(stored[0]!.previousHash).to.equal(GENESIS_HASH);
      for (let k = 1; k < total; k++) expect(stored[k]!.previousHash, `entry ${k}`).to.equal(stored[k - 1]!.currentHash);
      // No fork: every previousHash is used once.
      expect(new Set(stored.map((e) => e.previousHash)).size).to.equal(total);
      // What append returned is what was stored.
      const byId = new Map(stored.map((e) => [e.id, e]));
      for (const e of appended) expect(byId.get(e.id)).to.deep.equal(e);
      expect(new Set(stored.map((e) => e.message)).size).to.equal(total);
    });

    // An InnoDB locking behaviour, so MariaDB only.
    if (variant.name === 'mariadb')
      it('survives InnoDB choosing one of two waiting appends as a deadlock victim on the lock row', async function () {
        // Both instances have their lock table ready (so nothing below waits on metadata locks).
        await auditA.append(input(1));
        await auditB.append(input(2));
        // Another instance holds the chain lock and is releasing it: its DELETE is open in a transaction.
        await dbA!.query('INSERT INTO cms_locks (name, owner, expires_at) VALUES (?, ?, ?)', {
          replacements: ['audit-chain', 'another-instance', Date.now() + 60000],
          type: QueryTypes.INSERT,
        });
        const release = await dbA!.transaction();
        let appends: Promise<PromiseSettledResult<AuditEntry>[]> | undefined;
        try {
          await dbA!.query('DELETE FROM cms_locks WHERE name = ?', { replacements: ['audit-chain'], transaction: release });
          // Two appends (one per instance) now block in their INSERT on the row being deleted.
          appends = Promise.allSettled([auditA.append(input(3)), auditB.append(input(4))]);
          const deadline = Date.now() + 10000;
          let waiting = 0;
          while (waiting < 2 && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 20));
            const [row] = await dbB!.query<{ n: number | string }>(
              "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
              { type: QueryTypes.SELECT },
            );
            waiting = Number(row!.n);
          }
          expect(waiting, 'both appends wait on the lock row').to.equal(2);
        } finally {
          // Releasing lets both INSERTs go at once: InnoDB rolls one back as a deadlock victim.
          await release.commit();
        }
        const results = await appends!;
        for (const r of results) if (r.status === 'rejected') throw r.reason;
        expect(await auditA.verify()).to.deep.equal({ valid: true, checked: 4 });
        const [locks] = await dbB!.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM cms_locks', { type: QueryTypes.SELECT });
        expect(Number(locks!.n)).to.equal(0);
      });
  });
}
