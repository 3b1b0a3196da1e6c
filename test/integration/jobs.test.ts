import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { JobQueue, type JobHandler, type JobView } from '../../kernel/jobs.js';
import { createLogger } from '../../kernel/logger.js';
import { createRegistries } from '../../kernel/registries/index.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { requireVariant } from '../helpers/services.js';
import { openTwoConnections, type TwoConnections } from '../helpers/two-connections.js';

const logger = createLogger('silent');
const OPTIONS = { pollIntervalMs: 20, leaseMs: 60000, maxAttempts: 3 };

function handlers(...list: JobHandler[]) {
  const registry = createRegistries().jobHandlers;
  for (const h of list) registry.add(h);
  return registry;
}

for (const variant of DB_VARIANTS) {
  describe(`jobs (${variant.name})`, function () {
    this.timeout(60000);
    let connections: TwoConnections | undefined;
    /** Two connections (two Sequelize instances) on one database, as two kernel instances would have. */
    let dbA: Sequelize | undefined;
    let dbB: Sequelize | undefined;

    before(async function () {
      requireVariant(this, variant);
      // Two instances: each its own connection and its own lock owner.
      connections = await openTwoConnections(variant, 'cms-jobs');
      dbA = connections.dbA;
      dbB = connections.dbB;
    });

    after(async function () {
      await connections?.close();
    });

    beforeEach(async function () {
      await dbA!.query('DELETE FROM cms_jobs');
    });

    const setColumn = (column: 'lease_until' | 'run_after', value: number, jobId: string) =>
      dbA!.query(`UPDATE cms_jobs SET ${column} = ? WHERE id = ?`, { replacements: [value, jobId], type: QueryTypes.UPDATE });

    it('runs each of 30 jobs exactly once when two instances claim concurrently', async function () {
      const runs = new Map<string, string[]>();
      const doubler = (): JobHandler => ({
        type: 'double',
        async run(job, helpers) {
          runs.set(job.jobId, [...(runs.get(job.jobId) ?? []), job.claimedBy!]);
          await helpers.progress(1, 4);
          await sleep(2);
          await helpers.progress(4, 4);
          return { doubled: (job.payload as { n: number }).n * 2 };
        },
      });
      const queueA = new JobQueue(dbA!, handlers(doubler()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(doubler()), logger, OPTIONS);

      const enqueued: JobView[] = [];
      for (let n = 0; n < 30; n++) enqueued.push(await (n % 2 ? queueA : queueB).enqueue('double', { n }, { tenantId: 'acme' }));
      expect(enqueued.every((j) => j.status === 'queued' && j.attempts === 0)).to.equal(true);

      // Three runners per instance, all racing for the same rows.
      const counts = await Promise.all([queueA, queueA, queueA, queueB, queueB, queueB].map((q) => q.drain()));
      expect(counts.reduce((a, b) => a + b, 0)).to.equal(30);
      const byInstance = [counts.slice(0, 3), counts.slice(3)].map((c) => c.reduce((a, b) => a + b, 0));
      expect(byInstance[0], 'jobs run by instance A').to.be.greaterThan(0);
      expect(byInstance[1], 'jobs run by instance B').to.be.greaterThan(0);

      expect(runs.size).to.equal(30);
      for (const job of enqueued) {
        expect(runs.get(job.jobId), `runs of job ${job.jobId}`).to.have.length(1);
        const done = await queueB.get(job.jobId);
        const { n } = job.payload as { n: number };
        expect(done.status).to.equal('completed');
        expect(done.result).to.deep.equal({ doubled: n * 2 });
        expect(done.progress).to.deep.equal({ processed: 4, total: 4, percent: 100 });
        expect(done.attempts).to.equal(1);
        expect(done.error).to.equal(null);
        expect(done.completedAt).to.be.a('string');
        expect(done.tenantId).to.equal('acme');
        expect(done.claimedBy).to.equal(runs.get(job.jobId)![0]);
        expect([queueA.workerId, queueB.workerId]).to.include(done.claimedBy);
      }
      const completed = await queueA.list({ status: 'completed', limit: 100 });
      expect(completed).to.have.length(30);
      expect(await queueA.claimNext()).to.equal(null);
      expect(await queueB.claimNext()).to.equal(null);
    });

    it('retries a failing handler and marks the job failed with the error after maxAttempts', async function () {
      let calls = 0;
      const exploding = (): JobHandler => ({
        type: 'explode',
        async run() {
          calls++;
          throw new Error(`boom #${calls}`);
        },
      });
      const queueA = new JobQueue(dbA!, handlers(exploding()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(exploding()), logger, OPTIONS);
      const { jobId } = await queueA.enqueue('explode', { x: 1 }, { maxAttempts: 3 });

      for (let attempt = 1; attempt <= 3; attempt++) {
        const queue = attempt % 2 ? queueA : queueB;
        const claimed = await queue.claimNext();
        expect(claimed, `claim for attempt ${attempt}`).to.not.equal(null);
        expect(claimed!.jobId).to.equal(jobId);
        expect(claimed!.attempts).to.equal(attempt);
        expect(claimed!.status).to.equal('running');
        await queue.execute(claimed!);
        const after = await queue.get(jobId);
        expect(after.error).to.equal(`boom #${attempt}`);
        if (attempt < 3) {
          expect(after.status).to.equal('queued');
          expect(after.completedAt).to.equal(null);
          // Backed off: not claimable until run_after; make it due instead of waiting seconds.
          expect(await queueA.claimNext()).to.equal(null);
          expect(await queueB.claimNext()).to.equal(null);
          await setColumn('run_after', Date.now() - 1, jobId);
        }
      }
      expect(calls).to.equal(3);
      const failed = await queueB.get(jobId);
      expect(failed.status).to.equal('failed');
      expect(failed.error).to.equal('boom #3');
      expect(failed.attempts).to.equal(3);
      expect(failed.completedAt).to.be.a('string');
      expect(failed.result).to.equal(null);
      // Never claimed again, even when due.
      await setColumn('run_after', Date.now() - 1, jobId);
      expect(await queueA.claimNext()).to.equal(null);
      expect(await queueA.drain()).to.equal(0);
      expect(calls).to.equal(3);
    });

    it('does not let a candidate read before a failed attempt bypass the retry backoff', async function () {
      let calls = 0;
      const flaky = (): JobHandler => ({
        type: 'flaky',
        async run() {
          calls++;
          throw new Error('flaky failure');
        },
      });
      const queueA = new JobQueue(dbA!, handlers(flaky()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(flaky()), logger, OPTIONS);
      const { jobId } = await queueA.enqueue('flaky', null, { maxAttempts: 3 });

      // Interleave for real: A has read the job as a queued candidate; before A's compare-and-swap
      // runs, B claims the job, runs it, and it fails and is re-queued with a backoff.
      let interleaved = false;
      dbA!.addHook('beforeBulkUpdate', 'interleave', async () => {
        if (interleaved) return;
        interleaved = true;
        const claimed = await queueB.claimNext();
        expect(claimed?.jobId).to.equal(jobId);
        await queueB.execute(claimed!);
      });
      let claimedByA: JobView | null;
      try {
        claimedByA = await queueA.claimNext();
      } finally {
        dbA!.removeHook('beforeBulkUpdate', 'interleave');
      }
      expect(interleaved).to.equal(true);
      expect(calls).to.equal(1);
      expect(claimedByA, 'job claimed again before its backoff expired').to.equal(null);
      const job = await queueA.get(jobId);
      expect(job.status).to.equal('queued');
      expect(job.attempts).to.equal(1);
      expect(job.error).to.equal('flaky failure');
    });

    it('lets the other instance take over a job whose lease expired, and ignores the late first claimer', async function () {
      const echo = (): JobHandler => ({
        type: 'echo',
        async run(job) {
          return { by: job.claimedBy };
        },
      });
      const queueA = new JobQueue(dbA!, handlers(echo()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(echo()), logger, OPTIONS);
      const { jobId } = await queueA.enqueue('echo', null);
      const deadWorker = randomUUID();

      const stale = await queueA.claimNext(deadWorker);
      expect(stale!.jobId).to.equal(jobId);
      expect(stale!.claimedBy).to.equal(deadWorker);
      expect(stale!.attempts).to.equal(1);
      // The lease is still valid: nobody else may take it.
      expect(await queueB.claimNext()).to.equal(null);

      await setColumn('lease_until', Date.now() - 1000, jobId);
      const taken = await queueB.claimNext();
      expect(taken, 'claim after the lease expired').to.not.equal(null);
      expect(taken!.jobId).to.equal(jobId);
      expect(taken!.claimedBy).to.equal(queueB.workerId);
      expect(taken!.status).to.equal('running');
      expect(taken!.attempts).to.equal(2);
      expect(await queueA.claimNext()).to.equal(null);

      await queueB.execute(taken!);
      // The first claimer comes back and finishes too: its outcome must not overwrite the new owner's.
      await queueA.execute(stale!, deadWorker);
      const done = await queueA.get(jobId);
      expect(done.status).to.equal('completed');
      expect(done.claimedBy).to.equal(queueB.workerId);
      expect(done.result).to.deep.equal({ by: queueB.workerId });
    });

    it('fails a job whose instance died during its last allowed attempt, instead of leaving it running', async function () {
      const never = (): JobHandler => ({ type: 'never', run: async () => 'unreachable' });
      const queueA = new JobQueue(dbA!, handlers(never()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(never()), logger, OPTIONS);
      const { jobId } = await queueA.enqueue('never', null, { maxAttempts: 1 });
      const claimed = await queueA.claimNext(randomUUID());
      expect(claimed!.attempts).to.equal(1);
      expect(await queueB.drain(), 'lease still valid').to.equal(0);
      expect((await queueB.get(jobId)).status).to.equal('running');
      await setColumn('lease_until', Date.now() - 1000, jobId);
      expect(await queueB.drain(), 'no attempt left to run').to.equal(0);
      const failed = await queueB.get(jobId);
      expect(failed.status).to.equal('failed');
      expect(failed.error).to.include('no attempts are left');
      expect(failed.completedAt).to.be.a('string');
    });

    it('renews the lease while a long job runs without reporting progress, so nobody takes it over', async function () {
      const short = { ...OPTIONS, leaseMs: 300 };
      let started = 0;
      const slow = (): JobHandler => ({
        type: 'slow',
        async run() {
          started++;
          await sleep(1200);
          return 'done';
        },
      });
      const queueA = new JobQueue(dbA!, handlers(slow()), logger, short);
      const queueB = new JobQueue(dbB!, handlers(slow()), logger, short);
      const { jobId } = await queueA.enqueue('slow', null);
      const claimed = await queueA.claimNext();
      const running = queueA.execute(claimed!);
      // Well past the 300 ms lease: the heartbeat must have renewed it.
      for (let i = 0; i < 4; i++) {
        await sleep(250);
        expect(await queueB.claimNext(), `taken over after ${(i + 1) * 250} ms`).to.equal(null);
      }
      await running;
      const done = await queueA.get(jobId);
      expect(done.status).to.equal('completed');
      expect(done.attempts).to.equal(1);
      expect(started).to.equal(1);
    });

    it('claims nothing for a job type the instance has no handler for', async function () {
      const noop: JobHandler = {
        type: 'known',
        async run() {
          return 'ok';
        },
      };
      const queueA = new JobQueue(dbA!, handlers(noop), logger, OPTIONS);
      const empty = new JobQueue(dbB!, handlers(), logger, OPTIONS);
      const { jobId } = await queueA.enqueue('unknown-type', { a: 1 });

      expect(await queueA.claimNext()).to.equal(null);
      expect(await empty.claimNext()).to.equal(null);
      expect(await queueA.drain()).to.equal(0);
      const still = await queueA.get(jobId);
      expect(still.status).to.equal('queued');
      expect(still.attempts).to.equal(0);
      expect(still.claimedBy).to.equal(null);

      // An instance that does have the handler claims it.
      const able = new JobQueue(
        dbB!,
        handlers({
          type: 'unknown-type',
          async run() {
            return 'handled';
          },
        }),
        logger,
        OPTIONS,
      );
      const claimed = await able.claimNext();
      expect(claimed!.jobId).to.equal(jobId);
      await able.execute(claimed!);
      expect((await queueA.get(jobId)).result).to.equal('handled');
    });

    it('runs jobs through the polling loop of two started instances', async function () {
      const ran: string[] = [];
      const h = (): JobHandler => ({
        type: 'tick',
        async run(job) {
          ran.push(job.jobId);
          return (job.payload as number) + 1;
        },
      });
      const queueA = new JobQueue(dbA!, handlers(h()), logger, OPTIONS);
      const queueB = new JobQueue(dbB!, handlers(h()), logger, OPTIONS);
      queueA.start();
      queueB.start();
      try {
        const jobs = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => (n % 2 ? queueA : queueB).enqueue('tick', n)));
        const deadline = Date.now() + 10000;
        while ((await queueA.list({ status: 'completed' })).length < jobs.length && Date.now() < deadline) await sleep(25);
        for (const job of jobs) {
          const done = await queueA.get(job.jobId);
          expect(done.status, `job ${job.jobId}`).to.equal('completed');
          expect(done.result).to.equal((job.payload as number) + 1);
        }
        expect([...ran].sort()).to.deep.equal(jobs.map((j) => j.jobId).sort());
      } finally {
        await queueA.stop();
        await queueB.stop();
      }
    });
  });
}
