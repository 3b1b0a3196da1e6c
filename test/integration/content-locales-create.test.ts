import { expect } from 'chai';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// API-DECISIONS "Locales": writes take ?locale=<code>; a write sets that locale's values of localized fields. Creation
// in a locale (POST ?locale=) and singletons' GET|PUT .../single?locale= (docs/features/localisation.md).
const ARTICLES = {
  name: 'articles',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'summary', type: 'text', localized: true },
    { name: 'price', type: 'number' },
  ],
};
const SETTINGS = {
  name: 'site',
  singleton: true,
  fields: [
    { name: 'tagline', type: 'text', localized: true },
    { name: 'email', type: 'text' },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: creating in a locale, singletons in a locale (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-CH', fallback: 'de' }), 201);
      await createCollections(t, ARTICLES, SETTINGS);
    });

    it('POST ?locale= creates the entry in that locale: its localized values and status there, shared fields shared', async function () {
      const made = await dataOf(
        await as(t, 'editor').post('/api/collections/articles?locale=de', { title: 'Grüezi Welt', price: 7, status: 'published' }),
        201,
      );
      expect(made).to.include({ _locale: 'de', title: 'Grüezi Welt', summary: null, price: 7, status: 'published', slug: 'gruezi-welt' });
      expect(made._locales).to.deep.equal(['en', 'de']);
      expect(made._fallbackFields).to.deep.equal(['summary']);
      // The default locale's version: the shared fields, its localized fields empty, a draft.
      const en = await dataOf(await as(t, 'editor').get(`/api/collections/articles/${made._id}`));
      expect(en).to.include({ _locale: 'en', title: null, summary: null, price: 7, status: 'draft' });
      // de-CH falls back to de.
      const ch = await dataOf(await as(t, 'editor').get(`/api/collections/articles/${made._id}?locale=de-CH`));
      expect(ch).to.include({ _locale: 'de-CH', title: 'Grüezi Welt', status: 'draft' });
      // A reader sees it in de (published there), not in the default (a draft there).
      expect((await dataOf(await as(t, 'viewer').get(`/api/collections/articles/${made._id}?locale=de`))).title).to.equal('Grüezi Welt');
      expect((await failureOf(await as(t, 'viewer').get(`/api/collections/articles/${made._id}`), 404)).error).to.equal('ENTRY_NOT_FOUND');
      // Written later in the default, the entry has both.
      const both = await dataOf(await as(t, 'editor').patch(`/api/collections/articles/${made._id}`, { title: 'Hello world' }));
      expect(both).to.include({ _locale: 'en', title: 'Hello world', price: 7 });
      expect((await dataOf(await as(t, 'editor').get(`/api/collections/articles/${made._id}?locale=de`))).title).to.equal('Grüezi Welt');
    });

    it('a required localized field must be given in the locale it is created in; bad locales are 400', async function () {
      const missing = await failureOf(await as(t, 'editor').post('/api/collections/articles?locale=de', { price: 1 }), 400);
      expect(missing.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(missing)).to.include('body.title');
      for (const locale of ['fr', '*', 'not a code']) {
        const failure = await failureOf(
          await as(t, 'editor').post(`/api/collections/articles?locale=${encodeURIComponent(locale)}`, { title: 'x' }),
          400,
        );
        expect(failure.error, locale).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(failure), locale).to.include('locale');
      }
      // ?locale= naming the default creates as without it.
      const en = await dataOf(await as(t, 'editor').post('/api/collections/articles?locale=en', { title: 'Plain' }), 201);
      expect(en).to.include({ _locale: 'en', title: 'Plain' });
      expect(en._locales).to.deep.equal(['en']);
    });

    it('the SDK creates in a locale too', async function () {
      const client = createLocalClient(t.kernel);
      const made = await client.entries('articles').create({ title: 'Bonjour', price: 2 }, { locale: 'de' });
      expect(made).to.include({ _locale: 'de', title: 'Bonjour', status: 'draft' });
      expect((await client.entries('articles').get(made._id)).title).to.equal(null);
    });

    const put = (path: string, json: unknown) => t.request(path, { method: 'PUT', identity: 'editor', json });

    it("singletons' GET|PUT .../single take ?locale=: created in it, then written and read per locale", async function () {
      const first = await put('/api/collections/site/single?locale=de', { tagline: 'Willkommen', email: 'a@b.c' });
      expect(first.status).to.equal(201);
      const made = (await first.json()).data as Entry;
      expect(made).to.include({ _locale: 'de', tagline: 'Willkommen', email: 'a@b.c' });
      const en = await dataOf(await put('/api/collections/site/single', { tagline: 'Welcome', email: 'x@y.z' }));
      expect(en).to.include({ _locale: 'en', tagline: 'Welcome', email: 'x@y.z' });
      expect(en._locales).to.deep.equal(['en', 'de']);
      const de = await dataOf(await as(t, 'editor').get('/api/collections/site/single?locale=de'));
      expect(de).to.include({ _locale: 'de', tagline: 'Willkommen', email: 'x@y.z' });
      // PUT in a locale replaces that locale's values (a localized field left out is emptied there, not in the default).
      const emptied = await dataOf(await put('/api/collections/site/single?locale=de', { email: 'x@y.z' }));
      expect(emptied).to.include({ _locale: 'de', tagline: null });
      expect((await dataOf(await as(t, 'editor').get('/api/collections/site/single'))).tagline).to.equal('Welcome');
      // Readers: per locale's status (de is a draft there).
      await dataOf(await as(t, 'editor').patch(`/api/collections/site/${made._id}/status`, { status: 'published' }));
      expect((await dataOf(await as(t, 'viewer').get('/api/collections/site/single'))).tagline).to.equal('Welcome');
      expect((await failureOf(await as(t, 'viewer').get('/api/collections/site/single?locale=de'), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await as(t, 'editor').get('/api/collections/site/single?locale=zz'), 400)).error).to.equal(
        'VALIDATION_ERROR',
      );
    });
  });
}
