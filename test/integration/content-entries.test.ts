import { expect } from 'chai';
import type { BusEvent, EventBus } from '../../kernel/events.js';
import { as, dataOf, createPosts } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`content: entries (${variant.name})`, function () {
    this.timeout(60000);
    const events: BusEvent[] = [];
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createPosts(t);
        t.kernel.container.resolve<EventBus>('events').subscribe('*', (e) => {
          if (e.name.startsWith('on:')) events.push(e);
        });
      },
    });
    const editor = () => as(t, 'editor');

    it('creates, reads, updates and deletes an entry, with defaults, a slug and timestamps', async function () {
      const created = await dataOf(
        await editor().post('/api/collections/posts', {
          title: 'Hello, Wörld!',
          body: '<p>Hi</p>',
          publishedOn: '2026-11-20',
          meta: { a: [1, 2] },
        }),
        201,
      );
      expect(created).to.include({
        title: 'Hello, Wörld!',
        slug: 'hello-world',
        status: 'draft',
        views: 0,
        featured: null,
        publishedOn: '2026-11-20T00:00:00.000Z',
        version: 1,
      });
      expect(created.meta).to.deep.equal({ a: [1, 2] });
      expect(created._id).to.match(/^[0-9a-f-]{36}$/);
      expect(created.syncId)
        .to.match(/^[0-9a-f-]{36}$/)
        .and.not.equal(created._id);
      expect(Date.parse(created.createdAt)).to.be.closeTo(Date.now(), 60000);
      expect(await dataOf(await editor().get(`/api/collections/posts/${created._id}`))).to.deep.equal(created);
      const updated = await dataOf(await editor().patch(`/api/collections/posts/${created._id}`, { ...created, views: 5, featured: true }));
      expect(updated).to.include({ views: 5, featured: true, title: 'Hello, Wörld!', version: 2, slug: 'hello-world' });
      expect(Date.parse(updated.updatedAt)).to.be.at.least(Date.parse(created.updatedAt));
      expect(await dataOf(await editor().delete(`/api/collections/posts/${created._id}`))).to.deep.equal({ deleted: true });
      const gone = await editor().get(`/api/collections/posts/${created._id}`);
      expect(gone.status).to.equal(404);
      expect((await gone.json()).error).to.equal('ENTRY_NOT_FOUND');
      expect(events.map((e) => e.name)).to.include.members(['on:create', 'on:update', 'on:delete']);
      const create = events.find((e) => e.name === 'on:create')!.payload as Record<string, any>;
      expect(create).to.include({ tenantId: 'default', collection: 'posts' });
      expect(create.entry._id).to.equal(created._id);
    });

    it('refuses invalid entries naming every field, and unknown fields', async function () {
      const res = await editor().post('/api/collections/posts', {
        body: 42,
        views: 'many',
        category: 'gossip',
        publishedOn: 'yesterday',
        colour: 'red',
      });
      expect(res.status).to.equal(400);
      const body = await res.json();
      expect(body.error).to.equal('VALIDATION_ERROR');
      const paths = body.issues.map((i: { path: string }) => i.path);
      expect(paths).to.include.members(['body.title', 'body.body', 'body.views', 'body.category', 'body.publishedOn', 'body.colour']);
      const nulled = await dataOf(await editor().post('/api/collections/posts', { title: 'Keep me' }), 201);
      const patch = await editor().patch(`/api/collections/posts/${nulled._id}`, { title: null });
      expect(patch.status).to.equal(400);
      expect((await patch.json()).issues[0].path).to.equal('body.title');
      expect((await editor().post('/api/collections/posts', { title: 'x'.repeat(256) })).status).to.equal(400);
      expect((await as(t, 'viewer').post('/api/collections/posts', { title: 'Viewer' })).status).to.equal(403);
    });

    it('keeps slugs unique per collection: a suffix for repeats, also when created concurrently', async function () {
      const a = await dataOf(await editor().post('/api/collections/posts', { title: 'Same Title' }), 201);
      const b = await dataOf(await editor().post('/api/collections/posts', { title: 'Same Title' }), 201);
      const c = await dataOf(await editor().post('/api/collections/posts', { title: 'Other', slug: 'Same Title' }), 201);
      expect([a.slug, b.slug, c.slug]).to.deep.equal(['same-title', 'same-title-2', 'same-title-3']);
      // The base freed again is handed out again (it is looked up, not assumed taken), then the next number.
      await dataOf(await editor().delete(`/api/collections/posts/${a._id}`));
      const again = await dataOf(await editor().post('/api/collections/posts', { title: 'Same Title' }), 201);
      const next = await dataOf(await editor().post('/api/collections/posts', { title: 'Same Title' }), 201);
      expect([again.slug, next.slug]).to.deep.equal(['same-title', 'same-title-4']);
      const many = await Promise.all(Array.from({ length: 8 }, () => editor().post('/api/collections/posts', { title: 'Race' })));
      const slugs = await Promise.all(many.map(async (r) => (await dataOf(r, 201)).slug));
      expect(new Set(slugs).size).to.equal(8);
      expect(slugs).to.include('race');
    });

    it('status endpoint, visibility: callers without content:write see published entries only', async function () {
      const draft = await dataOf(await editor().post('/api/collections/posts', { title: 'Secret draft' }), 201);
      const live = await dataOf(await editor().post('/api/collections/posts', { title: 'Live post', status: 'published' }), 201);
      expect((await as(t, 'viewer').get(`/api/collections/posts/${draft._id}`)).status).to.equal(404);
      expect((await dataOf(await as(t, 'viewer').get(`/api/collections/posts/${live._id}`))).title).to.equal('Live post');
      const viewerList = await dataOf(await as(t, 'viewer').get('/api/collections/posts?limit=100'));
      expect(viewerList.items.every((e: { status: string }) => e.status === 'published')).to.equal(true);
      expect((await dataOf(await as(t, 'viewer').get('/api/collections/posts?status=draft'))).items).to.deep.equal([]);
      const published = await dataOf(await editor().patch(`/api/collections/posts/${draft._id}/status`, { status: 'published' }));
      expect(published.status).to.equal('published');
      expect((await as(t, 'viewer').get(`/api/collections/posts/${draft._id}`)).status).to.equal(200);
      const change = events.find((e) => e.name === 'on:status_change' && (e.payload as any).entry._id === draft._id);
      expect((change!.payload as any).previousStatus).to.equal('draft');
      expect((await editor().patch(`/api/collections/posts/${draft._id}/status`, { status: 'deleted' })).status).to.equal(400);
    });

    it('keeps a revision of every write, newest first', async function () {
      const e = await dataOf(await editor().post('/api/collections/posts', { title: 'Rev 1' }), 201);
      await dataOf(await editor().patch(`/api/collections/posts/${e._id}`, { title: 'Rev 2' }));
      await dataOf(await editor().patch(`/api/collections/posts/${e._id}/status`, { status: 'archived' }));
      const revisions = await dataOf(await editor().get(`/api/collections/posts/${e._id}/revisions`));
      expect(revisions.map((r: any) => [r.version, r.action, r.data.title, r.data.status])).to.deep.equal([
        [3, 'status', 'Rev 2', 'archived'],
        [2, 'update', 'Rev 2', 'draft'],
        [1, 'create', 'Rev 1', 'draft'],
      ]);
      expect((await as(t, 'viewer').get(`/api/collections/posts/${e._id}/revisions`)).status).to.equal(403);
    });

    it('lists with pagination, sort, search, status and filters, in the database', async function () {
      await dataOf(
        await as(t, 'admin').post('/api/collections', {
          name: 'books',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'pages', type: 'number', indexed: true },
            { name: 'genre', type: 'select', options: ['sf', 'crime'] },
          ],
        }),
        201,
      );
      const books = Array.from({ length: 30 }, (_, i) => ({
        title: `Book ${String(i + 1).padStart(2, '0')}${i % 10 === 0 ? ' Dragon' : ''}`,
        pages: 100 + i * 10,
        genre: i % 2 ? 'sf' : 'crime',
        status: i < 20 ? 'published' : 'draft',
      }));
      await dataOf(await editor().post('/api/collections/books/batch', { entries: books }), 201);
      const page2 = await dataOf(await editor().get('/api/collections/books?sort=-pages&limit=10&page=2'));
      expect(page2).to.include({ total: 30, page: 2, limit: 10 });
      expect(page2.items.map((b: any) => b.pages)).to.deep.equal([290, 280, 270, 260, 250, 240, 230, 220, 210, 200]);
      expect(
        (await dataOf(await editor().get('/api/collections/books?search=dragon&sort=title'))).items.map((b: any) => b.title),
      ).to.deep.equal(['Book 01 Dragon', 'Book 11 Dragon', 'Book 21 Dragon']);
      expect((await dataOf(await editor().get('/api/collections/books?status=draft'))).total).to.equal(10);
      const filter = encodeURIComponent(JSON.stringify({ genre: 'sf', pages: { gte: 300 } }));
      const filtered = await dataOf(await editor().get(`/api/collections/books?filter=${filter}&sort=pages:asc`));
      expect(filtered.items.map((b: any) => b.pages)).to.deep.equal([310, 330, 350, 370, 390]);
      expect((await dataOf(await editor().get('/api/collections/books?limit=1000'))).limit).to.equal(100);
      expect((await dataOf(await editor().get('/api/collections/books'))).limit).to.equal(25);
      for (const bad of [
        'sort=colour',
        `filter=${encodeURIComponent('{"pages":{"near":1}}')}`,
        'filter=not-json',
        `filter=${encodeURIComponent('{"nope":1}')}`,
      ]) {
        const res = await editor().get(`/api/collections/books?${bad}`);
        expect(res.status, bad).to.equal(400);
      }
    });

    it('batch create is all or nothing and names the failing entry; batch delete removes by id', async function () {
      const before = (await dataOf(await editor().get('/api/collections/books?limit=1'))).total;
      const res = await editor().post('/api/collections/books/batch', {
        entries: [{ title: 'Fine' }, { title: 'Fine too' }, { pages: 'many' }],
      });
      expect(res.status).to.equal(400);
      expect((await res.json()).issues.map((i: any) => i.path)).to.include.members(['body.entries.2.title', 'body.entries.2.pages']);
      expect((await dataOf(await editor().get('/api/collections/books?limit=1'))).total).to.equal(before);
      const made = await dataOf(
        await editor().post('/api/collections/books/batch', { entries: [{ title: 'Gone 1' }, { title: 'Gone 2' }] }),
        201,
      );
      const ids = made.items.map((b: any) => b._id);
      expect(
        await dataOf(await editor().post('/api/collections/books/batch-delete', { ids: [...ids, '00000000-0000-4000-8000-000000000000'] })),
      ).to.deep.equal({ deleted: 2 });
      expect((await dataOf(await editor().get('/api/collections/books?limit=1'))).total).to.equal(before);
    });

    it('unique fields answer 409 naming the field; relations must point at an entry of the tenant', async function () {
      await dataOf(
        await as(t, 'admin').post('/api/collections', {
          name: 'authors',
          fields: [
            { name: 'name', type: 'text', required: true },
            { name: 'email', type: 'text', unique: true },
          ],
        }),
        201,
      );
      await dataOf(
        await as(t, 'admin').post('/api/collections', {
          name: 'quotes',
          fields: [
            { name: 'text', type: 'text' },
            { name: 'author', type: 'relation', collection: 'authors' },
          ],
        }),
        201,
      );
      const ada = await dataOf(await editor().post('/api/collections/authors', { name: 'Ada', email: 'ada@example.com' }), 201);
      const dup = await editor().post('/api/collections/authors', { name: 'Ada 2', email: 'ada@example.com' });
      expect(dup.status).to.equal(409);
      expect((await dup.json()).issues[0].path).to.equal('body.email');
      expect((await dataOf(await editor().post('/api/collections/quotes', { text: 'Hi', author: ada._id }), 201)).author).to.equal(ada._id);
      const dangling = await editor().post('/api/collections/quotes', { text: 'Who?', author: '00000000-0000-4000-8000-000000000000' });
      expect(dangling.status).to.equal(400);
      expect((await dangling.json()).issues[0].path).to.equal('body.author');
      const otherTenant = await as(t, 'editor', 'acme').post('/api/collections/quotes', { text: 'Cross-tenant', author: ada._id });
      expect(otherTenant.status, 'an entry of another tenant is not a valid target').to.equal(400);
    });

    it('scopes entries by tenant: another tenant neither lists, reads, changes nor deletes them', async function () {
      const mine = await dataOf(await editor().post('/api/collections/posts', { title: 'Default tenant only', status: 'published' }), 201);
      const acme = as(t, 'editor', 'acme');
      const theirs = await dataOf(await acme.post('/api/collections/posts', { title: 'Default tenant only' }), 201);
      expect(theirs.slug, 'slugs are unique per tenant').to.equal('default-tenant-only');
      const list = await dataOf(await acme.get('/api/collections/posts?limit=100'));
      expect(list.items.map((e: any) => e._id)).to.deep.equal([theirs._id]);
      expect((await acme.get(`/api/collections/posts/${mine._id}`)).status).to.equal(404);
      expect((await acme.patch(`/api/collections/posts/${mine._id}`, { title: 'Hijacked' })).status).to.equal(404);
      expect((await acme.delete(`/api/collections/posts/${mine._id}`)).status).to.equal(404);
      expect((await dataOf(await editor().get(`/api/collections/posts/${mine._id}`))).title).to.equal('Default tenant only');
    });
  });
}
