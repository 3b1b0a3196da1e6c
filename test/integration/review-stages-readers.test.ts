import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, createCollections, dataOf, graphqlData } from '../helpers/content.js';
import { modernClient, testHeaders, waitFor } from '../helpers/graphql-ws.js';
import { responseCookie, useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';

const PASSWORD = 'correct horse battery';

/**
 * Issue 37, review stages (docs/features/review-stages.md): `_stage` is shown to callers who may write the
 * collection only (a role's rules count), on every surface; and the roles of stages follow a role renamed or deleted.
 */
for (const variant of DB_VARIANTS) {
  describe(`review stages: who sees them, roles that go (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(
      variant,
      {
        seed: async () =>
          createCollections(
            t,
            { name: 'posts', fields: [{ name: 'title', type: 'text' }] },
            {
              name: 'notes',
              fields: [
                { name: 'title', type: 'text' },
                { name: 'post', type: 'relation', collection: 'posts' },
              ],
            },
          ),
      },
      { config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } } as never },
    );
    const admin = () => as(t, 'admin');
    let n = 0;
    /** A signed-in user of the default tenant with `role`: its session cookie. */
    async function session(role: string): Promise<string> {
      const email = `stage-${role}-${variant.name}-${++n}@example.com`;
      await t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users').create({ email, password: PASSWORD, role });
      const cookie = responseCookie(await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } }));
      expect(cookie, `sign-in as ${role}`).to.be.a('string');
      return cookie!;
    }
    const withCookie = (cookie: string, method: string, path: string, json?: unknown) =>
      t.request(path, { method, headers: { cookie }, ...(json === undefined ? {} : { json }) });
    afterEach(async () => {
      for (const w of await dataOf(await admin().get('/api/workflows'))) await admin().delete(`/api/workflows/${w._id}`);
    });

    it('answers _stage to writers only: REST list and read, populate, GraphQL and subscriptions leave it out for readers', async function () {
      await dataOf(
        await admin().post('/api/workflows', {
          name: 'Editorial',
          collections: ['posts'],
          stages: [{ name: 'draft' }, { name: 'review' }],
        }),
        201,
      );
      const editor = as(t, 'editor');
      const viewer = as(t, 'viewer');
      const writerWs = modernClient(t, { headers: testHeaders('editor') });
      const readerWs = modernClient(t, { headers: testHeaders('viewer') });
      try {
        const writerAdded = writerWs.subscribe('subscription { postAdded { title _stage } }');
        const readerAdded = readerWs.subscribe('subscription { postAdded { title _stage } }');
        const graphql = t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql');
        await waitFor('2 subscriptions', () => graphql.activeSubscriptions === 2);
        const post = await dataOf(await editor.post('/api/collections/posts', { title: 'Staged', status: 'published' }), 201);
        expect(post._stage).to.equal('draft');
        await dataOf(await editor.put(`/api/collections/posts/${post._id}/stage`, { stage: 'review' }));
        expect(await writerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Staged', _stage: 'draft' } } });
        expect(await readerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Staged', _stage: null } } });

        // The same list query by a writer first (then cached), then by a reader: the reader's has no stage.
        const query = '/api/collections/posts?status=published&limit=50';
        expect((await dataOf(await editor.get(query))).items.find((e: any) => e._id === post._id)._stage).to.equal('review');
        const listed = (await dataOf(await viewer.get(query))).items.find((e: any) => e._id === post._id);
        expect(listed).to.include({ title: 'Staged' }).and.not.have.property('_stage');
        expect(await dataOf(await viewer.get(`/api/collections/posts/${post._id}`)))
          .to.include({ title: 'Staged' })
          .and.not.have.property('_stage');
        expect((await dataOf(await editor.get(`/api/collections/posts/${post._id}`)))._stage).to.equal('review');

        const note = await dataOf(
          await editor.post('/api/collections/notes', { title: 'About it', post: post._id, status: 'published' }),
          201,
        );
        const populated = await dataOf(await viewer.get(`/api/collections/notes/${note._id}?populate=post`));
        expect(populated.post).to.include({ _id: post._id, title: 'Staged' }).and.not.have.property('_stage');
        const gql = `{ post(_id: "${post._id}") { _stage } posts(limit: 50) { items { _id _stage } } }`;
        const read = await graphqlData(t, gql, 'viewer');
        expect(read.post._stage).to.equal(null);
        expect(read.posts.items.find((e: any) => e._id === post._id)._stage).to.equal(null);
        expect((await graphqlData(t, gql, 'editor')).post._stage).to.equal('review');
      } finally {
        await writerWs.dispose();
        await readerWs.dispose();
      }

      // A website token narrowed to reading is a reader; a role with an update rule for posts (no content:write) a writer.
      const adminCookie = await session('admin');
      const token = await dataOf(
        await withCookie(adminCookie, 'POST', '/api/website-tokens', { name: 'site', permissions: ['content:read'] }),
        201,
      );
      const [post] = (await dataOf(await as(t, 'editor').get('/api/collections/posts?status=published'))).items;
      const bearer = { authorization: `Bearer ${token.token}` };
      const viaToken = await dataOf(await t.request(`/api/collections/posts/${post._id}`, { headers: bearer }));
      expect(viaToken).to.include({ _id: post._id }).and.not.have.property('_stage');
      await dataOf(
        await admin().post('/api/roles', {
          name: 'corrector',
          permissions: ['content:read'],
          rules: [{ action: 'update', collection: 'posts' }],
        }),
        201,
      );
      const corrector = await session('corrector');
      expect((await dataOf(await withCookie(corrector, 'GET', `/api/collections/posts/${post._id}`)))._stage).to.equal('review');
      // Notes, which the rule does not name: still read as a reader would (no stage there anyway: not in the workflow).
      const notes = await dataOf(await withCookie(corrector, 'GET', '/api/collections/notes'));
      expect(notes.items.every((e: any) => !('_stage' in e))).to.equal(true);
    });

    it('renames a renamed role in the stages, and drops a deleted one (a stage left with none: admin only)', async function () {
      const role = async (name: string) =>
        dataOf(await admin().post('/api/roles', { name, permissions: ['content:read', 'content:write'] }), 201);
      const checker = await role('checker');
      const lawyer = await role('lawyer');
      const made = await dataOf(
        await admin().post('/api/workflows', {
          name: 'Legal',
          collections: ['posts'],
          stages: [{ name: 'draft' }, { name: 'checked', roles: ['checker', 'editor'] }, { name: 'cleared', roles: ['lawyer'] }],
        }),
        201,
      );
      const stages = async () => (await dataOf(await admin().get('/api/workflows'))).find((w: any) => w._id === made._id).stages;
      await dataOf(await admin().patch(`/api/roles/${checker._id}`, { name: 'proofreader' }));
      await until(
        async () => JSON.stringify((await stages())[1].roles) === '["proofreader","editor"]' || undefined,
        'the rename in the stage',
      );
      await dataOf(await admin().delete(`/api/roles/${lawyer._id}`));
      await until(
        async () => JSON.stringify((await stages())[2].roles) === '["admin"]' || undefined,
        'the deleted role gone from the stage',
      );
      await dataOf(await admin().delete(`/api/roles/${checker._id}`));
      await until(async () => JSON.stringify((await stages())[1].roles) === '["editor"]' || undefined, 'the second deleted role gone');
      expect((await stages())[0]).to.deep.equal({ name: 'draft' });
      // The stage left with admin only: an editor is refused, as it was while the role existed.
      const post = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Contract' }), 201);
      expect((await as(t, 'editor').put(`/api/collections/posts/${post._id}/stage`, { stage: 'cleared' })).status).to.equal(403);
      // The workflow saves again as it is (its roles are all known), and the change is in the audit trail.
      await dataOf(await admin().patch(`/api/workflows/${made._id}`, { stages: await stages() }));
      await t.kernel.container.resolve<{ flush(): Promise<void> }>('audit').flush();
      const rows = await t.kernel.sequelize.query<{ message: string }>(
        "SELECT message FROM cms_audit_log WHERE action = 'workflow.changed' ORDER BY id",
        { type: QueryTypes.SELECT },
      );
      expect(rows.map((r) => r.message)).to.include("Workflow 'Legal' changed: its stages follow a role renamed or deleted");
    });
  });
}
