import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { WorkerPool } from '../../kernel/pool.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { fixturePlugin, startTestKernel, tempDir } from '../helpers/kernel.js';

describe('worker pool', function () {
  let pool: WorkerPool;
  const dir = tempDir();
  before(() => {
    pool = new WorkerPool({ maxThreads: 2, idleTimeoutMs: 1000 });
  });
  after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hashes and verifies passwords with bcrypt', async function () {
    const hashed = await pool.hashPassword('correct horse battery', 10);
    expect(hashed.ok).to.equal(true);
    if (!hashed.ok) return;
    expect(hashed.value).to.match(/^\$2[ab]\$10\$/);
    expect(await pool.verifyPassword('correct horse battery', hashed.value)).to.deep.equal({ ok: true, value: true });
    expect(await pool.verifyPassword('wrong horse', hashed.value)).to.deep.equal({ ok: true, value: false });
  });

  it('returns expected failures as data, not exceptions', async function () {
    const badHash = await pool.verifyPassword('x', 'not-a-hash');
    expect(badHash).to.deep.equal({ ok: false, issues: [{ code: 'INVALID_HASH', message: 'hash is not a bcrypt hash' }] });
    const tooLong = await pool.hashPassword('é'.repeat(40));
    expect(tooLong.ok).to.equal(false);
    if (!tooLong.ok) expect(tooLong.issues[0]!.code).to.equal('PASSWORD_TOO_LONG');
    const empty = await pool.hashPassword('');
    expect(empty.ok).to.equal(false);
  });

  it('hashes with argon2id using 64 MiB of memory and verifies', async function () {
    const hashed = await pool.argon2Hash('AB12CD34');
    expect(hashed.ok).to.equal(true);
    if (!hashed.ok) return;
    expect(hashed.value).to.match(/^\$argon2id\$v=19\$m=65536,/);
    expect(await pool.argon2Verify('AB12CD34', hashed.value)).to.deep.equal({ ok: true, value: true });
    expect(await pool.argon2Verify('AB12CD35', hashed.value)).to.deep.equal({ ok: true, value: false });
    const bad = await pool.argon2Verify('AB12CD34', '$2b$10$notargon');
    expect(bad.ok).to.equal(false);
  });

  it('computes SHA-256 of a buffer and of a file streamed inside the worker', async function () {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const expected = createHash('sha256').update(data).digest('hex');
    expect(await pool.sha256(data)).to.deep.equal({ ok: true, value: expected });
    const file = join(dir, 'blob.bin');
    writeFileSync(file, data);
    expect(await pool.sha256File(file)).to.deep.equal({ ok: true, value: { sha256: expected, size: data.length } });
    const emptyFile = join(dir, 'empty.bin');
    writeFileSync(emptyFile, '');
    expect(await pool.sha256File(emptyFile)).to.deep.equal({
      ok: true,
      value: { sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', size: 0 },
    });
  });

  it('reports a missing file or a folder as data', async function () {
    const missing = await pool.sha256File(join(dir, 'nope.bin'));
    expect(missing.ok).to.equal(false);
    if (!missing.ok) expect(missing.issues[0]!.code).to.equal('FILE_NOT_FOUND');
    const folder = join(dir, 'sub');
    mkdirSync(folder);
    const notFile = await pool.sha256File(folder);
    expect(notFile.ok).to.equal(false);
    if (!notFile.ok) expect(notFile.issues[0]!.code).to.equal('NOT_A_FILE');
  });

  it('runs tasks in parallel up to its thread count and counts them', async function () {
    const before = pool.stats().completed;
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.hashPassword(`password-${i}`, 8)));
    expect(results.every((r) => r.ok)).to.equal(true);
    const stats = pool.stats();
    expect(stats.completed - before).to.equal(6);
    expect(stats.maxThreads).to.equal(2);
    expect(stats.threads).to.be.within(1, 2);
    expect(stats.queueSize).to.equal(0);
    expect(stats.runTimeMs.mean).to.be.greaterThan(0);
  });

  it('exposes its figures to admins at GET /api/system/pool', async function () {
    const t = await startTestKernel({ plugins: [fixturePlugin('test-identity')] });
    try {
      await t.kernel.pool!.sha256(Buffer.from('x'));
      const res = await t.request('/api/system/pool', { identity: 'editor' });
      expect(res.status).to.equal(200);
      const { data } = await res.json();
      expect(data.completed).to.be.at.least(1);
      expect(data).to.have.keys(['threads', 'maxThreads', 'queueSize', 'completed', 'utilization', 'runTimeMs', 'waitTimeMs']);
      expect((await t.request('/api/system/pool', { identity: 'viewer' })).status).to.equal(403);
    } finally {
      await t.close();
    }
  });

  it('runs its threads at a lower priority than the event loop (niceIncrement), so requests win the CPU', async function () {
    if (process.platform !== 'linux') this.skip(); // the nice value is per thread only on Linux
    const file = join(DIST_ROOT, 'test', 'helpers', 'thread-priority-task.js');
    const base = getPriority(0);
    const lowered = new WorkerPool({ maxThreads: 1, idleTimeoutMs: 1000, niceIncrement: 7 });
    const level = new WorkerPool({ maxThreads: 1, idleTimeoutMs: 1000, niceIncrement: 0 });
    try {
      expect(await lowered.run<number>('threadPriority', {}, file)).to.equal(Math.min(19, base + 7));
      expect(await level.run<number>('threadPriority', {}, file)).to.equal(base);
      // The event loop's own thread keeps its priority.
      expect(getPriority(0)).to.equal(base);
    } finally {
      await Promise.all([lowered.close(), level.close()]);
    }
  });

  it('close() lets queued tasks finish before it stops the threads (argon2 work is never cut off)', async function () {
    const own = new WorkerPool({ maxThreads: 2, idleTimeoutMs: 1000 });
    // Four times as many argon2 hashes as threads: most are still queued when close() starts.
    const tasks = Array.from({ length: 8 }, (_, i) => own.argon2Hash(`code-${i}`));
    const settled = Promise.allSettled(tasks);
    await own.close();
    const results = await settled;
    expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill('fulfilled'));
    expect(results.every((r) => r.status === 'fulfilled' && r.value.ok && r.value.value.startsWith('$argon2id$'))).to.equal(true);
  });
});
