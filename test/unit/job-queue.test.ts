import { strict as assert } from 'node:assert';
import { NotFoundError } from '../../kernel/errors.js';
import { JobInterruptedError, JobQueue, type JobHandler } from '../../kernel/jobs.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

/** The database-backed job queue on real SQLite, driven by hand (claimNext/execute/drain), no polling. */
describe('unit: job queue', () => {
  let db: UnitDb;
  const handlers = new Map<string, JobHandler>();
  const registry = { get: (t: string) => handlers.get(t), keys: () => [...handlers.keys()] };
  const queue = (leaseMs = 60000) => new JobQueue(db.sequelize, registry, db.logger, { pollIntervalMs: 50, leaseMs, maxAttempts: 3 });

  before(async () => {
    db = await openUnitDb();
  });
  after(() => db?.close());
  beforeEach(async () => {
    handlers.clear();
    await db.sequelize.query('DELETE FROM cms_jobs');
  });

  it('enqueues a job as queued with its payload and tenant', async () => {
    const q = queue();
    const job = await q.enqueue('mail', { to: 'a@example.com' }, { tenantId: 'acme' });
    assert.equal(job.status, 'queued');
    assert.equal(job.attempts, 0);
    const read = await q.get(job.jobId);
    assert.deepEqual(read.payload, { to: 'a@example.com' });
    assert.equal(read.tenantId, 'acme');
    await assert.rejects(q.get('00000000-0000-0000-0000-000000000000'), NotFoundError);
  });

  it('runs a job with its handler and records the result and progress', async () => {
    const q = queue();
    handlers.set('sum', {
      type: 'sum',
      async run(job, helpers) {
        await helpers.progress(1, 2);
        const { a, b } = job.payload as { a: number; b: number };
        return { total: a + b };
      },
    });
    const { jobId } = await q.enqueue('sum', { a: 2, b: 3 });
    assert.equal(await q.drain(), 1);
    const done = await q.get(jobId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { total: 5 });
    assert.deepEqual(done.progress, { processed: 1, total: 2, percent: 50 });
    assert.equal(done.attempts, 1);
    assert.ok(done.completedAt);
  });

  it('claims only job types this instance has a handler for', async () => {
    const q = queue();
    await q.enqueue('unknown-type', {});
    assert.equal(await q.claimNext(), null, 'no handlers at all');
    handlers.set('other', { type: 'other', run: async () => null });
    assert.equal(await q.claimNext(), null);
  });

  it('does not claim a job before its delay has passed', async () => {
    const q = queue();
    handlers.set('later', { type: 'later', run: async () => null });
    await q.enqueue('later', {}, { delayMs: 60000 });
    assert.equal(await q.claimNext(), null);
  });

  it('a job is claimed by exactly one of two racing workers', async () => {
    const q = queue();
    handlers.set('once', { type: 'once', run: async () => null });
    await q.enqueue('once', {});
    const [a, b] = await Promise.all([q.claimNext('worker-a'), q.claimNext('worker-b')]);
    assert.equal([a, b].filter(Boolean).length, 1);
    const claimed = (a ?? b)!;
    assert.equal(claimed.status, 'running');
    assert.ok(['worker-a', 'worker-b'].includes(claimed.claimedBy!));
  });

  it('a failed job is queued again with a backoff, and fails for good after its last attempt', async () => {
    const q = queue();
    handlers.set('flaky', {
      type: 'flaky',
      run: async () => {
        throw new Error('smtp down');
      },
    });
    const { jobId } = await q.enqueue('flaky', {}, { maxAttempts: 2 });
    await q.execute((await q.claimNext())!);
    let job = await q.get(jobId);
    assert.equal(job.status, 'queued');
    assert.equal(job.error, 'smtp down');
    assert.equal(await q.claimNext(), null, 'not due again yet (backoff)');
    await db.sequelize.query('UPDATE cms_jobs SET run_after = 0 WHERE id = ?', { replacements: [jobId] });
    await q.execute((await q.claimNext())!);
    job = await q.get(jobId);
    assert.equal(job.status, 'failed');
    assert.equal(job.attempts, 2);
    assert.ok(job.completedAt);
    assert.equal(await q.claimNext(), null);
  });

  it('a job whose worker died is taken over once its lease expires', async () => {
    const q = queue(1);
    handlers.set('lease', { type: 'lease', run: async () => 'second worker' });
    const { jobId } = await q.enqueue('lease', {});
    const first = await q.claimNext('dead-worker');
    assert.ok(first);
    await new Promise((r) => setTimeout(r, 5));
    const second = await q.claimNext('live-worker');
    assert.equal(second?.jobId, jobId);
    assert.equal(second?.attempts, 2);
    await q.execute(second!, 'live-worker');
    assert.equal((await q.get(jobId)).status, 'completed');
  });

  it('failAbandoned() fails a running job whose lease expired with no attempts left', async () => {
    const q = queue(1);
    handlers.set('last', { type: 'last', run: async () => null });
    const { jobId } = await q.enqueue('last', {}, { maxAttempts: 1 });
    assert.ok(await q.claimNext('dead-worker'));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(await q.failAbandoned(), 1);
    const job = await q.get(jobId);
    assert.equal(job.status, 'failed');
    assert.match(job.error!, /no attempts are left/);
  });

  it('an interrupted job is queued again without using up an attempt', async () => {
    const q = queue();
    handlers.set('long', {
      type: 'long',
      run: async () => {
        throw new JobInterruptedError();
      },
    });
    const { jobId } = await q.enqueue('long', {});
    await q.execute((await q.claimNext())!);
    const job = await q.get(jobId);
    assert.equal(job.status, 'queued');
    assert.equal(job.attempts, 0);
    assert.equal(job.claimedBy, null);
  });

  it('lists jobs filtered by type, status and tenant', async () => {
    const q = queue();
    await q.enqueue('a', {});
    await q.enqueue('b', {}, { tenantId: 'acme' });
    assert.deepEqual(
      (await q.list({ type: 'a' })).map((j) => j.type),
      ['a'],
    );
    assert.deepEqual(
      (await q.list({ tenantId: 'acme' })).map((j) => j.type),
      ['b'],
    );
    assert.equal((await q.list({ status: 'completed' })).length, 0);
    assert.equal((await q.list()).length, 2);
  });
});
