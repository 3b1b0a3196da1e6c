import { strict as assert } from 'node:assert';
import { AuditLog, GENESIS_HASH, hashEntry } from '../../kernel/audit.js';
import { ValidationError } from '../../kernel/errors.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/** The kernel's audit log on a real SQLite file: the hash chain, verify(), validation and listing. */
describe('unit: audit log (hash chain)', () => {
  let db: UnitDb;
  let audit: AuditLog;
  const actor = { userId: 'u1', tenantId: 'default' };
  /** The operations of the entries a list with `filter` answers, newest first. */
  const operationsOf = async (filter: Parameters<AuditLog['list']>[0]) => (await audit.list(filter)).items.map((e) => e.operation);

  before(async () => {
    db = await openUnitDb();
    audit = new AuditLog(db.sequelize, db.lock);
  });
  after(() => db?.close());
  beforeEach(() => db.sequelize.query('DELETE FROM cms_audit_log'));

  it('chains each entry to the previous one, starting from the genesis hash', async () => {
    const first = await audit.append({ domain: 'content', operation: 'import', actor, outcome: 'success' });
    const second = await audit.append({ domain: 'content', operation: 'export', actor, outcome: 'partial', summary: { created: 2 } });
    assert.equal(first.previousHash, GENESIS_HASH);
    assert.equal(second.previousHash, first.currentHash);
    assert.match(second.currentHash, /^[0-9a-f]{64}$/);
    assert.notEqual(second.currentHash, first.currentHash);
    const { id: _id, currentHash, ...rest } = second;
    assert.equal(hashEntry(rest), currentHash, 'the stored hash is the hash of the entry');
    assert.equal(second.action, 'content.export', 'action defaults to domain.operation');
    assert.deepEqual(second.summary, { created: 2, updated: 0, deleted: 0, skipped: 0, failed: 0 });
  });

  it('record() queues without waiting and writes the queue as one chained batch; flush() waits for it', async () => {
    const before = await audit.append({ domain: 'auth', operation: 'sign-in', actor, outcome: 'success' });
    for (let i = 0; i < 250; i++) audit.record({ domain: 'auth', operation: 'sign-in', actor, outcome: 'failure', message: `try ${i}` });
    assert.equal((await audit.list({ limit: 1 })).total, 1, 'nothing written yet: record() did not wait on the database');
    assert.throws(() => audit.record({ domain: '', operation: 'x', actor, outcome: 'success' }), ValidationError);
    await audit.flush();
    const { items, total } = await audit.list({ limit: 2 });
    assert.equal(total, 251);
    assert.equal(items[0]!.message, 'try 249', 'entries keep their order');
    assert.deepEqual(await audit.verify(), { valid: true, checked: 251 });
    assert.notEqual(items[0]!.previousHash, before.currentHash, 'the batch is chained entry by entry');
  });

  it('verify() accepts an untouched chain and counts its entries', async () => {
    for (let i = 0; i < 4; i++) await audit.append({ domain: 'd', operation: `op${i}`, actor, outcome: 'success', message: `m${i}` });
    assert.deepEqual(await audit.verify(), { valid: true, checked: 4 });
  });

  it('verify() names the first entry whose content was altered (hash-mismatch)', async () => {
    const entries = [];
    for (let i = 0; i < 3; i++)
      entries.push(await audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', message: `m${i}` }));
    await db.sequelize.query('UPDATE cms_audit_log SET message = ? WHERE id = ?', { replacements: ['rewritten', entries[1]!.id] });
    const result = await audit.verify();
    assert.equal(result.valid, false);
    assert.deepEqual(result.firstInvalid, { id: entries[1]!.id, reason: 'hash-mismatch' });
    assert.equal(result.checked, 1, 'only the entry before the altered one was accepted');
  });

  it('verify() detects a deleted entry in the middle of the chain (chain-broken)', async () => {
    const entries = [];
    for (let i = 0; i < 3; i++)
      entries.push(await audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', message: `m${i}` }));
    await db.sequelize.query('DELETE FROM cms_audit_log WHERE id = ?', { replacements: [entries[1]!.id] });
    const result = await audit.verify();
    assert.equal(result.valid, false);
    assert.deepEqual(result.firstInvalid, { id: entries[2]!.id, reason: 'chain-broken' });
  });

  it('verify() detects a tampered summary even when the hashes are copied along', async () => {
    const e = await audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', summary: { deleted: 1 } });
    await db.sequelize.query('UPDATE cms_audit_log SET summary = ? WHERE id = ?', {
      replacements: [JSON.stringify({ created: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 }), e.id],
    });
    assert.equal((await audit.verify()).firstInvalid?.reason, 'hash-mismatch');
  });

  it('refuses an invalid entry with a ValidationError naming the field, and writes nothing', async () => {
    await assert.rejects(
      audit.append({ domain: '', operation: 'op', actor, outcome: 'success' }),
      (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'domain'),
    );
    await assert.rejects(
      audit.append({ domain: 'd', operation: 'op', actor, outcome: 'maybe' as never }),
      (err: unknown) => err instanceof ValidationError && err.issues.some((i) => i.path === 'outcome'),
    );
    assert.equal((await audit.list()).total, 0);
  });

  it('keeps the chain linear under concurrent appends', async () => {
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', message: `c${i}` })),
    );
    assert.deepEqual(await audit.verify(), { valid: true, checked: 4 });
  });

  it('lists newest first, filtered by level, tenant and search text', async () => {
    await audit.append({ domain: 'auth', operation: 'login', actor, outcome: 'success', level: 'low', message: 'signed in' });
    await audit.append({
      domain: 'auth',
      operation: 'lockout',
      actor: { userId: 'u2', tenantId: 'acme' },
      outcome: 'failure',
      level: 'high',
      message: 'account locked',
    });
    await audit.append({ domain: 'content', operation: 'delete', actor, outcome: 'success', level: 'high', message: 'entries removed' });
    const all = await audit.list();
    assert.equal(all.total, 3);
    assert.deepEqual(
      all.items.map((e) => e.operation),
      ['delete', 'lockout', 'login'],
    );
    assert.deepEqual(await operationsOf({ level: 'high' }), ['delete', 'lockout']);
    assert.deepEqual(await operationsOf({ tenantId: 'acme' }), ['lockout']);
    assert.deepEqual(await operationsOf({ search: 'locked' }), ['lockout']);
    assert.deepEqual(await operationsOf({ search: 'auth.log' }), ['login'], 'search also matches the action');
    assert.equal((await audit.list({ limit: 1 })).items.length, 1);
  });

  // Regression: SQLite's LIKE has no default escape character (kernel/text/like-contains.ts).
  it('search text containing % or _ finds the entries that contain it (SQLite)', async () => {
    await audit.append({ domain: 'd', operation: 'pct', actor, outcome: 'success', message: 'progress 50% done' });
    await audit.append({ domain: 'd', operation: 'under', actor, outcome: 'success', message: 'file my_file.txt' });
    await audit.append({ domain: 'd', operation: 'other', actor, outcome: 'success', message: 'file myXfile.txt' });
    assert.deepEqual(await operationsOf({ search: '50%' }), ['pct']);
    assert.deepEqual(await operationsOf({ search: 'my_file' }), ['under']);
  });
  describe('prune (retention)', () => {
    /** Appends n entries and returns them. */
    async function appendMany(n: number, prefix = 'e') {
      const out = [];
      for (let i = 0; i < n; i++)
        out.push(await audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', message: `${prefix}${i}` }));
      return out;
    }
    /** The cutoff that keeps `newer` and what follows it. */
    const between = (newer: { timestamp: string }) => new Date(newer.timestamp);
    /** Waits for the clock to pass the entry's millisecond, so the next entry is strictly newer. */
    const pastTimestampOf = async (entry: { timestamp: string }) => {
      while (Date.now() <= Date.parse(entry.timestamp)) await new Promise((r) => setTimeout(r, 1));
    };

    it('deletes the entries older than the cutoff, keeps the rest, and verify() still holds from the anchor', async () => {
      const old = await appendMany(3, 'old');
      await pastTimestampOf(old[2]!);
      const kept = await appendMany(2, 'kept');
      const result = await audit.prune({ before: between(kept[0]!), actor });
      assert.equal(result.deleted, 3);
      assert.deepEqual(result.anchor, { id: old[2]!.id, hash: old[2]!.currentHash }, 'the newest pruned entry anchors the chain');
      const { items, total } = await audit.list({ limit: 10 });
      assert.deepEqual(
        items.map((e) => e.message).slice(1),
        ['kept1', 'kept0'],
        'the old entries are gone and the anchor row is not listed',
      );
      assert.equal(total, 3);
      assert.equal(items[0]!.action, 'audit.prune', 'the prune is itself the newest entry of the chain');
      assert.equal(items[0]!.summary.deleted, 3);
      assert.deepEqual(items[0]!.details, {
        before: between(kept[0]!).toISOString(),
        anchorId: old[2]!.id,
        anchorHash: old[2]!.currentHash,
      });
      assert.deepEqual(await audit.verify(), { valid: true, checked: 3, anchor: { id: old[2]!.id, hash: old[2]!.currentHash } });
      // Appends after the prune chain on as before.
      await audit.append({ domain: 'd', operation: 'op', actor, outcome: 'success', message: 'after' });
      assert.equal((await audit.verify()).valid, true);
    });

    it('detects tampering after the anchor: an altered, a removed entry, or a rewritten anchor hash', async () => {
      const old = await appendMany(3, 'old');
      await pastTimestampOf(old[2]!);
      const kept = await appendMany(3, 'kept');
      const { anchor } = await audit.prune({ before: between(kept[0]!) });

      await db.sequelize.query('UPDATE cms_audit_log SET message = ? WHERE id = ?', { replacements: ['rewritten', kept[1]!.id] });
      const altered = await audit.verify();
      assert.equal(altered.valid, false);
      assert.deepEqual(altered.firstInvalid, { id: kept[1]!.id, reason: 'hash-mismatch' });
      await db.sequelize.query('UPDATE cms_audit_log SET message = ? WHERE id = ?', { replacements: ['kept1', kept[1]!.id] });
      assert.equal((await audit.verify()).valid, true, 'restored');

      await db.sequelize.query('UPDATE cms_audit_log SET current_hash = ? WHERE id = ?', { replacements: ['f'.repeat(64), anchor!.id] });
      assert.deepEqual(
        (await audit.verify()).firstInvalid,
        { id: kept[0]!.id, reason: 'chain-broken' },
        'the anchor hash is bound to the first kept entry',
      );
      await db.sequelize.query('UPDATE cms_audit_log SET current_hash = ? WHERE id = ?', { replacements: [anchor!.hash, anchor!.id] });

      await db.sequelize.query('DELETE FROM cms_audit_log WHERE id = ?', { replacements: [kept[0]!.id] });
      assert.deepEqual(
        (await audit.verify()).firstInvalid,
        { id: kept[1]!.id, reason: 'chain-broken' },
        'removing the first kept entry shows',
      );
    });

    it('an anchor row anywhere but first does not pass as an anchor', async () => {
      const entries = await appendMany(4);
      await db.sequelize.query("UPDATE cms_audit_log SET level = 'anchor' WHERE id = ?", { replacements: [entries[2]!.id] });
      const result = await audit.verify();
      assert.equal(result.valid, false);
      assert.deepEqual(result.firstInvalid, { id: entries[2]!.id, reason: 'hash-mismatch' });
    });

    it('prunes everything: only the anchor and the prune entry are left, the chain verifies and goes on', async () => {
      const all = await appendMany(5);
      const result = await audit.prune({ before: new Date(Date.now() + 1000) });
      assert.equal(result.deleted, 5);
      assert.equal(result.anchor!.hash, all[4]!.currentHash);
      const { items, total } = await audit.list();
      assert.equal(total, 1);
      assert.equal(items[0]!.action, 'audit.prune');
      assert.equal(items[0]!.previousHash, all[4]!.currentHash, 'the prune entry links to the anchor');
      assert.deepEqual(await audit.verify(), { valid: true, checked: 1, anchor: result.anchor! });

      // Pruning again replaces the anchor (the first prune entry is pruned in its turn).
      const again = await audit.prune({ before: new Date(Date.now() + 1000) });
      assert.equal(again.deleted, 1);
      assert.equal((await audit.verify()).valid, true);
      const [[{ anchors }]] = (await db.sequelize.query("SELECT COUNT(*) AS anchors FROM cms_audit_log WHERE level = 'anchor'")) as any;
      assert.equal(Number(anchors), 1, 'one anchor at a time');
    });

    it('with nothing older than the cutoff, deletes nothing and writes nothing', async () => {
      const entries = await appendMany(2);
      assert.deepEqual(await audit.prune({ before: new Date(Date.parse(entries[0]!.timestamp) - 1000) }), { deleted: 0, anchor: null });
      assert.deepEqual(await audit.verify(), { valid: true, checked: 2 });
      assert.deepEqual(await audit.prune({ before: new Date(0) }), { deleted: 0, anchor: null });
      await assert.rejects(audit.prune({ before: new Date('nope') }), ValidationError);
    });

    it('prunes while record() batches are queued and flushing: the chain stays linear and valid', async () => {
      await appendMany(50, 'old');
      for (let i = 0; i < 450; i++) audit.record({ domain: 'auth', operation: 'sign-in', actor, outcome: 'success', message: `q${i}` });
      const flushing = audit.flush();
      const pruning = audit.prune({ before: new Date(Date.now() + 1000) });
      for (let i = 0; i < 100; i++) audit.record({ domain: 'auth', operation: 'sign-in', actor, outcome: 'success', message: `late${i}` });
      const [, pruned] = await Promise.all([flushing, pruning]);
      await audit.flush();
      const verified = await audit.verify();
      assert.equal(verified.valid, true, JSON.stringify(verified));
      const { total } = await audit.list();
      assert.ok(pruned.deleted >= 50, 'at least the appended entries were pruned');
      assert.equal(total + pruned.deleted, 50 + 450 + 100 + 1, 'every entry was either pruned or kept, once (plus the prune entry)');
      assert.equal(verified.checked, total);
    });
  });
});
