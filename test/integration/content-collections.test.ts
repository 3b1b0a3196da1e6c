import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, dataOf, POSTS } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`content: collection schemas (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const admin = () => as(t, 'admin');
    const columns = async (table: string) => Object.keys(await t.kernel.sequelize.getQueryInterface().describeTable(table));

    it('creates a collection with a real table recorded in the migration ledger; lists it', async function () {
      const created = await dataOf(await admin().post('/api/collections', POSTS), 201);
      expect(created).to.include({ name: 'posts', label: 'Posts', singular: 'post', version: 1 });
      expect(created.fields.map((f: { name: string }) => f.name)).to.deep.equal(POSTS.fields.map((f) => f.name));
      expect(await columns('cms_c_posts')).to.include.members([
        'id',
        'tenant_id',
        'slug',
        'status',
        'sync_id',
        'f_title',
        'f_views',
        'f_meta',
      ]);
      const ledger = await t.kernel.sequelize.query<{ name: string }>("SELECT name FROM cms_migrations WHERE name LIKE 'content/posts-%'", {
        type: QueryTypes.SELECT,
      });
      expect(ledger.map((r) => r.name)).to.have.length(1);
      expect(ledger[0]!.name).to.match(/^content\/posts-[0-9a-f-]{36}\/v1$/);
      const list = await dataOf(await as(t, 'viewer').get('/api/collections'));
      expect(list.map((c: { name: string }) => c.name)).to.include('posts');
      expect(await dataOf(await as(t, 'viewer').get('/api/collections/posts/schema'))).to.include({ name: 'posts', singular: 'post' });
    });

    it('refuses bad definitions with the field named, duplicates with 409, and non-managers with 403', async function () {
      const bad = await admin().post('/api/collections', {
        name: 'things',
        fields: [
          { name: 'a', type: 'colour' },
          { name: 'b', type: 'select' },
          { name: 'status', type: 'text' },
          { name: 'c', type: 'json', unique: true },
          { name: 'd', type: 'text', widget: 'toggle' },
          { name: 'e', type: 'text', widget: 'crayon' },
        ],
      });
      expect(bad.status).to.equal(400);
      const paths = (await bad.json()).issues.map((i: { path: string }) => i.path);
      expect(paths).to.include.members([
        'body.fields.0.type',
        'body.fields.1.options',
        'body.fields.2.name',
        'body.fields.3.indexed',
        'body.fields.4.widget',
        'body.fields.5.widget',
      ]);
      // A widget that fits the type is kept with the field (the admin UI's entry editor follows it).
      const withWidget = await dataOf(
        await admin().post('/api/collections', { name: 'memos', fields: [{ name: 'note', type: 'text', widget: 'textarea' }] }),
        201,
      );
      expect(withWidget.fields[0]).to.include({ name: 'note', widget: 'textarea' });
      expect((await admin().post('/api/collections', { name: 'Bad Name', fields: [] })).status).to.equal(400);
      expect(
        (
          await admin().post('/api/collections', {
            name: 'twice',
            fields: [
              { name: 'x', type: 'text' },
              { name: 'X', type: 'number' },
            ],
          })
        ).status,
      ).to.equal(400);
      const dup = await admin().post('/api/collections', POSTS);
      expect(dup.status).to.equal(409);
      expect((await dup.json()).error).to.equal('COLLECTION_EXISTS');
      // Names and singulars become GraphQL fields: no two collections may share one.
      const clash = await admin().post('/api/collections', { name: 'post', fields: [] });
      expect(clash.status).to.equal(409);
      expect((await admin().post('/api/collections', { name: 'articles', singular: 'posts', fields: [] })).status).to.equal(409);
      expect((await admin().post('/api/collections', { name: 'news', singular: 'news', fields: [] })).status).to.equal(400);
      expect(await dataOf(await admin().post('/api/collections', { name: 'data', fields: [] }), 201)).to.include({ singular: 'data_item' });
      const editor = await as(t, 'editor').post('/api/collections', { name: 'notes', fields: [] });
      expect(editor.status).to.equal(403);
      expect((await as(t, 'viewer').get('/api/collections/nothing-here/schema')).status).to.equal(404);
      expect((await (await as(t, 'viewer').get('/api/collections/nothing_here')).json()).error).to.equal('COLLECTION_NOT_FOUND');
    });

    it('alters the table: new fields appear, removed ones go with their data, types cannot change', async function () {
      const entry = await dataOf(await admin().post('/api/collections/posts', { title: 'Before the change', category: 'news' }), 201);
      const fields = [...POSTS.fields.filter((f) => f.name !== 'meta'), { name: 'subtitle', type: 'text', indexed: true }];
      const changed = await dataOf(await admin().patch('/api/collections/posts/schema', { fields, label: 'Blog posts' }));
      expect(changed).to.include({ version: 2, label: 'Blog posts' });
      const cols = await columns('cms_c_posts');
      expect(cols).to.include('f_subtitle');
      expect(cols).to.not.include('f_meta');
      const read = await dataOf(await admin().get(`/api/collections/posts/${entry._id}`));
      expect(read).to.include({ title: 'Before the change', subtitle: null });
      expect(read).to.not.have.property('meta');
      // A change the values cannot convert (field-conversion.ts; boolean -> text would convert).
      const retyped = await admin().patch('/api/collections/posts/schema', {
        fields: fields.map((f) => (f.name === 'featured' ? { ...f, type: 'date' } : f)),
      });
      expect(retyped.status).to.equal(400);
      expect((await retyped.json()).issues[0].path).to.match(/^body\.fields\.\d+\.type$/);
      const ledger = await t.kernel.sequelize.query<{ name: string }>(
        "SELECT name FROM cms_migrations WHERE name LIKE 'content/posts-%' ORDER BY name",
        { type: QueryTypes.SELECT },
      );
      expect(ledger.map((r) => r.name.split('/').pop())).to.deep.equal(['v1', 'v2']);
    });

    it('making a field unique while entries share a value answers 409 and leaves the schema as it was', async function () {
      await dataOf(await admin().post('/api/collections/posts', { title: 'Same', subtitle: 'twin' }), 201);
      await dataOf(await admin().post('/api/collections/posts', { title: 'Same again', subtitle: 'twin' }), 201);
      const before = await dataOf(await admin().get('/api/collections/posts/schema'));
      const fields = before.fields.map((f: { name: string }) => (f.name === 'subtitle' ? { ...f, unique: true } : f));
      const res = await admin().patch('/api/collections/posts/schema', { fields });
      expect(res.status).to.equal(409);
      expect((await res.json()).error).to.equal('CONFLICT');
      expect(await dataOf(await admin().get('/api/collections/posts/schema'))).to.deep.equal(before);
      // The schema still works: a new field can still be added.
      const added = await dataOf(
        await admin().patch('/api/collections/posts/schema', { fields: [...before.fields, { name: 'rating', type: 'number' }] }),
      );
      expect(added.version).to.equal(before.version + 1);
    });

    it('relations name an existing collection; a collection others relate to cannot be dropped', async function () {
      const unknown = await admin().post('/api/collections', {
        name: 'comments',
        fields: [{ name: 'post', type: 'relation', collection: 'nowhere' }],
      });
      expect(unknown.status).to.equal(400);
      await dataOf(
        await admin().post('/api/collections', {
          name: 'comments',
          fields: [
            { name: 'text', type: 'text', required: true },
            { name: 'post', type: 'relation', collection: 'posts' },
          ],
        }),
        201,
      );
      const blocked = await admin().delete('/api/collections/posts/schema');
      expect(blocked.status).to.equal(409);
      expect(await dataOf(await admin().delete('/api/collections/comments/schema'))).to.deep.equal({ deleted: true });
      expect((await admin().get('/api/collections/comments')).status).to.equal(404);
      const tables = await t.kernel.sequelize.getQueryInterface().showAllTables();
      expect(tables).to.not.include('cms_c_comments');
    });

    it('installs the commerce preset once: products and orders', async function () {
      const first = await dataOf(await admin().post('/api/collections/presets/commerce'), 201);
      expect(first.created).to.deep.equal(['products', 'orders']);
      const again = await dataOf(await admin().post('/api/collections/presets/commerce'));
      expect(again.created).to.deep.equal([]);
      const order = await dataOf(
        await admin().post('/api/collections/orders', {
          orderNumber: 'A-1',
          total: 12.5,
          placedAt: '2026-11-01T10:00:00Z',
          items: [{ sku: 'X', qty: 2 }],
        }),
        201,
      );
      expect(order).to.include({
        orderNumber: 'A-1',
        total: 12.5,
        currency: 'EUR',
        orderStatus: 'pending',
        placedAt: '2026-11-01T10:00:00.000Z',
      });
      expect(order.items).to.deep.equal([{ sku: 'X', qty: 2 }]);
    });
  });
}
