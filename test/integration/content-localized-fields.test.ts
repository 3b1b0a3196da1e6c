import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, createCollections, dataOf, failureOf, graphqlData } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Localized fields of API-DECISIONS "Locales": `localized: true` holds one value per locale, other fields are shared;
// reads and writes take ?locale=; fallbacks are named in _fallbackFields; ?locale=* answers {code: value}; publication
// is per locale.
const PAGES = {
  name: 'pages',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'body', type: 'richtext', localized: true },
    { name: 'seo', type: 'json', localized: true },
    { name: 'price', type: 'number' },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: localized fields (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    let id = '';
    const path = (query = '') => `/api/collections/pages/${id}${query}`;

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-AT', fallback: 'de' }), 201);
      await createCollections(t, PAGES, { name: 'plain', fields: [{ name: 'title', type: 'text' }] });
      const made = await dataOf(
        await as(t, 'editor').post('/api/collections/pages', {
          title: 'Hello',
          body: '<p>Hi</p>',
          seo: { k: 1 },
          price: 3,
          status: 'published',
        }),
        201,
      );
      id = made._id;
      expect(made).to.include({ _locale: 'en', title: 'Hello' });
      expect(made._locales).to.deep.equal(['en']);
    });

    it('a write in a locale sets its localized values; shared fields stay shared; the default is unchanged', async function () {
      const de = await dataOf(await as(t, 'editor').patch(path('?locale=de'), { title: 'Hallo', price: 4 }));
      expect(de).to.include({ _locale: 'de', title: 'Hallo', body: '<p>Hi</p>', price: 4, status: 'draft' });
      expect(de._fallbackFields).to.deep.equal(['body', 'seo']);
      expect(de._locales).to.deep.equal(['en', 'de']);
      const en = await dataOf(await as(t, 'editor').get(path()));
      expect(en).to.include({ _locale: 'en', title: 'Hello', price: 4, status: 'published' });
      expect(en).to.not.have.property('_fallbackFields');
    });

    it('a read in a locale falls back along the chain, then to the default, and names the fields that fell back', async function () {
      const at = await dataOf(await as(t, 'editor').get(path('?locale=de-at')));
      expect(at).to.include({ _locale: 'de-AT', title: 'Hallo', body: '<p>Hi</p>' });
      expect(at._fallbackFields).to.deep.equal(['title', 'body', 'seo']);
      await dataOf(await as(t, 'editor').patch(path('?locale=de-AT'), { seo: { k: 2 } }));
      const again = await dataOf(await as(t, 'editor').get(path('?locale=de-AT')));
      expect(again.seo).to.deep.equal({ k: 2 });
      expect(again._fallbackFields).to.deep.equal(['title', 'body']);
      expect(again._locales).to.deep.equal(['en', 'de', 'de-AT']);
    });

    it('?locale=* answers every localized field as {code: value} for the locales that have their own', async function () {
      const all = await dataOf(await as(t, 'editor').get(path('?locale=*')));
      expect(all.title).to.deep.equal({ en: 'Hello', de: 'Hallo' });
      expect(all.seo).to.deep.equal({ en: { k: 1 }, 'de-AT': { k: 2 } });
      expect(all.price).to.equal(4);
    });

    it('lists in a locale answer each entry in it', async function () {
      const list = await dataOf(await as(t, 'editor').get('/api/collections/pages?locale=de'));
      expect(list.items.map((e: Entry) => [e.title, e._locale, e.status])).to.deep.equal([['Hallo', 'de', 'draft']]);
      const en = await dataOf(await as(t, 'editor').get('/api/collections/pages'));
      expect(en.items.map((e: Entry) => [e.title, e._locale])).to.deep.equal([['Hello', 'en']]);
    });

    it("GraphQL takes a locale argument on a collection's list and entry", async function () {
      const one = await graphqlData(t, `{ page(_id: "${id}", locale: "de-AT") { title seo _locale _locales _fallbackFields } }`);
      expect(one.page).to.deep.include({ title: 'Hallo', _locale: 'de-AT', _fallbackFields: ['title', 'body'] });
      const list = await graphqlData(t, '{ pages(locale: "de") { items { title _locale } } }');
      expect(list.pages.items).to.deep.equal([{ title: 'Hallo', _locale: 'de' }]);
      const res = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: { query: '{ pages(locale: "zz") { total } }' },
      });
      expect(JSON.stringify(await res.json())).to.include('VALIDATION_ERROR');
    });

    it('unknown locales are 400 VALIDATION_ERROR naming locale; a collection without localized fields answers its one version', async function () {
      for (const p of [path('?locale=fr'), '/api/collections/pages?locale=xx-YY', path('?locale=not a code')]) {
        const failure = await failureOf(await as(t, 'editor').get(p), 400);
        expect(failure.error, p).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(failure), p).to.include('locale');
      }
      expect((await failureOf(await as(t, 'editor').patch(path('?locale=fr'), { title: 'x' }), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await as(t, 'editor').patch(path('?locale=de'), { title: null }), 400)).error).to.equal('VALIDATION_ERROR');
      // Every entry answer carries _locale and _locales; without localized fields the entry has one version (the
      // default's), whose status is its status in every locale, and nothing falls back.
      const plain = await dataOf(await as(t, 'editor').post('/api/collections/plain', { title: 'P', status: 'published' }), 201);
      expect(plain).to.include({ _locale: 'en', title: 'P' });
      expect(plain._locales).to.deep.equal(['en']);
      expect(plain).to.not.have.property('_fallbackFields');
      const listed = await dataOf(await as(t, 'editor').get('/api/collections/plain'));
      expect(listed.items[0]).to.include({ _locale: 'en' });
      expect(listed.items[0]._locales).to.deep.equal(['en']);
      const inDe = await dataOf(await as(t, 'viewer').get(`/api/collections/plain/${plain._id}?locale=de`));
      expect(inDe).to.include({ _locale: 'de', title: 'P', status: 'published' });
      expect(inDe._locales).to.deep.equal(['en']);
      const listedDe = await dataOf(await as(t, 'viewer').get('/api/collections/plain?locale=de'));
      expect(listedDe.items.map((e: Entry) => [e.title, e._locale, e.status])).to.deep.equal([['P', 'de', 'published']]);
      // A client may send an answer back as it came (the locale keys are read-only, like _id).
      const back = await dataOf(await as(t, 'editor').patch(`/api/collections/plain/${plain._id}`, { ...inDe, title: 'Q' }));
      expect(back).to.include({ title: 'Q', _locale: 'en' });
      const batch = await dataOf(await as(t, 'editor').post('/api/collections/plain/batch', { entries: [{ title: 'B' }] }), 201);
      expect(batch.items[0]).to.include({ _locale: 'en', title: 'B' });
      const gql = await graphqlData(t, `{ plainEntry: plainItem(_id: "${plain._id}", locale: "de") { title _locale _locales } }`);
      expect(gql.plainEntry).to.deep.equal({ title: 'Q', _locale: 'de', _locales: ['en'] });
      const sdk = await t.kernel.container.resolve<any>('contentClient')().entries('plain').get(plain._id);
      expect(sdk).to.include({ _locale: 'en' });
    });

    it('publication is per locale: published-only readers get a locale only where its version is published', async function () {
      expect((await dataOf(await as(t, 'viewer').get(path()))).title).to.equal('Hello');
      expect((await failureOf(await as(t, 'viewer').get(path('?locale=de')), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await dataOf(await as(t, 'viewer').get('/api/collections/pages?locale=de'))).items).to.deep.equal([]);
      const published = await dataOf(await as(t, 'editor').patch(`/api/collections/pages/${id}/status?locale=de`, { status: 'published' }));
      expect(published).to.include({ _locale: 'de', status: 'published', title: 'Hallo' });
      expect((await dataOf(await as(t, 'viewer').get(path('?locale=de')))).title).to.equal('Hallo');
      const list = await dataOf(await as(t, 'viewer').get('/api/collections/pages?locale=de'));
      expect(list.items.map((e: Entry) => e.title)).to.deep.equal(['Hallo']);
      // de-AT's version is a draft: not there for them, and its values are not in their *.
      expect((await failureOf(await as(t, 'viewer').get(path('?locale=de-AT')), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await dataOf(await as(t, 'viewer').get(path('?locale=*')))).seo).to.deep.equal({ en: { k: 1 } });
      // The default's own status is its own: drafting it hides the default, not de.
      await dataOf(await as(t, 'editor').patch(`/api/collections/pages/${id}/status`, { status: 'draft' }));
      expect((await failureOf(await as(t, 'viewer').get(path()), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await dataOf(await as(t, 'viewer').get(path('?locale=de')))).title).to.equal('Hallo');
    });

    it('deleting the entry drops its versions in every locale', async function () {
      await dataOf(await as(t, 'editor').delete(path()));
      const rows = await t.kernel.sequelize.query('SELECT entry_id FROM content_entry_locales', { type: QueryTypes.SELECT });
      expect(rows).to.deep.equal([]);
    });

    it('a localized field cannot be unique', async function () {
      const failure = await failureOf(
        await as(t, 'admin').post('/api/collections', {
          name: 'bad',
          fields: [{ name: 'code', type: 'text', unique: true, localized: true }],
        }),
        400,
      );
      expect(failure.error).to.equal('VALIDATION_ERROR');
    });
  });
}
