import { expect } from 'chai';
import { as, createCollections, dataOf, entryMaker } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Issue 37, "Speed and reliability": a receiver that is down for 10 minutes gets every delivery afterwards,
// in retry order, none lost, each once per delivery id, on the decided schedule (1m, 5m, 30m, 2h, 6h).
// The dispatcher goes by a simulated clock (plugins.options.webhooks.clock): the test walks the schedule's
// minutes in moments; real rounds run every 20 ms and see the clock the test set.
const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

for (const variant of DB_VARIANTS) {
  describe(`webhooks: a receiver down for ten minutes (${variant.name})`, function () {
    this.timeout(60000);
    let receiver: Receiver;
    let now = T0;
    const t = useIdentityKernel(
      variant,
      { seed: async () => createCollections(t, { name: 'posts', fields: [{ name: 'title', type: 'text' }] }) },
      {
        config: {
          outbound: { allowPrivate: true },
          // The decided retry schedule (the default), one send at a time so that arrival order is retry order.
          plugins: { options: { webhooks: { pollMs: 20, concurrency: 1, clock: () => now } } },
        } as never,
      },
    );
    before(async () => (receiver = await startReceiver()));
    after(async () => receiver?.close());

    const log = async (id: string) => (await dataOf(await as(t, 'admin').get(`/api/webhooks/${id}/deliveries?limit=100`))).items;
    async function until(check: () => Promise<boolean>, what: string): Promise<void> {
      const end = Date.now() + 20000;
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`not reached: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    /** Lets a few dispatcher rounds pass at the clock's current time. */
    const rounds = () => new Promise((r) => setTimeout(r, 200));

    it('retries at 1, 6 and 36 minutes and then delivers every event exactly once, in order', async function () {
      await receiver.down();
      const hook = await dataOf(
        await as(t, 'admin').post('/api/webhooks', { name: 'site', url: receiver.url, events: ['on:create'] }),
        201,
      );
      const make = entryMaker(t);
      const ids: string[] = [];
      for (const title of ['one', 'two', 'three', 'four', 'five']) ids.push(await make('posts', { title }));
      const attempted = (n: number, next: number | null) => async () => {
        const items = await log(hook._id);
        return (
          items.length === 5 &&
          items.every((d: any) => d.attempts === n && d.nextAttemptAt === (next === null ? null : new Date(next).toISOString()))
        );
      };
      // The first attempt at once: refused, the next one minute later (the clock stands still meanwhile).
      await until(attempted(1, T0 + MIN), 'first attempts');
      for (const d of await log(hook._id)) expect(d).to.include({ status: 'retrying', responseStatus: null });

      now = T0 + MIN - 1; // not yet due
      await rounds();
      expect((await log(hook._id)).map((d: any) => d.attempts)).to.deep.equal([1, 1, 1, 1, 1]);
      now = T0 + MIN; // second attempt, the next 5 minutes later
      await until(attempted(2, T0 + 6 * MIN), 'second attempts');
      now = T0 + 6 * MIN; // third attempt, the next 30 minutes later
      await until(attempted(3, T0 + 36 * MIN), 'third attempts');

      now = T0 + 10 * MIN; // the receiver is back after ten minutes; nothing is due before minute 36
      await receiver.up();
      await rounds();
      expect(receiver.received).to.have.length(0);

      now = T0 + 36 * MIN;
      await receiver.waitFor(5);
      await until(async () => (await log(hook._id)).every((d: any) => d.status === 'succeeded'), 'all succeeded');
      for (const d of await log(hook._id)) expect(d).to.include({ attempts: 4, responseStatus: 200, nextAttemptAt: null });

      now = T0 + 24 * 60 * MIN; // a day later: nothing is sent again
      await rounds();
      const bodies = receiver.received.map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => b.data.entry._id)).to.deep.equal(ids); // every event, in order
      const deliveryIds = receiver.received.map((r) => r.headers['x-cms-delivery']);
      expect(new Set(deliveryIds).size).to.equal(5); // each exactly once
      expect(deliveryIds).to.deep.equal(bodies.map((b) => b.id));
      for (const b of bodies) expect(b.createdAt).to.equal(new Date(T0).toISOString());
      await as(t, 'admin').delete(`/api/webhooks/${hook._id}`);
    });

    it('marks a delivery failed after the sixth attempt (1m, 5m, 30m, 2h, 6h) and sends nothing more', async function () {
      now = T0 + 2 * 24 * 60 * MIN;
      const start = now;
      receiver.received.length = 0;
      await receiver.down();
      const hook = await dataOf(
        await as(t, 'admin').post('/api/webhooks', { name: 'gone', url: receiver.url, events: ['on:update'] }),
        201,
      );
      const id = await entryMaker(t)('posts', { title: 'x' });
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${id}`, { title: 'y' }));
      let at = start;
      for (const [attempt, delay] of [
        [1, 1],
        [2, 5],
        [3, 30],
        [4, 120],
        [5, 360],
      ] as const) {
        await until(async () => {
          const [d] = await log(hook._id);
          return d?.attempts === attempt && d.nextAttemptAt === new Date(at + delay * MIN).toISOString();
        }, `attempt ${attempt}`);
        now = at += delay * MIN;
      }
      await until(async () => (await log(hook._id))[0]?.status === 'failed', 'failed');
      expect((await log(hook._id))[0]).to.include({ attempts: 6, nextAttemptAt: null, responseStatus: null });
      await receiver.up();
      now += 7 * 24 * 60 * MIN;
      await rounds();
      expect(receiver.received).to.have.length(0);
    });
  });
}
