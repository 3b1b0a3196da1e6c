import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import type { EventBus } from '../../kernel/events.js';
import { ENTRY_EVENTS } from '../../plugins/content/public.js';
import { as, createCollections, dataOf, entryMaker, failureOf } from '../helpers/content.js';
import { startTestKernel, fixturePlugin, useIdentityKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { signatureValid, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Issue 37, item 6: webhooks (API decisions, "Webhooks" and "A delivery is"): signed, retried, logged,
// redelivered with the same id, tenant-scoped, guarded against internal addresses.
for (const variant of DB_VARIANTS) {
  describe(`webhooks (${variant.name})`, function () {
    this.timeout(60000);
    let receiver: Receiver;
    const t = useIdentityKernel(
      variant,
      {
        seed: async () =>
          createCollections(
            t,
            { name: 'posts', fields: [{ name: 'title', type: 'text' }] },
            { name: 'notes', fields: [{ name: 'title', type: 'text' }] },
            { name: 'codes', fields: [{ name: 'code', type: 'text', unique: true }] },
          ),
      },
      // The receiver is on loopback: the operator switch lets the webhooks reach it. Retries after 50 ms.
      {
        config: { outbound: { allowPrivate: true }, plugins: { options: { webhooks: { pollMs: 50, retryDelaysMs: [50, 50] } } } } as never,
      },
    );
    before(async () => (receiver = await startReceiver()));
    after(async () => receiver?.close());
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.answers.length = 0;
      receiver.fallback = 200;
    });
    const admin = () => as(t, 'admin');
    // A failed test leaves no webhook behind to deliver into the next one.
    afterEach(async () => {
      for (const tenant of ['default', 'other']) {
        const left = await dataOf(await as(t, 'admin', tenant).get('/api/webhooks'));
        for (const w of left) await as(t, 'admin', tenant).delete(`/api/webhooks/${w._id}`);
      }
    });
    const create = async (body: Record<string, unknown>) =>
      dataOf(await admin().post('/api/webhooks', { name: 'site', url: receiver.url, ...body }), 201);
    const deliveries = async (id: string) => dataOf(await admin().get(`/api/webhooks/${id}/deliveries`));

    it('creates a webhook whose secret is answered once; lists, reads, changes and deletes it', async function () {
      const hook = await create({ events: ['on:create', 'on:create', 'on:delete'] });
      expect(hook).to.include({ name: 'site', url: receiver.url, enabled: true, collections: null });
      expect(hook.events).to.deep.equal(['on:create', 'on:delete']);
      expect(hook.secret).to.match(/^whsec_[\w-]{43}$/);
      const read = await dataOf(await admin().get(`/api/webhooks/${hook._id}`));
      expect(read).to.not.have.property('secret');
      const listed = await dataOf(await admin().get('/api/webhooks'));
      expect(listed.map((w: any) => w._id)).to.include(hook._id);
      expect(JSON.stringify(listed)).to.not.contain(hook.secret);
      const stored = await t.kernel.sequelize.query<{ secret: string }>('SELECT secret FROM cms_webhooks WHERE id = ?', {
        replacements: [hook._id],
        type: QueryTypes.SELECT,
      });
      expect(stored[0]!.secret).to.match(/^v1\./).and.not.contain(hook.secret.slice(6));
      const changed = await dataOf(await admin().patch(`/api/webhooks/${hook._id}`, { enabled: false, collections: ['posts'] }));
      expect(changed).to.include({ enabled: false }).and.not.have.property('secret');
      expect(changed.collections).to.deep.equal(['posts']);
      await dataOf(await admin().delete(`/api/webhooks/${hook._id}`));
      expect((await failureOf(await admin().get(`/api/webhooks/${hook._id}`), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
    });

    it('records creation, the issued secret, changes, tests, redeliveries and deletion in the audit trail, never the secret', async function () {
      const hook = await create({ url: `${receiver.url}/T0KEN-in-path?key=query-secret`, events: ['on:create'] });
      await dataOf(await admin().patch(`/api/webhooks/${hook._id}`, { name: 'site 2', enabled: false }));
      const ping = await dataOf(await admin().post(`/api/webhooks/${hook._id}/test`));
      await dataOf(await admin().post(`/api/webhooks/${hook._id}/deliveries/${ping._id}/redeliver`));
      await dataOf(await admin().delete(`/api/webhooks/${hook._id}`));
      await t.kernel.container.resolve<AuditLog>('audit').flush();
      const rows = await t.kernel.sequelize.query<{ action: string; actor: string; message: string; details: string }>(
        "SELECT action, actor, message, details FROM cms_audit_log WHERE action LIKE 'webhook.%' ORDER BY id",
        { type: QueryTypes.SELECT },
      );
      const mine = rows.filter((r) => JSON.parse(r.details).target?.id === hook._id);
      expect(mine.map((r) => r.action)).to.deep.equal([
        'webhook.created',
        'webhook.secret-issued',
        'webhook.changed',
        'webhook.tested',
        'webhook.redelivered',
        'webhook.deleted',
      ]);
      for (const r of mine) expect(JSON.parse(r.actor)).to.include({ tenantId: 'default' });
      const created = JSON.parse(mine[0]!.details);
      expect(created).to.deep.include({ name: 'site', events: ['on:create'], enabled: true, urlOrigin: new URL(receiver.url).origin });
      const changed = JSON.parse(mine[2]!.details);
      expect(changed.before).to.deep.equal({ name: 'site', enabled: true });
      expect(changed.after).to.deep.equal({ name: 'site 2', enabled: false });
      expect(JSON.parse(mine[4]!.details)).to.include({ delivery: ping._id, event: 'ping', status: 'succeeded' });
      const text = JSON.stringify(rows);
      expect(text).to.not.contain(hook.secret).and.not.contain(hook.secret.slice(6, 20));
      expect(text).to.not.contain('T0KEN-in-path').and.not.contain('query-secret');
    });

    it("keeps a tenant's webhooks from another tenant's admin and from editors", async function () {
      const hook = await create({ events: ['on:create'] });
      const other = as(t, 'admin', 'other');
      expect((await failureOf(await other.get(`/api/webhooks/${hook._id}`), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
      expect((await failureOf(await other.patch(`/api/webhooks/${hook._id}`, { name: 'x' }), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
      expect((await failureOf(await other.post(`/api/webhooks/${hook._id}/test`), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
      expect((await failureOf(await other.get(`/api/webhooks/${hook._id}/deliveries`), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
      expect((await failureOf(await other.delete(`/api/webhooks/${hook._id}`), 404)).error).to.equal('WEBHOOK_NOT_FOUND');
      expect((await dataOf(await other.get('/api/webhooks'))).map((w: any) => w._id)).to.not.include(hook._id);
      const ping = await dataOf(await admin().post(`/api/webhooks/${hook._id}/test`));
      expect((await failureOf(await other.post(`/api/webhooks/${hook._id}/deliveries/${ping._id}/redeliver`), 404)).error).to.equal(
        'WEBHOOK_NOT_FOUND',
      );
      expect((await as(t, 'editor').get('/api/webhooks')).status).to.equal(403);
      expect(receiver.received).to.have.length(1); // the ping only
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('answers bad input with 400 and a stable code', async function () {
      for (const body of [
        { name: 'a', url: receiver.url },
        { name: 'a', url: receiver.url, events: [] },
        { name: 'a', url: receiver.url, events: ['on:nothing'] },
        { name: 'a', url: 'ftp://example.com/x', events: ['on:create'] },
        { name: 'a', url: 'http://u:p@example.com/x', events: ['on:create'] },
        { name: '', url: receiver.url, events: ['on:create'] },
        { name: 'a', url: receiver.url, events: ['on:create'], secret: 'mine' },
      ])
        expect((await failureOf(await admin().post('/api/webhooks', body), 400)).error, JSON.stringify(body)).to.equal('VALIDATION_ERROR');
      const hook = await create({ events: ['on:create'] });
      expect((await failureOf(await admin().patch(`/api/webhooks/${hook._id}`, {}), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await admin().post(`/api/webhooks/${hook._id}/deliveries/nope/redeliver`), 404)).error).to.equal(
        'WEBHOOK_DELIVERY_NOT_FOUND',
      );
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('delivers an entry event once, signed, with the decided headers and body; logs it', async function () {
      const hook = await create({ events: ['on:create'], collections: ['posts'] });
      const make = entryMaker(t);
      await make('notes', { title: 'not this collection' });
      const entryId = await make('posts', { title: 'Hello' });
      const [got] = await receiver.waitFor(1);
      const body = JSON.parse(got!.body);
      expect(Object.keys(body).sort()).to.deep.equal(['createdAt', 'data', 'event', 'id', 'tenantId']);
      expect(body).to.include({ event: 'on:create', tenantId: 'default' });
      expect(body.data.collection).to.equal('posts');
      expect(body.data.entry).to.include({ _id: entryId, title: 'Hello' });
      expect(got!.headers['x-cms-event']).to.equal('on:create');
      expect(got!.headers['x-cms-delivery']).to.equal(body.id);
      expect(got!.headers['content-type']).to.equal('application/json');
      expect(got!.headers['x-cms-signature']).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(signatureValid(hook.secret, got!.headers['x-cms-signature'] as string, got!.body)).to.equal(true);
      expect(signatureValid(hook.secret, got!.headers['x-cms-signature'] as string, got!.body + ' ')).to.equal(false);
      const log = await deliveries(hook._id);
      expect(log).to.include({ total: 1, page: 1, limit: 25 });
      await waitUntil(async () => (await deliveries(hook._id)).items[0].status === 'succeeded');
      const [row] = (await deliveries(hook._id)).items;
      expect(row).to.include({
        _id: body.id,
        event: 'on:create',
        status: 'succeeded',
        attempts: 1,
        responseStatus: 200,
        nextAttemptAt: null,
      });
      expect(row.durationMs).to.be.a('number');
      await new Promise((r) => setTimeout(r, 300)); // rounds of the dispatcher pass: still once
      expect(receiver.received).to.have.length(1);
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('retries a receiver that answered 500 with the same delivery id; gives up after the last retry; redelivers', async function () {
      const hook = await create({ events: ['on:update'] });
      const make = entryMaker(t);
      const id = await make('posts', { title: 'A' });
      receiver.answers.push(500);
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${id}`, { title: 'B' }));
      const [first, second] = await receiver.waitFor(2);
      expect(second!.headers['x-cms-delivery']).to.equal(first!.headers['x-cms-delivery']);
      expect(second!.body).to.equal(first!.body);
      await waitUntil(async () => (await deliveries(hook._id)).items[0].status === 'succeeded');
      expect((await deliveries(hook._id)).items[0]).to.include({ attempts: 2, responseStatus: 200 });

      receiver.fallback = 503;
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${id}`, { title: 'C' }));
      await receiver.waitFor(5); // 1 + 2 retries
      await waitUntil(async () => (await deliveries(hook._id)).items[0].status === 'failed');
      const failed = (await deliveries(hook._id)).items[0];
      expect(failed).to.include({ attempts: 3, responseStatus: 503, nextAttemptAt: null });

      receiver.fallback = 200;
      const again = await dataOf(await admin().post(`/api/webhooks/${hook._id}/deliveries/${failed._id}/redeliver`));
      expect(again).to.include({ _id: failed._id, status: 'succeeded', attempts: 4, responseStatus: 200 });
      expect(receiver.received.at(-1)!.headers['x-cms-delivery']).to.equal(failed._id);
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('records each outcome of deliveries sent together under its own delivery id', async function () {
      const hook = await create({ events: ['on:create'] });
      // Six entries at once: their deliveries are claimed and sent together, and their outcomes written together.
      const answers = [200, 500, 200, 503, 200, 500];
      receiver.answers.push(...answers);
      await dataOf(
        await as(t, 'editor').post('/api/collections/posts/batch', { entries: answers.map((_, i) => ({ title: `together ${i}` })) }),
        201,
      );
      const got = await receiver.waitFor(9); // six, then the three refused ones again (retries after 50 ms)
      const answered = new Map<string, number>();
      got.slice(0, 6).forEach((r, i) => answered.set(String(r.headers['x-cms-delivery']), answers[i]!));
      expect(answered.size).to.equal(6);
      await waitUntil(async () => (await deliveries(hook._id)).items.every((d: { status: string }) => d.status === 'succeeded'));
      const log = (await deliveries(hook._id)).items as Array<{ _id: string; attempts: number; responseStatus: number }>;
      expect(log).to.have.length(6);
      for (const row of log) {
        // Answered 200 the first time: one attempt; refused first: a retry, recorded as the second attempt.
        expect(row, row._id).to.include({ attempts: answered.get(row._id) === 200 ? 1 : 2, responseStatus: 200 });
      }
      const repeats = got.filter((r) => answered.get(String(r.headers['x-cms-delivery'])) === 200).length;
      expect(repeats).to.equal(3); // a delivery answered 200 is not sent again
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('enqueues an event announced after commit outside that transaction, once it let the database go', async function () {
      const hook = await create({ events: ['on:create'], collections: ['codes'] });
      const events = t.kernel.container.resolve<EventBus>('events');
      const sequelize = t.kernel.sequelize;
      const count = async () =>
        Number(
          (
            await sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM cms_webhook_deliveries WHERE webhook_id = ?', {
              replacements: [hook._id],
              type: QueryTypes.SELECT,
            })
          )[0]!.n,
        );
      let duringHook = -1;
      // As content-packages' import does: the event is published in an afterCommit hook, which on SQLite
      // still runs while the transaction holds the one writer (an INSERT from there would be a nested write).
      await sequelize.transaction(async (transaction) => {
        await sequelize.query('UPDATE cms_webhooks SET updated_at = updated_at WHERE id = ?', { replacements: [hook._id], transaction });
        transaction.afterCommit(async () => {
          await events.publish(ENTRY_EVENTS.create, {
            tenantId: 'default',
            collection: 'codes',
            entry: { _id: 'from-an-import', code: 'X' } as never,
            userId: null,
          });
          await new Promise((r) => setTimeout(r, 150));
          duringHook = await count();
        });
      });
      if (variant.name === 'sqlite') expect(duringHook, 'no delivery row while the transaction holds the writer').to.equal(0);
      const [got] = await receiver.waitFor(1);
      expect(JSON.parse(got!.body).data.entry).to.include({ _id: 'from-an-import' });
      expect(await count()).to.equal(1);
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('enqueues nothing for an entry write that rolls back', async function () {
      const hook = await create({ events: ['on:create', 'on:update'], collections: ['codes'] });
      const make = entryMaker(t);
      const first = await make('codes', { code: 'A' });
      await receiver.waitFor(1);
      // The unique value is refused inside the write's transaction: it rolls back, nothing is announced.
      const refused = await as(t, 'editor').post('/api/collections/codes', { code: 'A' });
      expect(refused.status).to.be.within(400, 499);
      const other = await make('codes', { code: 'B' });
      expect((await as(t, 'editor').patch(`/api/collections/codes/${other}`, { code: 'A' })).status).to.be.within(400, 499);
      // A later write's delivery arrives after any the refused ones could have made: none did.
      await make('codes', { code: 'C' });
      const got = await receiver.waitFor(3);
      await new Promise((r) => setTimeout(r, 200));
      const sent = got.map((r) => JSON.parse(r.body)).map((b) => `${b.event} ${b.data.entry.code}`);
      expect(sent).to.deep.equal(['on:create A', 'on:create B', 'on:create C']);
      expect((await deliveries(hook._id)).total).to.equal(3);
      expect(first).to.be.a('string');
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('delivers on:publish when an entry becomes published, with on:status_change and its previous status', async function () {
      const hook = await create({ events: ['on:publish', 'on:status_change'], collections: ['posts'] });
      const make = entryMaker(t);
      const draft = await make('posts', { title: 'later', status: 'draft' });
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${draft}`, { title: 'still a draft' }));
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${draft}`, { status: 'published' }));
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${draft}`, { title: 'edited while published' }));
      const born = await make('posts', { title: 'born published' });
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${born}`, { status: 'archived' }));
      await receiver.waitFor(4);
      await new Promise((r) => setTimeout(r, 200));
      const bodies = receiver.received.map((r) => JSON.parse(r.body));
      const seen = bodies.map((b) => [b.event, b.data.entry._id, b.data.entry.status, b.data.previousStatus ?? null]);
      expect(seen).to.deep.equal([
        ['on:status_change', draft, 'published', 'draft'],
        ['on:publish', draft, 'published', 'draft'],
        ['on:publish', born, 'published', null],
        ['on:status_change', born, 'archived', 'published'],
      ]);
      expect(bodies.map((b) => b.id)).to.have.length(new Set(bodies.map((b) => b.id)).size);
      // A batch create announces on:publish for each entry created published (and none for a draft).
      receiver.received.length = 0;
      const batch = await dataOf(
        await as(t, 'editor').post('/api/collections/posts/batch', {
          entries: [
            { title: 'batch one', status: 'published' },
            { title: 'batch draft', status: 'draft' },
            { title: 'batch two', status: 'published' },
          ],
        }),
        201,
      );
      await receiver.waitFor(2);
      await new Promise((r) => setTimeout(r, 200));
      const published = receiver.received.map((r) => JSON.parse(r.body)).map((b) => [b.event, b.data.entry.title]);
      expect(published).to.have.deep.members([
        ['on:publish', 'batch one'],
        ['on:publish', 'batch two'],
      ]);
      expect(batch.items).to.have.length(3);
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('delivers collection creation, change and deletion to the subscribed webhooks of every tenant', async function () {
      const mine = await create({ events: ['on:collection_create', 'on:collection_update', 'on:collection_delete'] });
      const filtered = await create({ name: 'posts only', events: ['on:collection_create'], collections: ['posts'] });
      const others = await dataOf(
        await as(t, 'admin', 'other').post('/api/webhooks', { name: 'other', url: receiver.url, events: ['on:collection_delete'] }),
        201,
      );
      const fields = [{ name: 'title', type: 'text' }];
      await createCollections(t, { name: 'pages', fields });
      await dataOf(await admin().patch('/api/collections/pages/schema', { fields: [...fields, { name: 'body', type: 'text' }] }));
      await dataOf(await admin().delete('/api/collections/pages/schema'));
      await receiver.waitFor(4);
      await new Promise((r) => setTimeout(r, 200));
      const bodies = receiver.received.map((r) => ({ ...JSON.parse(r.body), delivery: r.headers['x-cms-delivery'] }));
      const seen = bodies.map((b) => `${b.tenantId} ${b.event} ${b.data.collection}`).sort();
      expect(seen).to.deep.equal(
        [
          'default on:collection_create pages',
          'default on:collection_update pages',
          'default on:collection_delete pages',
          'other on:collection_delete pages',
        ].sort(),
      );
      for (const b of bodies) expect(b.data).to.deep.equal({ collection: 'pages' });
      expect((await deliveries(filtered._id)).total).to.equal(0);
      expect((await dataOf(await as(t, 'admin', 'other').get(`/api/webhooks/${others._id}/deliveries`))).total).to.equal(1);
      await admin().delete(`/api/webhooks/${mine._id}`);
      await admin().delete(`/api/webhooks/${filtered._id}`);
      await as(t, 'admin', 'other').delete(`/api/webhooks/${others._id}`);
    });

    it("delivers a media upload of its tenant, not another tenant's", async function () {
      const hook = await create({ events: ['on:media_upload'], collections: ['posts'] });
      const png = await imageBytes(4, 4);
      expect((await uploadFile(t, png, 'other.png', { tenant: 'other' })).status).to.equal(201);
      const uploaded = await dataOf(await uploadFile(t, png, 'mine.png'), 201);
      const [got] = await receiver.waitFor(1);
      const body = JSON.parse(got!.body);
      expect(body).to.include({ event: 'on:media_upload', tenantId: 'default' });
      expect(body.data.media).to.include({ _id: uploaded._id, mimeType: 'image/png' });
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).to.have.length(1);
      await admin().delete(`/api/webhooks/${hook._id}`);
    });

    it('sends a ping on test, also to a disabled webhook; a disabled webhook gets no events', async function () {
      const hook = await create({ events: ['on:create'], enabled: false });
      await entryMaker(t)('posts', { title: 'quiet' });
      const ping = await dataOf(await admin().post(`/api/webhooks/${hook._id}/test`));
      expect(ping).to.include({ event: 'ping', status: 'succeeded', attempts: 1, responseStatus: 200 });
      expect(receiver.received).to.have.length(1);
      const body = JSON.parse(receiver.received[0]!.body);
      expect(body).to.deep.include({ id: ping._id, event: 'ping', data: { webhook: { _id: hook._id, name: 'site' } } });
      expect(receiver.received[0]!.headers['x-cms-event']).to.equal('ping');
      await admin().delete(`/api/webhooks/${hook._id}`);
    });
  });
}

describe('webhooks: internal addresses without the operator switch', function () {
  this.timeout(60000);
  let t: TestKernel;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    t = await startTestKernel({ plugins: [fixturePlugin('test-identity')] });
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('refuses a loopback, private or link-local URL at create and patch, and again at send', async function () {
    const admin = as(t, 'admin');
    for (const url of [
      receiver.url,
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://0x7f000001/x',
    ])
      expect((await failureOf(await admin.post('/api/webhooks', { name: 'a', url, events: ['on:create'] }), 400)).error, url).to.equal(
        'WEBHOOK_URL_FORBIDDEN',
      );
    const hook = await dataOf(await admin.post('/api/webhooks', { name: 'a', url: 'http://93.184.215.14/x', events: ['on:create'] }), 201);
    expect((await failureOf(await admin.patch(`/api/webhooks/${hook._id}`, { url: receiver.url }), 400)).error).to.equal(
      'WEBHOOK_URL_FORBIDDEN',
    );
    // Stored before the switch was turned off (here: written directly): the send is refused too.
    await t.kernel.sequelize.query('UPDATE cms_webhooks SET url = ? WHERE id = ?', { replacements: [receiver.url, hook._id] });
    const ping = await dataOf(await admin.post(`/api/webhooks/${hook._id}/test`));
    expect(ping).to.include({ status: 'retrying', attempts: 1, responseStatus: null });
    expect(receiver.received).to.have.length(0);
  });
});

async function waitUntil(check: () => Promise<boolean>, withinMs = 15000): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((r) => setTimeout(r, 30));
  }
}
