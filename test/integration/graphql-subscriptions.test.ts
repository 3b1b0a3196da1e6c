import { expect } from 'chai';
import WebSocket from 'ws';
import type { EventBus } from '../../kernel/events.js';
import { as, dataOf, POSTS, createPosts } from '../helpers/content.js';
import { legacyClient, modernClient, testHeaders, waitFor, wsUrl } from '../helpers/graphql-ws.js';
import { fixturePlugin, responseCookie, startTestKernel, type TestKernel, useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, REDIS_URL, uniqueName } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const OPTIONS = {
  plugins: {
    options: {
      auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' },
      graphql: { recheckSeconds: 0.3, maxSubscriptionsPerConnection: 3 },
    },
  },
};
const POST_ADDED = 'subscription { postAdded { _id title createdAt updatedAt } }';

const subscriptions = (t: TestKernel) => t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql').activeSubscriptions;

for (const variant of DB_VARIANTS) {
  describe(`graphql subscriptions over WebSocket (${variant.name})`, function () {
    this.timeout(60000);
    const disposers: Array<() => unknown> = [];
    let n = 0;
    const t = useIdentityKernel(variant, { seed: () => createPosts(t) }, { config: OPTIONS });
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
      await waitFor('subscriptions to end', () => subscriptions(t) === 0);
    });

    /** A signed-in user of the default tenant: its session cookie. */
    async function session(role = 'editor'): Promise<string> {
      const email = `ws-${role}-${++n}@example.com`;
      await t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users').create({ email, password: PASSWORD, role });
      const res = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
      expect(res.status).to.equal(200);
      return responseCookie(res)!;
    }
    const track = <C extends { dispose(): unknown }>(c: C): C => {
      disposers.push(() => c.dispose());
      return c;
    };
    const awaitSubscribed = (count: number) => waitFor(`${count} subscriptions`, () => subscriptions(t) === count);

    it('graphql-transport-ws: postAdded carries _id, title, createdAt and updatedAt after a REST create (session cookie)', async function () {
      const ws = track(modernClient(t, { headers: { cookie: await session() } }));
      const inbox = ws.subscribe(POST_ADDED);
      await awaitSubscribed(1);
      const created = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Over the modern protocol' }), 201);
      const event = await inbox.next();
      expect(event).to.deep.equal({
        data: { postAdded: { _id: created._id, title: created.title, createdAt: created.createdAt, updatedAt: created.updatedAt } },
      });
    });

    it('graphql-ws (legacy): postAdded after a REST create, with a website token in the connection parameters', async function () {
      const token = (
        await dataOf(
          await t.request('/api/website-tokens', { method: 'POST', headers: { cookie: await session() }, json: { name: 'site' } }),
          201,
        )
      ).token;
      const ws = track(legacyClient(t, { connectionParams: { authorization: `Bearer ${token}` } }));
      const inbox = ws.subscribe(POST_ADDED);
      await awaitSubscribed(1);
      const created = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Over the legacy protocol' }), 201);
      expect(await inbox.next()).to.deep.equal({
        data: { postAdded: { _id: created._id, title: created.title, createdAt: created.createdAt, updatedAt: created.updatedAt } },
      });
      expect(ws.connectionErrors).to.deep.equal([]);
    });

    it('filters events by tenant and permission: readers get published entries only, another tenant nothing', async function () {
      const writer = track(modernClient(t, { headers: testHeaders('editor') }));
      const reader = track(legacyClient(t, { headers: testHeaders('viewer') }));
      const otherTenant = track(modernClient(t, { headers: testHeaders('editor', 'acme') }));
      const writerAdded = writer.subscribe('subscription { postAdded { title status } }');
      const writerUpdated = writer.subscribe('subscription { postUpdated { title status } }');
      const readerAdded = reader.subscribe('subscription { postAdded { title status } }');
      const readerDeleted = reader.subscribe('subscription { postDeleted { title status } }');
      const otherAdded = otherTenant.subscribe('subscription { postAdded { title } }');
      await awaitSubscribed(5);

      const editor = as(t, 'editor');
      await dataOf(await editor.post('/api/collections/posts', { title: 'Draft D' }), 201);
      const published = await dataOf(await editor.post('/api/collections/posts', { title: 'Published P', status: 'published' }), 201);
      await dataOf(await as(t, 'editor', 'acme').post('/api/collections/posts', { title: 'Acme A' }), 201);
      expect(await writerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Draft D', status: 'draft' } } });
      expect(await writerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Published P', status: 'published' } } });
      // Events arrive in order: the first one the reader and the other tenant get shows what was filtered out before it.
      expect(await readerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Published P', status: 'published' } } });
      expect(await otherAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Acme A' } } });

      // Unpublishing: the writer sees an update, the reader sees the entry go.
      await dataOf(await editor.patch(`/api/collections/posts/${published._id}/status`, { status: 'draft' }));
      expect(await writerUpdated.next()).to.deep.equal({ data: { postUpdated: { title: 'Published P', status: 'draft' } } });
      expect(await readerDeleted.next()).to.deep.equal({ data: { postDeleted: { title: 'Published P', status: 'draft' } } });
      await dataOf(await editor.post('/api/collections/posts', { title: 'Sentinel', status: 'published' }), 201);
      expect(await readerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Sentinel', status: 'published' } } });
      expect(await writerAdded.next()).to.deep.equal({ data: { postAdded: { title: 'Sentinel', status: 'published' } } });
      expect(writerAdded.pending + otherAdded.pending + readerDeleted.pending).to.equal(0);

      // Without content:read a subscription is refused; a guest is asked to sign in.
      const nobody = track(modernClient(t, { headers: testHeaders('nobody') })).subscribe(POST_ADDED);
      expect((await nobody.next()).errors.map((e: { extensions: { code: string } }) => e.extensions.code)).to.deep.equal(['FORBIDDEN']);
      const guest = track(legacyClient(t)).subscribe(POST_ADDED);
      expect((await guest.next()).errors.map((e: { extensions: { code: string } }) => e.extensions.code)).to.deep.equal([
        'AUTHENTICATION_REQUIRED',
      ]);
    });

    it('counts the session cookie only for upgrades from this origin (no cross-site WebSocket hijacking)', async function () {
      const cookie = await session();
      const foreign = track(modernClient(t, { headers: { cookie, origin: 'http://evil.example' } })).subscribe(POST_ADDED);
      expect((await foreign.next()).errors.map((e: { extensions: { code: string } }) => e.extensions.code)).to.deep.equal([
        'AUTHENTICATION_REQUIRED',
      ]);
      const own = track(modernClient(t, { headers: { cookie, origin: t.url } })).subscribe(POST_ADDED);
      await awaitSubscribed(1);
      const created = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Same origin' }), 201);
      expect((await own.next()).data.postAdded._id).to.equal(created._id);
    });

    it('refuses a bad token: in the connection parameters (both protocols) and in the upgrade request (401)', async function () {
      const modern = track(modernClient(t, { connectionParams: { authorization: 'Bearer not-a-real-token' } }));
      const refused = modern.subscribe(POST_ADDED);
      await waitFor('the modern connection to close', () => modern.closes.length > 0);
      expect(modern.closes[0]).to.deep.equal({ code: 4403, reason: 'Invalid, revoked or expired bearer token' });
      expect(refused.error).to.not.equal(null);

      const old = track(legacyClient(t, { connectionParams: { token: 'not-a-real-token' } }));
      await waitFor('the legacy connection error', () => old.connectionErrors.length > 0);
      expect(old.connectionErrors[0]).to.deep.equal({ message: 'Invalid, revoked or expired bearer token' });
      await waitFor('the legacy connection to close', () => old.client.status === WebSocket.CLOSED);

      const upgrade = (headers: Record<string, string>, protocol = 'graphql-transport-ws') =>
        new Promise<number>((resolve, reject) => {
          const ws = new WebSocket(wsUrl(t), protocol, { headers });
          ws.on('unexpected-response', (_req, res) => {
            resolve(res.statusCode ?? 0);
            ws.terminate();
          });
          ws.on('open', () => {
            ws.close();
            resolve(101);
          });
          ws.on('error', reject);
        });
      expect(await upgrade({ authorization: 'Bearer not-a-real-token' })).to.equal(401);
      expect(await upgrade({}, 'chat')).to.equal(400);
      expect(await upgrade({})).to.equal(101);
    });

    it('runs the same checks over WebSocket as over HTTP, in both protocols, and answers queries there too', async function () {
      const modern = track(modernClient(t, { headers: testHeaders('editor') }));
      const old = track(legacyClient(t, { headers: testHeaders('editor') }));
      const code = (errors: Array<{ extensions: { code: string } }>) => errors.map((e) => e.extensions.code);
      const unknownField = 'subscription { postAdded { nope } }';
      const refusedModern = modern.subscribe(unknownField);
      await waitFor('the modern refusal', () => refusedModern.error !== null);
      expect(code(refusedModern.error as never)).to.deep.equal(['GRAPHQL_VALIDATION_FAILED']);
      expect(code((await old.subscribe(unknownField).next()).errors)).to.deep.equal(['GRAPHQL_VALIDATION_FAILED']);
      const costly = `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: posts(limit: 100) { total }`).join(' ')} }`;
      const costlyModern = modern.subscribe(costly);
      await waitFor('the modern refusal', () => costlyModern.error !== null);
      expect(code(costlyModern.error as never)).to.deep.equal(['GRAPHQL_COST_LIMIT']);
      expect(code((await old.subscribe(costly).next()).errors)).to.deep.equal(['GRAPHQL_COST_LIMIT']);
      const total = (await dataOf(await as(t, 'editor').get('/api/collections/posts'))).total;
      expect(await modern.subscribe('{ posts { total } }').next()).to.deep.equal({ data: { posts: { total } } });
      expect(await old.subscribe('{ posts { total } }').next()).to.deep.equal({ data: { posts: { total } } });
    });

    it('limits the subscriptions one connection holds (maxSubscriptionsPerConnection)', async function () {
      const ws = track(modernClient(t, { headers: testHeaders('editor') }));
      const held = ['postAdded', 'postUpdated', 'postDeleted'].map((f) => ws.subscribe(`subscription { ${f} { _id } }`));
      await awaitSubscribed(3);
      const fourth = ws.subscribe('subscription { postAdded { title } }');
      expect((await fourth.next()).errors.map((e: { extensions: { code: string } }) => e.extensions.code)).to.deep.equal([
        'GRAPHQL_SUBSCRIPTION_LIMIT',
      ]);
      // Another connection has its own budget.
      track(legacyClient(t, { headers: testHeaders('editor') })).subscribe(POST_ADDED);
      await awaitSubscribed(4);
      expect(held.every((inbox) => inbox.error === null)).to.equal(true);
    });

    it('media and user events reach holders of media:read and user:manage in their tenant only', async function () {
      const admin = track(modernClient(t, { headers: testHeaders('admin') }));
      const viewer = track(legacyClient(t, { headers: testHeaders('viewer') }));
      const users = admin.subscribe('subscription { userCreated { email role } }');
      const media = viewer.subscribe('subscription { mediaUploaded { _id filename url } }');
      const editorUsers = track(modernClient(t, { headers: testHeaders('editor') })).subscribe('subscription { userCreated { email } }');
      expect((await editorUsers.next()).errors[0].extensions.code).to.equal('FORBIDDEN');
      await awaitSubscribed(2);

      const usersService = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
      await usersService.create({ email: 'new-writer@example.com', password: PASSWORD, role: 'editor' });
      expect(await users.next()).to.deep.equal({ data: { userCreated: { email: 'new-writer@example.com', role: 'editor' } } });

      const events = t.kernel.container.resolve<EventBus>('events');
      await events.publish('on:media_upload', {
        tenantId: 'acme',
        media: { _id: 'm-acme', filename: 'acme.png', mimeType: 'image/png', size: 10, url: '/files/acme.png' },
      });
      await events.publish('on:media_upload', {
        tenantId: 'default',
        media: { _id: 'm-1', filename: 'cat.png', mimeType: 'image/png', size: 10, url: '/files/cat.png' },
      });
      expect(await media.next()).to.deep.equal({ data: { mediaUploaded: { _id: 'm-1', filename: 'cat.png', url: '/files/cat.png' } } });
    });

    it('closes a connection whose session has ended (checked again every recheckSeconds)', async function () {
      const cookie = await session();
      const ws = track(modernClient(t, { headers: { cookie } }));
      const inbox = ws.subscribe(POST_ADDED);
      await awaitSubscribed(1);
      expect((await t.request('/api/user/logout', { method: 'POST', headers: { cookie } })).status).to.equal(200);
      await waitFor('the connection to close', () => ws.closes.length > 0, 5000);
      expect(ws.closes[0]!.code).to.equal(4401);
      await waitFor('the subscription to end', () => subscriptions(t) === 0);
      expect(inbox.pending).to.equal(0);
    });
  });
}

describe('graphql subscriptions across two instances sharing Redis', function () {
  this.timeout(60000);
  let a: TestKernel | undefined;
  let b: TestKernel | undefined;
  let ws: ReturnType<typeof modernClient> | undefined;
  before(async function () {
    if (!REDIS_URL) {
      console.log('      CMS_TEST_REDIS_URL is not set: multi-instance subscription test skipped');
      this.skip();
    }
    const config = { redis: { url: REDIS_URL, prefix: uniqueName('gqlshared') } };
    const plugins = [fixturePlugin('test-identity')];
    // One database for both: MariaDB when available, else one SQLite file.
    a = await startTestKernel({ db: DB_VARIANTS[1]!.available ? 'mariadb' : 'sqlite', plugins, config });
    b = await startTestKernel(a.dbUrl ? { dbUrl: a.dbUrl, plugins, config } : { dataDir: a.dataDir, plugins, config });
  });
  after(async () => {
    await ws?.dispose();
    await b?.close();
    await a?.close();
  });

  it('an entry created on one instance reaches a subscriber on the other', async function () {
    await dataOf(await as(a!, 'admin').post('/api/collections', POSTS), 201);
    // B learns of the new collection through the event bus (Redis) and regenerates its schema.
    await waitFor(
      'instance B to serve the posts schema',
      async () =>
        (await b!.request('/api/graphql', { method: 'POST', identity: 'editor', json: { query: '{ posts { total } }' } })).status === 200,
    );
    ws = modernClient(b!, { headers: testHeaders('editor') });
    const inbox = ws.subscribe(POST_ADDED);
    await waitFor('the subscription on B', () => subscriptions(b!) === 1);
    const created = await dataOf(await as(a!, 'editor').post('/api/collections/posts', { title: 'Made on A' }), 201);
    expect(await inbox.next(5000)).to.deep.equal({
      data: { postAdded: { _id: created._id, title: 'Made on A', createdAt: created.createdAt, updatedAt: created.updatedAt } },
    });
  });
});
