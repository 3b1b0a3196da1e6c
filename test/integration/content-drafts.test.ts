import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, createCollections, dataOf, failureOf, graphqlData, validationIssues } from '../helpers/content.js';
import { useIdentityKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 37 items 1 and 2 (API decisions "Editorial: working drafts"): a collection with drafts: true lets an entry have
// one working draft beside its published version: GET|PUT|DELETE .../:id/draft, POST .../:id/draft/publish.
const PASSWORD = 'correct horse battery';

async function signIn(t: TestKernel, email: string, role: string): Promise<string> {
  const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
  await users.create({ email, password: PASSWORD, role });
  const res = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
  expect(res.status, `sign-in of ${email}`).to.equal(200);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;
}

for (const variant of DB_VARIANTS) {
  describe(`content: working drafts (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(
      variant,
      {
        seed: async () =>
          createCollections(
            t,
            { name: 'authors', fields: [{ name: 'name', type: 'text' }] },
            {
              name: 'posts',
              drafts: true,
              fields: [
                { name: 'title', type: 'text', required: true },
                { name: 'body', type: 'richtext' },
                { name: 'views', type: 'number' },
                { name: 'author', type: 'relation', collection: 'authors' },
              ],
            },
            { name: 'notes', fields: [{ name: 'title', type: 'text' }] },
          ),
      },
      { config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
    );
    const editor = () => as(t, 'editor');
    const draftOf = (id: string) => `/api/collections/posts/${id}/draft`;

    async function publishedPost(fields: Record<string, unknown> = {}): Promise<string> {
      const body = { title: 'Published title', body: '<p>Published body</p>', views: 1, status: 'published', ...fields };
      return (await dataOf(await editor().post('/api/collections/posts', body), 201))._id as string;
    }

    it('the collection option is stored, answered, and switched by PATCH .../schema', async function () {
      expect((await dataOf(await editor().get('/api/collections/posts/schema'))).drafts).to.equal(true);
      expect(await dataOf(await editor().get('/api/collections/notes/schema'))).to.not.have.property('drafts');
      const on = await dataOf(await as(t, 'admin').patch('/api/collections/notes/schema', { drafts: true }));
      expect(on.drafts).to.equal(true);
      const off = await dataOf(await as(t, 'admin').patch('/api/collections/notes/schema', { drafts: false }));
      expect(off).to.not.have.property('drafts');
      expect(await validationIssues(await as(t, 'admin').patch('/api/collections/notes/schema', { drafts: 'yes' }))).to.have.length(1);
    });

    it('PUT makes the draft from the published values and merges like PATCH; GET answers it; the entry says hasDraft', async function () {
      const id = await publishedPost();
      expect((await failureOf(await editor().get(draftOf(id)), 404)).error).to.equal('NOT_FOUND');
      expect((await dataOf(await editor().get(`/api/collections/posts/${id}`))).hasDraft).to.equal(false);
      const first = await dataOf(await editor().put(draftOf(id), { title: 'Draft title' }));
      expect(first).to.include({ _id: id, title: 'Draft title', body: '<p>Published body</p>', views: 1, hasDraft: true, version: 1 });
      expect(first._draft).to.include({ version: 1, basedOn: 1 });
      const second = await dataOf(await editor().put(draftOf(id), { views: 7 }));
      expect(second).to.include({ title: 'Draft title', views: 7, body: '<p>Published body</p>' });
      expect(second._draft.version).to.equal(2);
      expect(second._draft.fields).to.have.members(['title', 'views']);
      const read = await dataOf(await editor().get(draftOf(id)));
      expect(read).to.include({ title: 'Draft title', views: 7 });
      // The published entry is as it was; writers see hasDraft in reads and lists.
      const entry = await dataOf(await editor().get(`/api/collections/posts/${id}`));
      expect(entry).to.include({ title: 'Published title', views: 1, version: 1, hasDraft: true });
      const list = await dataOf(await editor().get('/api/collections/posts?limit=100'));
      expect(list.items.find((e: any) => e._id === id)).to.include({ title: 'Published title', hasDraft: true });
      // An answer sent back as a body is taken (hasDraft and _draft are read-only keys).
      expect((await dataOf(await editor().put(draftOf(id), { ...read, views: 8 }))).views).to.equal(8);
    });

    it('refuses invalid field values with 400 VALIDATION_ERROR naming the field, writing nothing', async function () {
      const id = await publishedPost();
      expect((await validationIssues(await editor().put(draftOf(id), { views: 'many' })))[0]!.path).to.equal('body.views');
      expect((await validationIssues(await editor().put(draftOf(id), { title: null })))[0]!.path).to.equal('body.title');
      expect((await validationIssues(await editor().put(draftOf(id), { nope: 1 })))[0]!.path).to.include('nope');
      expect(
        (await validationIssues(await editor().put(draftOf(id), { author: '00000000-0000-4000-8000-000000000000' })))[0]!.path,
      ).to.equal('body.author');
      expect((await failureOf(await editor().get(draftOf(id)), 404)).error).to.equal('NOT_FOUND');
      // A status sent with a draft is left out: writing a draft publishes or unpublishes nothing.
      const withStatus = await dataOf(await editor().put(draftOf(id), { title: 'Drafted', status: 'archived' }));
      expect(withStatus).to.include({ title: 'Drafted', status: 'published' });
      expect((await dataOf(await editor().get(`/api/collections/posts/${id}`))).status).to.equal('published');
    });

    it('publishing makes the draft the published version: a revision, on:update and on:publish; the draft is gone', async function () {
      const id = await publishedPost();
      const events: string[] = [];
      const bus = t.kernel.container.resolve<any>('events');
      const record = (name: string) => (e: any) =>
        void (e.payload.collection === 'posts' && events.push(`${name} ${e.payload.entry.title}`));
      const stop = ['on:update', 'on:publish', 'on:status_change'].map((n) => bus.subscribe(n, record(n)));
      try {
        await dataOf(await editor().put(draftOf(id), { title: 'Next title' }));
        const published = await dataOf(await editor().post(`${draftOf(id)}/publish`));
        expect(published).to.include({ title: 'Next title', status: 'published', version: 2, hasDraft: false });
        // A barrier: a later write's event has arrived, so the draft write's would have too.
        const other = await publishedPost({ title: 'Barrier' });
        await dataOf(await editor().patch(`/api/collections/posts/${other}`, { views: 2 }));
        for (let i = 0; i < 500 && !events.includes('on:update Barrier'); i++) await new Promise((r) => setTimeout(r, 10));
        // The draft write itself announced nothing; publishing announced on:update and on:publish.
        expect(events.filter((e) => !e.endsWith('Barrier'))).to.have.members(['on:update Next title', 'on:publish Next title']);
      } finally {
        for (const s of stop) s();
      }
      expect((await dataOf(await editor().get(`/api/collections/posts/${id}`))).title).to.equal('Next title');
      expect((await failureOf(await editor().get(draftOf(id)), 404)).error).to.equal('NOT_FOUND');
      const history = await dataOf(await editor().get(`/api/collections/posts/${id}/revisions`));
      expect(history[0]).to.deep.include({ version: 2 });
      expect(history[0].data.title).to.equal('Next title');
      expect((await failureOf(await editor().post(`${draftOf(id)}/publish`), 404)).error).to.equal('NOT_FOUND');
    });

    it('publishing a draft of an entry not yet published publishes it', async function () {
      const id = (await dataOf(await editor().post('/api/collections/posts', { title: 'Unpublished' }), 201))._id as string;
      await dataOf(await editor().put(draftOf(id), { title: 'Ready' }));
      const published = await dataOf(await editor().post(`${draftOf(id)}/publish`));
      expect(published).to.include({ title: 'Ready', status: 'published' });
    });

    it('DELETE discards the draft and keeps the published entry; 404 when there is none', async function () {
      const id = await publishedPost();
      await dataOf(await editor().put(draftOf(id), { title: 'Thrown away' }));
      expect(await dataOf(await editor().delete(draftOf(id)))).to.deep.equal({ deleted: true });
      expect((await failureOf(await editor().get(draftOf(id)), 404)).error).to.equal('NOT_FOUND');
      expect((await failureOf(await editor().delete(draftOf(id)), 404)).error).to.equal('NOT_FOUND');
      expect(await dataOf(await editor().get(`/api/collections/posts/${id}`))).to.include({ title: 'Published title', hasDraft: false });
    });

    it('readers who see published entries only never see a draft: REST read and list, GraphQL, a narrowed website token', async function () {
      const id = await publishedPost({ title: 'Public title' });
      await dataOf(await editor().put(draftOf(id), { title: 'Secret draft title' }));
      // A viewer (content:read only).
      const read = await dataOf(await as(t, 'viewer').get(`/api/collections/posts/${id}`));
      expect(read.title).to.equal('Public title');
      expect(read).to.not.have.property('hasDraft');
      const list = await dataOf(await as(t, 'viewer').get('/api/collections/posts?limit=100&status=published'));
      expect(JSON.stringify(list)).to.not.include('Secret draft title');
      expect(list.items.find((e: any) => e._id === id)).to.not.have.property('hasDraft');
      expect((await failureOf(await as(t, 'viewer').get(draftOf(id)), 403)).error).to.equal('FORBIDDEN');
      // GraphQL, as the viewer and as an editor: the published values.
      for (const who of ['viewer', 'editor']) {
        const data = await graphqlData(
          t,
          `{ post(_id: "${id}") { title hasDraft } posts(limit: 100) { items { _id title hasDraft } } }`,
          who,
        );
        expect(data.post.title).to.equal('Public title');
        // hasDraft: for callers who may write; null for the others.
        expect(data.post.hasDraft).to.equal(who === 'editor' ? true : null);
        expect(data.posts.items.find((e: any) => e._id === id).hasDraft).to.equal(who === 'editor' ? true : null);
        expect(JSON.stringify(data)).to.not.include('Secret draft title');
      }
      // A website token narrowed to content:read (a site's frontend).
      const cookie = await signIn(t, `site-${variant.name}@example.com`, 'editor');
      const made = await t.request('/api/website-tokens', {
        method: 'POST',
        headers: { cookie },
        json: { name: 'site', permissions: ['content:read'] },
      });
      expect(made.status).to.equal(201);
      const bearer = { authorization: `Bearer ${(await made.json()).data.token}` };
      const siteRead = await t.request(`/api/collections/posts/${id}`, { headers: bearer });
      expect((await dataOf(siteRead)).title).to.equal('Public title');
      expect(JSON.stringify(await dataOf(await t.request('/api/collections/posts?limit=100', { headers: bearer })))).to.not.include(
        'Secret draft',
      );
      expect((await t.request(draftOf(id), { headers: bearer })).status).to.equal(403);
    });

    it("another tenant's admin can neither read nor write nor publish the draft (404)", async function () {
      const id = await publishedPost();
      await dataOf(await editor().put(draftOf(id), { title: 'Mine' }));
      const other = as(t, 'admin', 'acme');
      expect((await failureOf(await other.get(draftOf(id)), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await other.put(draftOf(id), { title: 'Theirs' }), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await other.post(`${draftOf(id)}/publish`), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await other.delete(draftOf(id)), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await dataOf(await editor().get(draftOf(id)))).title).to.equal('Mine');
    });

    it('a collection without drafts refuses the draft routes with 400 VALIDATION_ERROR', async function () {
      const note = await dataOf(await editor().post('/api/collections/notes', { title: 'A note', status: 'published' }), 201);
      const issues = await validationIssues(await editor().put(`/api/collections/notes/${note._id}/draft`, { title: 'x' }));
      expect(issues[0]!.path).to.equal('collection');
      expect(await validationIssues(await editor().get(`/api/collections/notes/${note._id}/draft`))).to.have.length(1);
      expect(await dataOf(await editor().get(`/api/collections/notes/${note._id}`))).to.not.have.property('hasDraft');
    });

    it('restoring a revision writes it into the working draft; the published entry stays', async function () {
      const id = await publishedPost({ title: 'Version one' });
      await dataOf(await editor().patch(`/api/collections/posts/${id}`, { title: 'Version two' }));
      const restored = await dataOf(await editor().post(`/api/collections/posts/${id}/revisions/1/restore`));
      expect(restored).to.include({ title: 'Version one', hasDraft: true, version: 2 });
      expect((await dataOf(await editor().get(`/api/collections/posts/${id}`))).title).to.equal('Version two');
      expect((await dataOf(await editor().get(draftOf(id)))).title).to.equal('Version one');
      expect((await dataOf(await editor().get(`/api/collections/posts/${id}/revisions`))).map((r: any) => r.version)).to.deep.equal([2, 1]);
    });

    it('deleting the entry deletes its draft', async function () {
      const id = await publishedPost();
      await dataOf(await editor().put(draftOf(id), { title: 'Gone soon' }));
      await dataOf(await editor().delete(`/api/collections/posts/${id}`));
      const rows = await t.kernel.sequelize.query('SELECT entry_id FROM content_entry_drafts WHERE entry_id = ?', {
        replacements: [id],
        type: QueryTypes.SELECT,
      });
      expect(rows).to.deep.equal([]);
      expect((await failureOf(await editor().get(draftOf(id)), 404)).error).to.equal('ENTRY_NOT_FOUND');
    });
  });
}
