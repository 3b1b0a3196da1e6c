import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, dataOf, createPosts } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`content: scheduled publishing (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { content: { scheduleIntervalMs: 100 } } } },
      },
      {
        variant,
        seed: () => createPosts(t),
      },
    );
    const editor = () => as(t, 'editor');
    const schedule = (id: string, publishAt: string | null, identity = 'editor') =>
      t.request(`/api/collections/posts/${id}/schedule`, { method: 'PUT', identity, json: { publishAt } });
    /** Polls (bounded) until the entry has the status. */
    async function statusBecomes(id: string, status: string): Promise<void> {
      for (let i = 0; i < 100; i++) {
        if ((await dataOf(await editor().get(`/api/collections/posts/${id}`))).status === status) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect.fail(`entry ${id} did not become ${status} within 5 s`);
    }

    it('publishes a draft at its scheduled time (a status change with its revision), and a cancelled schedule publishes nothing', async function () {
      const soon = await dataOf(await editor().post('/api/collections/posts', { title: 'Launch notes' }), 201);
      const later = await dataOf(await editor().post('/api/collections/posts', { title: 'Cancelled launch' }), 201);
      const at = new Date(Date.now() + 800).toISOString();
      expect(await dataOf(await schedule(soon._id, at))).to.deep.equal({ publishAt: at, unpublishAt: null });
      expect(await dataOf(await editor().get(`/api/collections/posts/${soon._id}/schedule`))).to.deep.equal({
        publishAt: at,
        unpublishAt: null,
      });
      await dataOf(await schedule(later._id, new Date(Date.now() + 600).toISOString()));
      expect(await dataOf(await schedule(later._id, null))).to.deep.equal({ publishAt: null, unpublishAt: null });

      // Not before its time: a guest-visible publish must not come early.
      expect((await dataOf(await editor().get(`/api/collections/posts/${soon._id}`))).status).to.equal('draft');
      await statusBecomes(soon._id, 'published');
      expect(await dataOf(await editor().get(`/api/collections/posts/${soon._id}/schedule`))).to.deep.equal({
        publishAt: null,
        unpublishAt: null,
      });
      const revisions = await dataOf(await editor().get(`/api/collections/posts/${soon._id}/revisions`));
      expect(revisions[0].data.status).to.equal('published');
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect((await dataOf(await editor().get(`/api/collections/posts/${later._id}`))).status).to.equal('draft');
    });

    it('refuses a time in the past, an unknown entry, a published entry and callers without content:write', async function () {
      const draft = await dataOf(await editor().post('/api/collections/posts', { title: 'Someday' }), 201);
      const past = await schedule(draft._id, new Date(Date.now() - 60_000).toISOString());
      expect(past.status).to.equal(400);
      expect(((await past.json()) as any).issues?.[0]?.path).to.equal('body.publishAt');
      expect((await schedule(draft._id, 'next tuesday')).status).to.equal(400);
      expect((await schedule('00000000-0000-4000-8000-000000000000', new Date(Date.now() + 60_000).toISOString())).status).to.equal(404);
      expect((await schedule(draft._id, new Date(Date.now() + 60_000).toISOString(), 'viewer')).status).to.equal(403);
      const live = await dataOf(await editor().post('/api/collections/posts', { title: 'Out already', status: 'published' }), 201);
      expect((await schedule(live._id, new Date(Date.now() + 60_000).toISOString())).status).to.equal(400);
    });

    it('sets a published entry back to draft at its unpublish time; publish then unpublish in one schedule; bad unpublish times are 400', async function () {
      const live = await dataOf(await editor().post('/api/collections/posts', { title: 'Flash sale', status: 'published' }), 201);
      const at = new Date(Date.now() + 600).toISOString();
      expect(await dataOf(await editor().put(`/api/collections/posts/${live._id}/schedule`, { unpublishAt: at }))).to.deep.equal({
        publishAt: null,
        unpublishAt: at,
      });
      expect((await dataOf(await editor().get(`/api/collections/posts/${live._id}`))).status).to.equal('published');
      await statusBecomes(live._id, 'draft');
      expect(await dataOf(await editor().get(`/api/collections/posts/${live._id}/schedule`))).to.deep.equal({
        publishAt: null,
        unpublishAt: null,
      });
      const [latest] = await dataOf(await editor().get(`/api/collections/posts/${live._id}/revisions`));
      expect(latest).to.include({ action: 'status' });

      // A draft published for a window: both times in one request, each applied in turn.
      const promo = await dataOf(await editor().post('/api/collections/posts', { title: 'Weekend only' }), 201);
      const from = new Date(Date.now() + 400).toISOString();
      const until = new Date(Date.now() + 1400).toISOString();
      expect(
        await dataOf(await editor().put(`/api/collections/posts/${promo._id}/schedule`, { publishAt: from, unpublishAt: until })),
      ).to.deep.equal({
        publishAt: from,
        unpublishAt: until,
      });
      await statusBecomes(promo._id, 'published');
      await statusBecomes(promo._id, 'draft');

      // Refused: nothing to unpublish, an unpublish time not after the publish time, a past time, neither key.
      const draft = await dataOf(await editor().post('/api/collections/posts', { title: 'Quiet' }), 201);
      const soon = new Date(Date.now() + 60_000).toISOString();
      const refused = async (body: unknown) => {
        const res = await editor().put(`/api/collections/posts/${draft._id}/schedule`, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        return ((await res.json()) as any).error;
      };
      expect(await refused({ unpublishAt: soon })).to.equal('VALIDATION_ERROR');
      expect(await refused({ publishAt: soon, unpublishAt: soon })).to.equal('VALIDATION_ERROR');
      expect(await refused({ publishAt: soon, unpublishAt: new Date(Date.now() - 1000).toISOString() })).to.equal('VALIDATION_ERROR');
      expect(await refused({})).to.equal('VALIDATION_ERROR');
      // Cancelling one keeps the other.
      await dataOf(await editor().put(`/api/collections/posts/${draft._id}/schedule`, { publishAt: soon }));
      const later = new Date(Date.now() + 120_000).toISOString();
      await dataOf(await editor().put(`/api/collections/posts/${draft._id}/schedule`, { unpublishAt: later }));
      expect(await dataOf(await editor().put(`/api/collections/posts/${draft._id}/schedule`, { unpublishAt: null }))).to.deep.equal({
        publishAt: soon,
        unpublishAt: null,
      });
    });

    it('a deleted entry takes its schedule with it', async function () {
      const doomed = await dataOf(await editor().post('/api/collections/posts', { title: 'Doomed' }), 201);
      await dataOf(await schedule(doomed._id, new Date(Date.now() + 60_000).toISOString()));
      await dataOf(await editor().delete(`/api/collections/posts/${doomed._id}`));
      const left = async () =>
        Number(
          (
            await t.kernel.sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM content_schedules WHERE entry_id = ?', {
              replacements: [doomed._id],
              type: QueryTypes.SELECT,
            })
          )[0]!.n,
        );
      for (let i = 0; i < 50 && (await left()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await left()).to.equal(0);
    });
  });
}
