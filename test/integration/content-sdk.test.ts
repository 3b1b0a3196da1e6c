import { expect } from 'chai';
import { AppError } from '../../kernel/errors.js';
import type { BusEvent, EventBus } from '../../kernel/events.js';
import { GUEST, type Identity } from '../../kernel/http/identity.js';
import { createLocalClient, systemIdentity } from '../../plugins/content/local-client.js';
import { rejectionOf } from '../helpers/assertions.js';
import { as, dataOf, POSTS } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

const editor: Identity = {
  kind: 'user',
  userId: null,
  role: 'editor',
  permissions: ['content:read', 'content:write'],
  tenantId: 'default',
};
const viewer: Identity = { kind: 'user', userId: null, role: 'viewer', permissions: ['content:read'], tenantId: 'default' };

describe('content: the in-process SDK (createLocalClient)', function () {
  this.timeout(60000);
  const t = useTestKernel({ plugins: [fixturePlugin('test-identity')] });

  it('does what REST does: schema, entries, cache invalidation and events', async () => {
    const system = createLocalClient(t.kernel);
    expect(system.identity).to.deep.equal(systemIdentity());
    await system.collections.create(POSTS as never);
    expect((await system.collections.list()).map((c) => c.name)).to.include('posts');
    // A REST list is cached before the SDK writes; the write must show in the next REST list.
    await as(t, 'editor').get('/api/collections/posts');
    const events: BusEvent[] = [];
    const off = t.kernel.container.resolve<EventBus>('events').subscribe('on:create', (e) => {
      events.push(e);
    });
    const posts = createLocalClient(t.kernel, editor).entries('posts');
    const made = await posts.create({ title: 'From the SDK', views: 3 });
    off();
    expect(made).to.include({ title: 'From the SDK', views: 3, status: 'draft', slug: 'from-the-sdk' });
    expect(events.map((e) => (e.payload as { entry: { _id: string } }).entry._id)).to.deep.equal([made._id]);
    const rest = await dataOf(await as(t, 'editor').get('/api/collections/posts'));
    expect(rest.items.map((e: { _id: string }) => e._id)).to.include(made._id);
    const listed = await posts.list({ filter: { views: { gte: 3 } }, sort: '-views' });
    expect(listed.items.map((e) => e._id)).to.deep.equal([made._id]);
    expect((await posts.setStatus(made._id, 'published')).status).to.equal('published');
    expect((await posts.revisions(made._id)).map((r) => r.action)).to.deep.equal(['status', 'create']);
  });

  it('applies the same validation and permissions', async () => {
    const invalid = await rejectionOf(createLocalClient(t.kernel, editor).entries('posts').create({ views: 'many' }));
    expect(invalid).to.be.instanceOf(AppError);
    expect((invalid as AppError).code).to.equal('VALIDATION_ERROR');
    expect(((invalid as AppError).extra.issues as Array<{ path: string }>).map((i) => i.path)).to.include.members([
      'body.title',
      'body.views',
    ]);
    const denied = await rejectionOf(createLocalClient(t.kernel, viewer).entries('posts').create({ title: 'No' }));
    expect((denied as AppError).code).to.equal('FORBIDDEN');
    expect(((await rejectionOf(createLocalClient(t.kernel, GUEST).entries('posts').list())) as AppError).code).to.equal(
      'AUTHENTICATION_REQUIRED',
    );
    expect(
      ((await rejectionOf(createLocalClient(t.kernel, editor).collections.create({ name: 'x', fields: [] }))) as AppError).code,
    ).to.equal('FORBIDDEN');
    const readerList = await createLocalClient(t.kernel, viewer).entries('posts').list();
    expect(readerList.items.every((e) => e.status === 'published')).to.equal(true);
    expect(((await rejectionOf(createLocalClient(t.kernel, editor).entries('nothing').list())) as AppError).code).to.equal(
      'COLLECTION_NOT_FOUND',
    );
    const otherTenant = await createLocalClient(t.kernel, { ...editor, tenantId: 'acme' })
      .entries('posts')
      .list();
    expect(otherTenant.total).to.equal(0);
  });
});
