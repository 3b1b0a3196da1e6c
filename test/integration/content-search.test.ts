import { expect } from 'chai';
import { as, createCollections, dataOf, graphqlData } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 40 item 3: full-text search (docs/features/search.md) on SQLite FTS5 and MariaDB FULLTEXT: words as prefixes,
// "phrases", the most relevant first, `_highlight`, localized fields in the asked locale, the index kept in step with
// writes (and rolled back with them), and GET /api/search across collections within the caller's rights and tenant.
const ARTICLES = {
  name: 'articles',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'body', type: 'richtext' },
    { name: 'notes', type: 'markdown' },
    { name: 'code', type: 'text', unique: true },
    { name: 'secret', type: 'text' },
  ],
  search: { fields: ['title', 'body', 'notes'] },
};
const PLACES = {
  name: 'places',
  fields: [
    { name: 'name', type: 'text', required: true, localized: true },
    { name: 'about', type: 'text', localized: true },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: full-text search (${variant.name})`, function () {
    this.timeout(90000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const ids: Record<string, string> = {};

    const titles = async (query: string, who = 'editor', tenant?: string) =>
      (await dataOf(await as(t, who, tenant).get(`/api/collections/articles?${query}`))).items.map((e: Entry) => e.title);
    const create = async (body: Entry, collection = 'articles', tenant?: string) =>
      (await dataOf(await as(t, 'editor', tenant).post(`/api/collections/${collection}`, body), 201)) as Entry;

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-CH', fallback: 'de' }), 201);
      await createCollections(t, ARTICLES, PLACES);
      const rows: Entry[] = [
        {
          code: 'a',
          title: 'Gardening for beginners',
          body: '<p>Tomatoes <strong>grow</strong> in summer &amp; sun.</p>',
          status: 'published',
        },
        { code: 'b', title: 'Tomato tomato tomato', body: '<p>All about the tomato.</p>', notes: '# tomato notes', status: 'published' },
        { code: 'c', title: 'Red apple pie', body: '<p>An apple that is red and sweet.</p>', status: 'published' },
        { code: 'd', title: 'Apple red sauce', notes: 'Cook the red apple slowly', status: 'draft' },
        { code: 'e', title: 'Hidden words', secret: 'tomato', status: 'published' },
      ];
      for (const r of rows) ids[r.code] = (await create(r))._id;
    });

    it('matches words as prefixes, ranks the most relevant first, and finds phrases', async function () {
      expect(await titles('search=tomato')).to.deep.equal(['Tomato tomato tomato', 'Gardening for beginners']);
      expect(await titles('search=tomat')).to.have.members(['Tomato tomato tomato', 'Gardening for beginners']);
      expect(await titles('search=tomat&sort=title')).to.deep.equal(['Gardening for beginners', 'Tomato tomato tomato']);
      expect(await titles('search=apple%20red&sort=title')).to.deep.equal(['Apple red sauce', 'Red apple pie']);
      expect(await titles(`search=${encodeURIComponent('"red apple"')}&sort=title`)).to.deep.equal(['Apple red sauce', 'Red apple pie']);
      expect(await titles(`search=${encodeURIComponent('"apple red"')}`)).to.deep.equal(['Apple red sauce']);
      // Rich text is searched as its text (not its tags), only the collection's search fields are searched.
      expect(await titles('search=strong')).to.deep.equal([]);
      expect(await titles('search=summer')).to.deep.equal(['Gardening for beginners']);
      expect(await titles('search=hidden')).to.deep.equal(['Hidden words']);
      expect((await dataOf(await as(t, 'editor').get('/api/collections/articles?search=tomato'))).total).to.equal(2);
      // Readers of published entries only.
      expect(await titles('search=sauce', 'viewer')).to.deep.equal([]);
      expect(await titles('search=sauce')).to.deep.equal(['Apple red sauce']);
    });

    it('answers _highlight: the matches marked, the rest HTML-escaped, only the searched fields', async function () {
      const [item] = (await dataOf(await as(t, 'editor').get('/api/collections/articles?search=grow'))).items as Entry[];
      expect(item._highlight).to.deep.equal({ body: 'Tomatoes <mark>grow</mark> in summer &amp; sun.' });
      const found = (await dataOf(await as(t, 'editor').get(`/api/collections/articles?search=${encodeURIComponent('"red apple"')}`)))
        .items;
      const pie = found.find((e: Entry) => e.title === 'Red apple pie');
      expect(pie._highlight.title).to.equal('<mark>Red apple</mark> pie');
    });

    it('keeps the index in step with updates and deletes, and rolls it back with a failed write', async function () {
      await dataOf(await as(t, 'editor').patch(`/api/collections/articles/${ids.c}`, { title: 'Blueberry pie' }));
      expect(await titles('search=blueberry')).to.deep.equal(['Blueberry pie']);
      expect(await titles('search=pie&sort=title')).to.deep.equal(['Blueberry pie']);
      await dataOf(await as(t, 'editor').delete(`/api/collections/articles/${ids.d}`));
      expect(await titles('search=sauce')).to.deep.equal([]);
      // A search with no other condition counts the index's documents (list-reader.ts): the deleted entry's are gone.
      const pies = await dataOf(await as(t, 'editor').get('/api/collections/articles?search=pie'));
      expect(pies.total).to.equal(pies.items.length);
      // A batch whose second entry breaks the unique code: nothing written, nothing indexed.
      const failed = await as(t, 'editor').post('/api/collections/articles/batch', {
        entries: [
          { title: 'Quokka island', code: 'q' },
          { title: 'Another', code: 'a' },
        ],
      });
      expect(failed.status).to.be.oneOf([400, 409]);
      expect(await titles('search=quokka')).to.deep.equal([]);
      const made = await create({ title: 'Quokka island', code: 'q' });
      expect(await titles('search=quokka')).to.deep.equal(['Quokka island']);
      await dataOf(await as(t, 'editor').patch(`/api/collections/articles/${made._id}/status`, { status: 'published' }));
      expect(await titles('search=quokka', 'viewer')).to.deep.equal(['Quokka island']);
    });

    it('searches localized fields in the asked locale, with its fallbacks', async function () {
      const made = await create({ name: 'Lake house', about: 'quiet', slug: 'place-one', status: 'published' }, 'places');
      await dataOf(await as(t, 'editor').patch(`/api/collections/places/${made._id}?locale=de`, { name: 'Seehaus', status: 'published' }));
      const names = async (query: string, who = 'viewer') =>
        (await dataOf(await as(t, who).get(`/api/collections/places?${query}`))).items.map((e: Entry) => e.name);
      expect(await names('search=lake')).to.deep.equal(['Lake house']);
      expect(await names('locale=de&search=lake')).to.deep.equal([]);
      expect(await names('locale=de&search=seeh')).to.deep.equal(['Seehaus']);
      // An entry without a version in de-CH is a draft there: its editors find it through de.
      expect(await names('locale=de-CH&search=seehaus', 'editor')).to.deep.equal(['Seehaus']);
      // `about` has no German value: the default's is searched there.
      expect(await names('locale=de&search=quiet')).to.deep.equal(['Seehaus']);
    });

    it('GET /api/search: across collections, grouped, within the caller’s rights and tenant', async function () {
      await create({ name: 'Tomato farm', status: 'published' }, 'places');
      await create({ title: 'Tomato secrets of another tenant', code: 'x', status: 'published' }, 'articles', 'other');
      const found = await dataOf(await as(t, 'editor').get('/api/search?q=tomato'));
      expect(found.results.map((r: Entry) => [r.collection, r.total])).to.deep.equal([
        ['articles', 2],
        ['places', 1],
      ]);
      expect(found.results[0].items[0].title).to.equal('Tomato tomato tomato');
      expect(found.results[0].items[0]._highlight.title).to.equal('<mark>Tomato</mark> <mark>tomato</mark> <mark>tomato</mark>');
      const only = await dataOf(await as(t, 'editor').get('/api/search?q=tomato&collections=places&limit=1'));
      expect(only.results.map((r: Entry) => r.collection)).to.deep.equal(['places']);
      // Another tenant's admin finds its own entries only.
      const other = await dataOf(await as(t, 'admin', 'other').get('/api/search?q=tomato'));
      expect(other.results.map((r: Entry) => [r.collection, r.total])).to.deep.equal([['articles', 1]]);
      expect(other.results[0].items[0].title).to.equal('Tomato secrets of another tenant');
      // A reader of published entries: drafts stay out.
      const viewer = await dataOf(await as(t, 'viewer').get('/api/search?q=sauce'));
      expect(viewer.results).to.deep.equal([]);
      const bad = await as(t, 'editor').get('/api/search?q=');
      expect(bad.status).to.equal(400);
    });

    it('GraphQL search answers as GET /api/search', async function () {
      const data = await graphqlData(t, '{ search(q: "tomato", limit: 1) { collection total items } }');
      expect(data.search.map((r: Entry) => [r.collection, r.total])).to.deep.equal([
        ['articles', 2],
        ['places', 1],
      ]);
      expect(data.search[0].items[0].title).to.equal('Tomato tomato tomato');
    });

    it('GraphQL lists read with search answer _highlight on their items (null without search)', async function () {
      const data = await graphqlData(
        t,
        '{ hit: articles(search: "grow") { items { title _highlight } } plain: articles(sort: "title", limit: 1) { items { title _highlight } } }',
      );
      expect(data.hit.items).to.deep.equal([
        { title: 'Gardening for beginners', _highlight: { body: 'Tomatoes <mark>grow</mark> in summer &amp; sun.' } },
      ]);
      expect(data.plain.items[0]._highlight).to.equal(null);
    });
  });
}

describe('content: GET /api/search on an installation without collections', function () {
  const t: TestKernel = useTestKernel({ plugins: [fixturePlugin('test-identity')] });

  it('answers no results (200), not a refusal: the admin UI search box of a new installation', async function () {
    const res = await as(t, 'admin').get('/api/search?q=anything');
    expect(res.status).to.equal(200);
    expect((await res.json()).data).to.deep.equal({ q: 'anything', results: [] });
  });
});
