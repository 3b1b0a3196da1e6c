import { expect } from 'chai';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/** Every field type, so the list's plain-row path (ListReader) is compared with the model path (GET one entry). */
const KINDS = {
  name: 'kinds',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'body', type: 'richtext' },
    { name: 'notes', type: 'markdown' },
    { name: 'price', type: 'number', indexed: true },
    { name: 'active', type: 'boolean' },
    { name: 'day', type: 'date' },
    { name: 'kind', type: 'select', options: ['a', 'b', 'c'] },
    { name: 'cover', type: 'media' },
    { name: 'parent', type: 'relation', collection: 'kinds' },
    { name: 'meta', type: 'json' },
  ],
};

type Entry = Record<string, any>;
const list = async (t: TestKernel, who: string, query: string): Promise<{ items: Entry[]; total: number }> =>
  dataOf(await as(t, who).get(`/api/collections/kinds?${query}`));

for (const variant of DB_VARIANTS) {
  describe(`content: the list read path (${variant.name}, list cache off)`, function () {
    this.timeout(60000);
    const byId = new Map<string, Entry>();
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        env: { CMS_CONTENT_LIST_CACHE: 'false' },
      },
      {
        variant,
        seed: async () => {
          await dataOf(await as(t, 'admin').post('/api/collections', KINDS), 201);
          const editor = as(t, 'editor');
          const first = await dataOf(await editor.post('/api/collections/kinds', { title: 'Root', status: 'published' }), 201);
          for (let i = 0; i < 12; i++) {
            const full = {
              title: `Entry ${i} “ünïcode” 'quoted'`,
              body: `<p>Body <strong>${i}</strong></p>`,
              notes: `# Notes ${i}\n\n*md*`,
              price: i % 3 === 0 ? i * 1.25 : -i,
              active: i % 2 === 0,
              day: `2026-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:30:00.000Z`,
              kind: ['a', 'b', 'c'][i % 3],
              cover: '00000000-0000-4000-8000-00000000000' + (i % 10),
              parent: first._id,
              meta: { i, nested: { list: [i, null, 'x'] }, flag: i % 2 === 0 },
              status: i % 4 === 3 ? 'draft' : 'published',
            };
            // Every third entry leaves every optional field unset (null), so nulls take both paths too.
            const body = i % 3 === 2 ? { title: `Sparse ${i}`, status: full.status } : full;
            await dataOf(await editor.post('/api/collections/kinds', body), 201);
          }
          const all = await list(t, 'editor', 'limit=100');
          for (const item of all.items) byId.set(item._id, await dataOf(await editor.get(`/api/collections/kinds/${item._id}`)));
          expect(byId.size).to.equal(13);
        },
      },
    );

    it('returns exactly what the model path returns, for every field type and for unset fields', async function () {
      const all = await list(t, 'editor', 'limit=100');
      expect(all.total).to.equal(13);
      for (const item of all.items) expect(item).to.deep.equal(byId.get(item._id));
      // Key order too (the bytes of a list are cached and tagged).
      for (const item of all.items) expect(Object.keys(item)).to.deep.equal(Object.keys(byId.get(item._id)!));
      const sparse = all.items.find((e) => e.title === 'Sparse 2')!;
      expect(sparse).to.include({ body: null, notes: null, price: null, active: null, day: null, kind: null, cover: null, meta: null });
      const full = all.items.find((e) => e.title.startsWith('Entry 0 '))!;
      expect(full).to.include({ price: 0, active: true, kind: 'a', day: '2026-01-10T00:30:00.000Z' });
      expect(full.meta).to.deep.equal({ i: 0, nested: { list: [0, null, 'x'] }, flag: true });
    });

    it('pages in the default order (newest first, the id breaking ties) with the total of the filter', async function () {
      const all = (await list(t, 'editor', 'limit=100')).items;
      const pages: Entry[] = [];
      for (let page = 1; page <= 3; page++) {
        const p = await list(t, 'editor', `limit=5&page=${page}`);
        expect(p.total).to.equal(13);
        pages.push(...p.items);
      }
      expect(pages.map((e) => e._id)).to.deep.equal(all.map((e) => e._id));
      const sorted = [...all].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a._id < b._id ? -1 : 1));
      expect(all.map((e) => e._id)).to.deep.equal(sorted.map((e) => e._id));
    });

    it('applies filters, search, sorts and visibility as before', async function () {
      const every = [...byId.values()];
      const ids = (items: Entry[]) => items.map((e) => e._id).sort();
      const check = async (who: string, query: string, expected: Entry[]) => {
        const got = await list(t, who, `limit=100&${query}`);
        expect(ids(got.items), query).to.deep.equal(ids(expected));
        expect(got.total, query).to.equal(expected.length);
        return got.items;
      };
      const filter = (f: unknown) => `filter=${encodeURIComponent(JSON.stringify(f))}`;
      await check(
        'editor',
        filter({ active: true }),
        every.filter((e) => e.active === true),
      );
      await check(
        'editor',
        filter({ active: { ne: null } }),
        every.filter((e) => e.active !== null),
      );
      await check(
        'editor',
        filter({ price: { gt: 0 } }),
        every.filter((e) => e.price !== null && e.price > 0),
      );
      await check(
        'editor',
        filter({ kind: { in: ['a', 'c'] } }),
        every.filter((e) => e.kind === 'a' || e.kind === 'c'),
      );
      await check(
        'editor',
        filter({ day: { lt: '2026-04-01' } }),
        every.filter((e) => e.day !== null && e.day < '2026-04-01'),
      );
      await check(
        'editor',
        filter({ title: { contains: "'quoted'" } }),
        every.filter((e) => e.title.includes("'quoted'")),
      );
      await check(
        'editor',
        'search=SPARSE',
        every.filter((e) => e.title.startsWith('Sparse')),
      );
      await check(
        'editor',
        'status=draft',
        every.filter((e) => e.status === 'draft'),
      );
      await check(
        'viewer',
        '',
        every.filter((e) => e.status === 'published'),
      );
      await check(
        'viewer',
        filter({ active: false }),
        every.filter((e) => e.status === 'published' && e.active === false),
      );
      const byPrice = await check(
        'editor',
        `sort=-price&${filter({ price: { ne: null } })}`,
        every.filter((e) => e.price !== null),
      );
      expect(byPrice.map((e) => e.price)).to.deep.equal(byPrice.map((e) => e.price).sort((a, b) => b - a));
      const byTitle = (await list(t, 'editor', 'limit=100&sort=title:asc')).items.map((e) => e.title);
      expect(byTitle).to.have.length(13);
    });

    it('refuses a NUL in a search term with 400, answers 304 through the ETag middleware, and sees writes at once', async function () {
      const bad = await as(t, 'editor').get(`/api/collections/kinds?search=${encodeURIComponent('a\u0000b')}`);
      expect(bad.status).to.equal(400);
      const first = await as(t, 'editor').get('/api/collections/kinds?limit=3');
      expect(first.headers.get('x-cache')).to.equal('MISS');
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[0-9a-f]+"$/);
      const again = await t.request('/api/collections/kinds?limit=3', { identity: 'editor', headers: { 'if-none-match': etag } });
      expect(again.status).to.equal(304);
      // The kept statements read the current rows: a write shows in the next list (and changes its tag).
      const made = await dataOf(await as(t, 'editor').post('/api/collections/kinds', { title: 'Newest', status: 'published' }), 201);
      const after = await t.request('/api/collections/kinds?limit=3', { identity: 'editor', headers: { 'if-none-match': etag } });
      expect(after.status).to.equal(200);
      const data = (await after.json()).data;
      expect(data.items[0]._id).to.equal(made._id);
      expect(data.total).to.equal(14);
      await dataOf(await as(t, 'editor').delete(`/api/collections/kinds/${made._id}`));
      expect((await list(t, 'editor', 'limit=3')).total).to.equal(13);
    });
  });
}
