import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import type { PublishSchedules } from '../../plugins/content/publish-schedules.js';
import { as, graphqlData, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { startSmtp } from '../helpers/smtp-inbox.js';
import { until } from '../helpers/until.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const STAGES = [{ name: 'draft' }, { name: 'review' }, { name: 'approved', roles: ['admin'] }];

// Issue 37, item 4: review stages (API decisions, "Editorial: working drafts, review stages, webhooks").
for (const variant of DB_VARIANTS) {
  describe(`review stages (${variant.name})`, function () {
    this.timeout(60000);
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let receiver: Receiver;
    before(async () => {
      smtp = await startSmtp();
      receiver = await startReceiver();
    });
    const t = useIdentityKernel(
      variant,
      {
        seed: async () =>
          createCollections(
            t,
            { name: 'posts', fields: [{ name: 'title', type: 'text' }] },
            { name: 'notes', fields: [{ name: 'title', type: 'text' }] },
          ),
      },
      () => ({
        config: {
          outbound: { allowPrivate: true },
          plugins: {
            options: {
              webhooks: { pollMs: 50 },
              mail: { from: 'CMS <cms@example.com>', smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
            },
          },
        } as never,
      }),
    );
    after(async () => {
      await smtp?.close();
      await receiver?.close();
    });
    const admin = (tenant?: string) => as(t, 'admin', tenant);
    const editor = () => as(t, 'editor');
    afterEach(async () => {
      for (const tenant of ['default', 'other']) {
        for (const w of await dataOf(await admin(tenant).get('/api/workflows'))) await admin(tenant).delete(`/api/workflows/${w._id}`);
        for (const w of await dataOf(await admin(tenant).get('/api/webhooks'))) await admin(tenant).delete(`/api/webhooks/${w._id}`);
      }
    });
    const workflow = async (body: Record<string, unknown> = {}) =>
      dataOf(
        await admin().post('/api/workflows', {
          name: 'Editorial',
          collections: ['posts'],
          stages: STAGES,
          publishStage: 'approved',
          ...body,
        }),
        201,
      );
    const post = async (body: Record<string, unknown> = {}) =>
      dataOf(await editor().post('/api/collections/posts', { title: 'Hello', ...body }), 201);
    const move = (id: string, stage: string, who = editor()) => who.put(`/api/collections/posts/${id}/stage`, { stage });

    it('creates, lists, changes and deletes a workflow; refuses bad shapes with 400 and a second workflow of a collection with 409', async function () {
      const made = await workflow();
      expect(made).to.include({ name: 'Editorial', publishStage: 'approved' });
      expect(made.collections).to.deep.equal(['posts']);
      expect(made.stages).to.deep.equal(STAGES);
      // content:read lists them (the entry page shows the stages); only system:settings changes them.
      expect((await dataOf(await as(t, 'viewer').get('/api/workflows'))).map((w: any) => w._id)).to.deep.equal([made._id]);
      await failureOf(await editor().post('/api/workflows', { name: 'x', collections: [], stages: [{ name: 'a' }] }), 403);
      const bad = async (body: Record<string, unknown>, path: string) => {
        const res = await failureOf(
          await admin().post('/api/workflows', { name: 'Bad', collections: ['notes'], stages: [{ name: 'a' }], ...body }),
          400,
        );
        expect(res.error).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(res)).to.contain(path);
      };
      await bad({ stages: [{ name: 'a' }, { name: 'a' }] }, 'body.stages.1.name');
      await bad({ publishStage: 'b' }, 'body.publishStage');
      await bad({ collections: ['nope'] }, 'body.collections.0');
      await bad({ stages: [{ name: 'a', roles: ['no-such-role'] }] }, 'body.stages.0.roles.0');
      const taken = await failureOf(
        await admin().post('/api/workflows', { name: 'Other', collections: ['posts'], stages: [{ name: 'a' }] }),
        409,
      );
      expect(taken.error).to.equal('CONFLICT');
      const changed = await dataOf(
        await admin().patch(`/api/workflows/${made._id}`, { name: 'Renamed', publishStage: null, collections: ['posts', 'notes'] }),
      );
      expect(changed).to.include({ name: 'Renamed' }).and.not.have.property('publishStage');
      expect(changed.collections).to.deep.equal(['notes', 'posts']);
      expect((await failureOf(await admin().patch(`/api/workflows/${made._id}`, { publishStage: 'nope' }), 400)).error).to.equal(
        'VALIDATION_ERROR',
      );
      await dataOf(await admin().delete(`/api/workflows/${made._id}`));
      expect(await dataOf(await admin().get('/api/workflows'))).to.deep.equal([]);
    });

    it("keeps a tenant's workflows and stages from another tenant's administrators", async function () {
      const made = await workflow();
      const entry = await post();
      expect(await dataOf(await admin('other').get('/api/workflows'))).to.deep.equal([]);
      await failureOf(await admin('other').patch(`/api/workflows/${made._id}`, { name: 'Mine' }), 404);
      await failureOf(await admin('other').delete(`/api/workflows/${made._id}`), 404);
      // The other tenant's posts are in no workflow; the first tenant's entry is not found there.
      expect((await failureOf(await move(entry._id, 'review', admin('other')), 409)).error).to.equal('CONFLICT');
      const theirs = await dataOf(
        await admin('other').post('/api/workflows', { name: 'Theirs', collections: ['posts'], stages: [{ name: 'x' }] }),
        201,
      );
      await failureOf(await move(entry._id, 'x', admin('other')), 404);
      const other = await dataOf(await admin('other').post('/api/collections/posts', { title: 'Elsewhere' }), 201);
      expect(other._stage).to.equal('x');
      expect((await dataOf(await admin().get(`/api/collections/posts/${entry._id}`)))._stage).to.equal('draft');
      expect((await dataOf(await admin().get('/api/workflows'))).map((w: any) => w._id)).to.deep.equal([made._id]);
      expect(theirs._id).to.not.equal(made._id);
    });

    it('answers _stage in reads and lists (a new entry in the first stage), moves it, refuses roles not allowed with 403', async function () {
      await workflow();
      const entry = await post();
      expect(entry._stage).to.equal('draft');
      const listed = await dataOf(await editor().get('/api/collections/posts'));
      expect(listed.items.find((e: any) => e._id === entry._id)._stage).to.equal('draft');
      expect((await dataOf(await move(entry._id, 'review')))._stage).to.equal('review');
      expect((await dataOf(await editor().get(`/api/collections/posts/${entry._id}`)))._stage).to.equal('review');
      const gql = await graphqlData(t, `{ post(_id: "${entry._id}") { _stage } posts(limit: 100) { items { _id _stage } } }`);
      expect(gql.post._stage).to.equal('review');
      expect(gql.posts.items.find((e: any) => e._id === entry._id)._stage).to.equal('review');
      // The list answered before is not served from the cache with the old stage.
      const again = await dataOf(await editor().get('/api/collections/posts'));
      expect(again.items.find((e: any) => e._id === entry._id)._stage).to.equal('review');
      const refused = await failureOf(await move(entry._id, 'approved'), 403);
      expect(refused.error).to.equal('FORBIDDEN');
      expect(refused.message).to.contain('admin');
      expect((await dataOf(await move(entry._id, 'approved', admin())))._stage).to.equal('approved');
      expect((await failureOf(await move(entry._id, 'nope'), 400)).error).to.equal('VALIDATION_ERROR');
      await failureOf(await move('00000000-0000-4000-8000-000000000000', 'review'), 404);
      await failureOf(await as(t, 'viewer').put(`/api/collections/posts/${entry._id}/stage`, { stage: 'review' }), 403);
      const note = await dataOf(await editor().post('/api/collections/notes', { title: 'n' }), 201);
      expect(note).to.not.have.property('_stage');
      expect((await failureOf(await editor().put(`/api/collections/notes/${note._id}/stage`, { stage: 'review' }), 409)).error).to.equal(
        'CONFLICT',
      );
    });

    it('lists the entries of one stage (?stage=), paged with their total; readers, unknown stages and other collections refused', async function () {
      await workflow();
      const [a, b, c] = [await post({ title: 'Paged A' }), await post({ title: 'Paged B' }), await post({ title: 'Paged C' })];
      // Other tests' posts are in the first stage too: only these three are listed.
      const mine = encodeURIComponent(JSON.stringify({ title: { startsWith: 'Paged ' } }));
      await dataOf(await move(b._id, 'review'));
      await dataOf(await move(c._id, 'approved', admin()));
      const ids = async (query: string) => {
        const page = await dataOf(await editor().get(`/api/collections/posts?filter=${mine}&${query}`));
        return { ids: page.items.map((e: any) => e._id), total: page.total, stages: page.items.map((e: any) => e._stage) };
      };
      expect(await ids('stage=draft&sort=title')).to.deep.equal({ ids: [a._id], total: 1, stages: ['draft'] });
      expect(await ids('stage=review')).to.deep.equal({ ids: [b._id], total: 1, stages: ['review'] });
      // Back to the first stage (a stored row of the first stage) and paged: two of them, one a page.
      await dataOf(await move(c._id, 'draft', admin()));
      expect(await ids('stage=draft&sort=title&limit=1')).to.deep.equal({ ids: [a._id], total: 2, stages: ['draft'] });
      expect(await ids('stage=draft&sort=title&limit=1&page=2')).to.deep.equal({ ids: [c._id], total: 2, stages: ['draft'] });
      expect(await ids('stage=approved')).to.deep.equal({ ids: [], total: 0, stages: [] });
      // A stage name with SQL in it is a stage the workflow does not have.
      expect((await failureOf(await editor().get("/api/collections/posts?stage=x')%20OR%20('1'%3D'1"), 400)).error).to.equal(
        'VALIDATION_ERROR',
      );
      expect((await failureOf(await as(t, 'viewer').get('/api/collections/posts?stage=draft'), 403)).error).to.equal('FORBIDDEN');
      expect((await failureOf(await editor().get('/api/collections/notes?stage=draft'), 400)).error).to.equal('VALIDATION_ERROR');
      // Another tenant's posts follow its own workflow (none): refused there.
      await failureOf(await admin('other').get('/api/collections/posts?stage=draft'), 400);
    });

    it('refuses publishing outside the publish stage on every path, administrators included, and publishes from it', async function () {
      await workflow();
      const required = async (res: Awaited<ReturnType<ReturnType<typeof admin>['get']>>) =>
        expect((await failureOf(res, 409)).error).to.equal('WORKFLOW_STAGE_REQUIRED');
      await required(await admin().post('/api/collections/posts', { title: 'x', status: 'published' }));
      await required(
        await admin().post('/api/collections/posts/batch', { entries: [{ title: 'a' }, { title: 'b', status: 'published' }] }),
      );
      const entry = await post();
      await required(await admin().patch(`/api/collections/posts/${entry._id}/status`, { status: 'published' }));
      await required(await admin().patch(`/api/collections/posts/${entry._id}`, { title: 'y', status: 'published' }));
      const gql = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'admin',
        json: { query: `mutation { setPostStatus(_id: "${entry._id}", status: published) { _id } }` },
      });
      const body = await gql.json();
      expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).to.equal('WORKFLOW_STAGE_REQUIRED');
      // Nothing was written: still a draft, and the batch created nothing.
      const list = await dataOf(await admin().get('/api/collections/posts'));
      expect(list.items.filter((e: any) => ['x', 'a', 'b', 'y'].includes(e.title))).to.deep.equal([]);
      expect(list.items.find((e: any) => e._id === entry._id).status).to.equal('draft');
      // A schedule that comes due outside the stage is dropped (logged), the entry stays a draft.
      const at = new Date(Date.now() + 60_000).toISOString();
      await dataOf(await editor().put(`/api/collections/posts/${entry._id}/schedule`, { publishAt: at }));
      await t.kernel.container.resolve<PublishSchedules>('publishSchedules').runDue(Date.now() + 120_000);
      expect((await dataOf(await admin().get(`/api/collections/posts/${entry._id}`))).status).to.equal('draft');
      expect(await dataOf(await editor().get(`/api/collections/posts/${entry._id}/schedule`))).to.include({ publishAt: null });
      await dataOf(await move(entry._id, 'approved', admin()));
      expect((await dataOf(await editor().patch(`/api/collections/posts/${entry._id}/status`, { status: 'published' }))).status).to.equal(
        'published',
      );
      // Without a publish stage, publishing is not tied to one.
      const [w] = await dataOf(await admin().get('/api/workflows'));
      await dataOf(await admin().patch(`/api/workflows/${w._id}`, { publishStage: null }));
      expect((await post({ status: 'published' })).status).to.equal('published');
    });

    it('refuses publishing the working draft of a published entry outside the publish stage', async function () {
      await dataOf(await admin().patch('/api/collections/notes/schema', { drafts: true }));
      await workflow({ collections: ['notes'] });
      const note = await dataOf(await editor().post('/api/collections/notes', { title: 'First' }), 201);
      await dataOf(await admin().put(`/api/collections/notes/${note._id}/stage`, { stage: 'approved' }));
      await dataOf(await editor().patch(`/api/collections/notes/${note._id}/status`, { status: 'published' }));
      // Back in the first stage, a draft beside the published entry cannot be published.
      await dataOf(await admin().put(`/api/collections/notes/${note._id}/stage`, { stage: 'draft' }));
      await dataOf(await editor().put(`/api/collections/notes/${note._id}/draft`, { title: 'Second' }));
      const refused = await admin().post(`/api/collections/notes/${note._id}/draft/publish`);
      // The answer names the entry's stage and the publish stage (the admin UI says both in words).
      expect(await failureOf(refused, 409)).to.include({ error: 'WORKFLOW_STAGE_REQUIRED', stage: 'draft', publishStage: 'approved' });
      expect((await dataOf(await as(t, 'viewer').get(`/api/collections/notes/${note._id}`))).title).to.equal('First');
      expect((await dataOf(await editor().get(`/api/collections/notes/${note._id}/draft`))).title).to.equal('Second');
      await dataOf(await admin().put(`/api/collections/notes/${note._id}/stage`, { stage: 'approved' }));
      expect((await dataOf(await editor().post(`/api/collections/notes/${note._id}/draft/publish`))).title).to.equal('Second');
      await dataOf(await admin().patch('/api/collections/notes/schema', { drafts: false }));
    });

    it('audits a stage change and delivers on:stage_change to a webhook', async function () {
      await workflow();
      const hook = await dataOf(await admin().post('/api/webhooks', { name: 'site', url: receiver.url, events: ['on:stage_change'] }), 201);
      const entry = await post();
      receiver.received.length = 0;
      await dataOf(await move(entry._id, 'review'));
      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.headers['x-cms-event']).to.equal('on:stage_change');
      const sent = JSON.parse(delivery!.body);
      expect(sent.data).to.include({ collection: 'posts', stage: 'review', previousStage: 'draft' });
      expect(sent.data.entry).to.include({ _id: entry._id, _stage: 'review' });
      await t.kernel.container.resolve<AuditLog>('audit').flush();
      const rows = await t.kernel.sequelize.query<{ action: string; details: string }>(
        "SELECT action, details FROM cms_audit_log WHERE action = 'entry.stage-changed' ORDER BY id",
        { type: QueryTypes.SELECT },
      );
      const details = rows.map((r) => (typeof r.details === 'string' ? JSON.parse(r.details) : r.details));
      expect(details.some((d) => d.collection === 'posts' && d.from === 'draft' && d.to === 'review')).to.equal(true);
      expect(hook._id).to.be.a('string');
    });

    it('mails the users who may move the entry into the next stage', async function () {
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      await users.create({ email: `boss-${variant.name}@example.com`, password: 'correct horse battery', role: 'admin' });
      await users.create({ email: `writer-${variant.name}@example.com`, password: 'correct horse battery', role: 'editor' });
      await workflow();
      const entry = await post({ title: 'Mail me' });
      // The next stage after review is approved (admins only): the administrator is mailed, the editor not.
      await dataOf(await move(entry._id, 'review'));
      const mail = await until(
        async () => smtp.inbox.find((m) => m.to.includes(`boss-${variant.name}@`) && m.text.includes(entry._id)),
        'the mail to the administrator',
      );
      expect(mail.subject).to.contain('Mail me').and.contain('review');
      expect(mail.text).to.contain('approved');
      expect(smtp.inbox.some((m) => m.to.includes(`writer-${variant.name}@`) && m.text.includes(entry._id))).to.equal(false);
      // Back to draft: the next stage (review) names no roles, so everyone with content:write may move it.
      await dataOf(await move(entry._id, 'draft', admin()));
      await until(
        async () => smtp.inbox.find((m) => m.to.includes(`writer-${variant.name}@`) && m.text.includes(entry._id)),
        'the mail to the editor',
      );
    });
  });
}
