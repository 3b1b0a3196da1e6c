import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { as, dataOf, POSTS, createPosts } from '../helpers/content.js';
import { fixturePlugin, useIdentityKernel, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

const WITH_IMAGE = {
  name: 'pages',
  fields: [
    { name: 'heading', type: 'text' },
    { name: 'cover', type: 'media' },
    { name: 'text', type: 'richtext' },
  ],
};

for (const variant of DB_VARIANTS) {
  describe(`content: preview links (${variant.name})`, function () {
    this.timeout(60000);
    let draft: { _id: string };
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createPosts(t);
        draft = await dataOf(
          await as(t, 'editor').post('/api/collections/posts', {
            title: 'Draft letter',
            body: '<p>Dear <strong>reader</strong></p>',
            views: 3,
            featured: true,
            category: 'news',
            meta: { a: 1 },
          }),
          201,
        );
      },
    });

    const guest = (path: string) => t.request(path);
    const make = (entryId: string, body: object = {}, identity = 'editor') =>
      t.request(`/api/collections/posts/${entryId}/preview-links`, { method: 'POST', identity, json: body });

    it('anyone holding the link sees the draft as it is now, until the link is revoked', async function () {
      // Readers cannot make links; writers can.
      expect((await make(draft._id, {}, 'viewer')).status).to.equal(403);
      const res = await make(draft._id);
      expect(res.status).to.equal(201);
      const link = await dataOf(res, 201);
      expect(link.token).to.match(/^pv_[A-Za-z0-9_-]{43}$/);
      expect(link.url).to.equal(`/admin/preview?token=${link.token}`);
      const hoursLeft = (Date.parse(link.expiresAt) - Date.now()) / 3600_000;
      expect(hoursLeft).to.be.within(71.9, 72.1);

      const opened = await guest(`/api/preview/${link.token}`);
      expect(opened.headers.get('cache-control')).to.equal('private, no-store');
      expect(opened.headers.get('x-robots-tag')).to.equal('noindex, nofollow');
      const view = await dataOf(opened);
      expect(view.collection).to.deep.equal({ name: 'posts', label: 'Posts', singular: 'post' });
      expect(view.entry).to.include({ id: draft._id, status: 'draft', title: 'Draft letter' });
      const byName = Object.fromEntries(view.fields.map((f: { name: string }) => [f.name, f]));
      expect(view.fields.map((f: { name: string }) => f.name)).to.deep.equal(POSTS.fields.map((f) => f.name));
      expect(byName.body).to.deep.include({ type: 'richtext', html: '<p>Dear <strong>reader</strong></p>' });
      expect(byName.body).to.not.have.property('value');
      expect(byName.views.value).to.equal(3);
      expect(byName.featured.value).to.equal(true);
      expect(byName.meta.value).to.deep.equal({ a: 1 });
      expect(byName.publishedOn.value).to.equal(null);

      // An edit shows at once: the link points at the entry, not at a copy.
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${draft._id}`, { title: 'Draft letter, second try' }));
      expect((await dataOf(await guest(`/api/preview/${link.token}`))).entry.title).to.equal('Draft letter, second try');

      // The entry page sees one live link; revoking closes it.
      const state = await dataOf(await as(t, 'editor').get(`/api/collections/posts/${draft._id}/preview-links`));
      expect(state.active).to.equal(1);
      expect(state.expiresAt).to.equal(link.expiresAt);
      const revoked = await t.request(`/api/collections/posts/${draft._id}/preview-links`, { method: 'DELETE', identity: 'editor' });
      expect((await dataOf(revoked)).revoked).to.equal(1);
      const gone = await guest(`/api/preview/${link.token}`);
      expect(gone.status).to.equal(404);
      expect(((await gone.json()) as any).error).to.equal('PREVIEW_NOT_FOUND');
    });

    it('in a collection with working drafts, shows the draft when the entry has one, else the published values', async function () {
      await dataOf(await as(t, 'admin').patch('/api/collections/posts/schema', { drafts: true }));
      try {
        const live = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Live letter', status: 'published' }), 201);
        const link = await dataOf(await make(live._id), 201);
        const before = await dataOf(await guest(`/api/preview/${link.token}`));
        expect(before.entry).to.include({ title: 'Live letter', status: 'published', draft: false });
        await dataOf(await as(t, 'editor').put(`/api/collections/posts/${live._id}/draft`, { title: 'Edited letter' }));
        const during = await dataOf(await guest(`/api/preview/${link.token}`));
        expect(during.entry).to.include({ title: 'Edited letter', status: 'published', draft: true });
        expect(during.fields.find((f: { name: string }) => f.name === 'title').value).to.equal('Edited letter');
        // Readers still get the published value.
        expect((await dataOf(await as(t, 'viewer').get(`/api/collections/posts/${live._id}`))).title).to.equal('Live letter');
      } finally {
        await dataOf(await as(t, 'admin').patch('/api/collections/posts/schema', { drafts: false }));
      }
    });

    it('stores only a hash of the token, refuses a made-up or expired one, and drops links when the entry is deleted', async function () {
      const link = await dataOf(await make(draft._id, { expiresInHours: 1 }), 201);
      const sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
      const count = async () =>
        Number(
          (await sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM content_preview_links', { type: QueryTypes.SELECT }))[0]!.n,
        );
      const rows = await sequelize.query('SELECT token_hash FROM content_preview_links', { type: QueryTypes.SELECT });
      expect(JSON.stringify(rows)).to.not.include(link.token);
      expect((await guest('/api/preview/pv_madeup')).status).to.equal(404);

      // Expired: 410 with its own code.
      await sequelize.query('UPDATE content_preview_links SET expires_at = ?', { replacements: [Date.now() - 1000] });
      const expired = await guest(`/api/preview/${link.token}`);
      expect(expired.status).to.equal(410);
      expect(((await expired.json()) as any).error).to.equal('PREVIEW_EXPIRED');

      // Bad input: hours out of range, unknown entry.
      expect((await make(draft._id, { expiresInHours: 0 })).status).to.equal(400);
      expect((await make(draft._id, { expiresInHours: 721 })).status).to.equal(400);
      expect((await make('00000000-0000-4000-8000-000000000000')).status).to.equal(404);

      const fresh = await dataOf(await make(draft._id), 201);
      expect((await guest(`/api/preview/${fresh.token}`)).status).to.equal(200);
      await dataOf(await t.request(`/api/collections/posts/${draft._id}`, { method: 'DELETE', identity: 'editor' }));
      expect((await guest(`/api/preview/${fresh.token}`)).status).to.equal(404);
      // The delete event drops its rows (asynchronously, on the event bus).
      for (let i = 0; i < 50; i++) {
        if ((await count()) === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await count()).to.equal(0);
    });

    it('keeps at most 20 live links per entry (the oldest go), and shows a public image with its URL', async function () {
      await dataOf(await as(t, 'admin').post('/api/collections', WITH_IMAGE), 201);
      const image = await dataOf(await uploadFile(t, await imageBytes(40, 30), 'cover.png'), 201);
      const page = await dataOf(
        await as(t, 'editor').post('/api/collections/pages', { heading: 'About', cover: image._id, text: '<p>Hi</p>' }),
        201,
      );
      const first = await dataOf(
        await t.request(`/api/collections/pages/${page._id}/preview-links`, { method: 'POST', identity: 'editor', json: {} }),
        201,
      );
      for (let i = 0; i < 20; i++)
        await dataOf(
          await t.request(`/api/collections/pages/${page._id}/preview-links`, { method: 'POST', identity: 'editor', json: {} }),
          201,
        );
      expect((await dataOf(await as(t, 'editor').get(`/api/collections/pages/${page._id}/preview-links`))).active).to.equal(20);
      expect((await guest(`/api/preview/${first.token}`)).status).to.equal(404);

      const last = await dataOf(
        await t.request(`/api/collections/pages/${page._id}/preview-links`, { method: 'POST', identity: 'editor', json: {} }),
        201,
      );
      const view = await dataOf(await guest(`/api/preview/${last.token}`));
      const cover = view.fields.find((f: { name: string }) => f.name === 'cover');
      expect(cover.media).to.deep.include({ url: image.url, filename: 'cover.png', mimeType: 'image/png', width: 40, height: 30 });
      // The file itself is public under /files/.
      expect((await guest(image.url)).status).to.equal(200);
    });
  });
}

describe('content: which collections are public (overview)', function () {
  this.timeout(60000);
  const t = useTestKernel(
    { plugins: [fixturePlugin('test-identity')] },
    {
      seed: async () => {
        await createPosts(t);
        await dataOf(await as(t, 'admin').post('/api/collections', { name: 'memos', fields: [{ name: 'title', type: 'text' }] }), 201);
      },
    },
  );

  it('lists the collections granted to guests, for anyone who reads content', async function () {
    expect(await dataOf(await as(t, 'viewer').get('/api/content/public-access'))).to.deep.equal({ guestReadsAll: false, collections: [] });
    await dataOf(await t.request('/api/collections/posts/public-access', { method: 'PUT', identity: 'admin', json: { public: true } }));
    expect(await dataOf(await as(t, 'viewer').get('/api/content/public-access'))).to.deep.equal({
      guestReadsAll: false,
      collections: ['posts'],
    });
    expect((await t.request('/api/content/public-access')).status).to.equal(401);
  });
});
