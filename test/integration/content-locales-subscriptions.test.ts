import { expect } from 'chai';
import { as, createCollections, dataOf } from '../helpers/content.js';
import { legacyClient, modernClient, testHeaders, waitFor } from '../helpers/graphql-ws.js';
import { fixturePlugin, startTestKernel, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, REDIS_URL, requireVariant, uniqueName } from '../helpers/services.js';

// GraphQL subscriptions in a locale (docs/features/localisation.md), over real WebSockets: `articleAdded(locale: "de")`
// and the like answer the entry in that locale (values with fallbacks, _fallbackFields, its status there); readers get
// an entry as it is published in that locale. Default-locale subscribers never get another locale's values.
const ARTICLES = {
  name: 'articles',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'body', type: 'text', localized: true },
    { name: 'tag', type: 'text' },
  ],
};
const NOTES = { name: 'notes', fields: [{ name: 'text', type: 'text' }] };
const FIELDS = '_id title body tag status _locale _locales _fallbackFields';
type Entry = Record<string, any>;

const active = (t: TestKernel) => t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql').activeSubscriptions;

async function setUpLocales(t: TestKernel): Promise<void> {
  await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
  await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-CH', fallback: 'de' }), 201);
  await createCollections(t, ARTICLES, NOTES);
}

for (const variant of DB_VARIANTS) {
  describe(`content: GraphQL subscriptions in a locale (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      { variant, seed: () => setUpLocales(t) },
    );
    const disposers: Array<() => unknown> = [];
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
      await waitFor('subscriptions to end', () => active(t) === 0);
    });
    const client = (who: string, legacy = false) => {
      const ws = legacy ? legacyClient(t, { headers: testHeaders(who) }) : modernClient(t, { headers: testHeaders(who) });
      disposers.push(() => ws.dispose());
      return ws;
    };
    const editor = as(t, 'editor');
    const next = async (inbox: { next(): Promise<any> }, field: string): Promise<Entry> => {
      const got = await inbox.next();
      expect(got.errors, JSON.stringify(got.errors)).to.equal(undefined);
      return got.data[field];
    };

    it('answers the entry in the locale, with fallbacks; readers as it is published there', async function () {
      const writerDe = client('editor');
      const wAdded = writerDe.subscribe(`subscription { articleAdded(locale: "de") { ${FIELDS} } }`);
      const wUpdated = writerDe.subscribe(`subscription { articleUpdated(locale: "de") { ${FIELDS} } }`);
      const wUpdatedCH = writerDe.subscribe(`subscription { articleUpdated(locale: "de-CH") { title _locale _fallbackFields } }`);
      const readerDe = client('viewer', true);
      const rAdded = readerDe.subscribe(`subscription { articleAdded(locale: "de") { ${FIELDS} } }`);
      const rUpdated = readerDe.subscribe(`subscription { articleUpdated(locale: "de") { ${FIELDS} } }`);
      const rDeleted = readerDe.subscribe(`subscription { articleDeleted(locale: "de") { ${FIELDS} } }`);
      const readerEn = client('viewer');
      const enUpdated = readerEn.subscribe(`subscription { articleUpdated { title body status _locale } }`);
      const enDeleted = readerEn.subscribe(`subscription { articleDeleted { title status _locale } }`);
      await waitFor('8 subscriptions', () => active(t) === 8);

      // Created in the default locale, published there: a writer in de is told of it in de (every value falls back).
      const made = await dataOf(
        await editor.post('/api/collections/articles', { title: 'Hello', body: 'World', tag: 't1', status: 'published' }),
        201,
      );
      const id = made._id;
      expect(await next(wAdded, 'articleAdded')).to.deep.equal({
        _id: id,
        title: 'Hello',
        body: 'World',
        tag: 't1',
        status: 'draft',
        _locale: 'de',
        _locales: ['en'],
        _fallbackFields: ['title', 'body'],
      });
      // A draft translation: the writer sees it; a reader of de nothing; a reader of en the entry in en (not 'Hallo').
      await dataOf(await editor.patch(`/api/collections/articles/${id}?locale=de`, { title: 'Hallo' }));
      expect(await next(wUpdated, 'articleUpdated')).to.include({ title: 'Hallo', body: 'World', status: 'draft', _locale: 'de' });
      expect(await next(enUpdated, 'articleUpdated')).to.deep.equal({ title: 'Hello', body: 'World', status: 'published', _locale: 'en' });
      expect(await next(wUpdatedCH, 'articleUpdated')).to.deep.equal({
        title: 'Hallo',
        _locale: 'de-CH',
        _fallbackFields: ['title', 'body'],
      });

      // Published in de: a reader of de is told it was added, in de.
      await dataOf(await editor.patch(`/api/collections/articles/${id}/status?locale=de`, { status: 'published' }));
      const added = await next(rAdded, 'articleAdded');
      expect(added).to.deep.equal({
        _id: id,
        title: 'Hallo',
        body: 'World',
        tag: 't1',
        status: 'published',
        _locale: 'de',
        _locales: ['en', 'de'],
        _fallbackFields: ['body'],
      });
      expect(await next(wUpdated, 'articleUpdated')).to.include({ title: 'Hallo', status: 'published' });
      expect(await next(enUpdated, 'articleUpdated')).to.include({ title: 'Hello', status: 'published', _locale: 'en' });
      expect(await next(wUpdatedCH, 'articleUpdated')).to.deep.equal({
        title: 'Hallo',
        _locale: 'de-CH',
        _fallbackFields: ['title', 'body'],
      });

      // A write of the default locale: de readers get the values de falls back to and the shared field, in de.
      await dataOf(await editor.patch(`/api/collections/articles/${id}`, { body: 'World!', tag: 't2' }));
      expect(await next(rUpdated, 'articleUpdated')).to.include({ title: 'Hallo', body: 'World!', tag: 't2', status: 'published' });
      expect(await next(enUpdated, 'articleUpdated')).to.deep.equal({ title: 'Hello', body: 'World!', status: 'published', _locale: 'en' });
      expect(await next(wUpdated, 'articleUpdated')).to.include({ title: 'Hallo', body: 'World!', tag: 't2' });
      expect(await next(wUpdatedCH, 'articleUpdated')).to.include({ title: 'Hallo', _locale: 'de-CH' });
      await dataOf(await editor.patch(`/api/collections/articles/${id}?locale=de`, { body: 'Welt' }));
      const own = await next(rUpdated, 'articleUpdated');
      expect(own).to.include({ body: 'Welt', _locale: 'de' });
      expect(own._fallbackFields).to.deep.equal([]);
      expect(await next(wUpdated, 'articleUpdated')).to.include({ body: 'Welt', _locale: 'de' });
      expect(await next(wUpdatedCH, 'articleUpdated')).to.include({ title: 'Hallo', _locale: 'de-CH' });
      // Readers of en are told of writes of other locales as updates of what they read (shared fields, or values they
      // fall back to, may have changed), always in en.
      expect(await next(enUpdated, 'articleUpdated')).to.deep.equal({ title: 'Hello', body: 'World!', status: 'published', _locale: 'en' });

      // Unpublished in de: gone for de readers (not for en readers: still published there).
      await dataOf(await editor.patch(`/api/collections/articles/${id}/status?locale=de`, { status: 'draft' }));
      expect(await next(rDeleted, 'articleDeleted')).to.include({ _id: id, title: 'Hallo', status: 'draft', _locale: 'de' });
      await dataOf(await editor.patch(`/api/collections/articles/${id}/status?locale=de`, { status: 'published' }));
      expect(await next(rAdded, 'articleAdded')).to.include({ _id: id, status: 'published' });
      for (const status of ['draft', 'published']) {
        expect(await next(wUpdated, 'articleUpdated')).to.include({ status, _locale: 'de' });
        expect(await next(wUpdatedCH, 'articleUpdated')).to.include({ title: 'Hallo', _locale: 'de-CH' });
        expect(await next(enUpdated, 'articleUpdated')).to.include({ title: 'Hello', status: 'published', _locale: 'en' });
      }

      // Deleted: de readers get it as it was in de, en readers in en.
      await dataOf(await editor.delete(`/api/collections/articles/${id}`));
      expect(await next(rDeleted, 'articleDeleted')).to.deep.equal({ ...added, body: 'Welt', tag: 't2', _fallbackFields: [] });
      expect(await next(enDeleted, 'articleDeleted')).to.deep.equal({ title: 'Hello', status: 'published', _locale: 'en' });
      // Nothing else came: no de values to en readers, no draft to de readers.
      const sentinel = await dataOf(await editor.post('/api/collections/articles', { title: 'S' }), 201);
      expect((await next(wAdded, 'articleAdded'))._id).to.equal(sentinel._id);
      expect(rAdded.pending + rUpdated.pending + rDeleted.pending + enUpdated.pending + enDeleted.pending).to.equal(0);
      expect(wUpdated.pending + wUpdatedCH.pending).to.equal(0);
    });

    it('created in a locale: its writers and readers there are told, the default locale’s readers not', async function () {
      const readerDe = client('viewer');
      const rAdded = readerDe.subscribe(`subscription { articleAdded(locale: "de") { title status _locale _locales } }`);
      const readerEn = client('viewer');
      const enAdded = readerEn.subscribe(`subscription { articleAdded { title status _locale } }`);
      const writerEn = client('editor');
      const wEnAdded = writerEn.subscribe(`subscription { articleAdded { title status _locale _fallbackFields } }`);
      await waitFor('3 subscriptions', () => active(t) === 3);
      await dataOf(await editor.post('/api/collections/articles?locale=de', { title: 'Nur deutsch', status: 'published' }), 201);
      expect(await next(rAdded, 'articleAdded')).to.deep.equal({
        title: 'Nur deutsch',
        status: 'published',
        _locale: 'de',
        _locales: ['en', 'de'],
      });
      // In the default locale it is a draft with its localized fields empty.
      expect(await next(wEnAdded, 'articleAdded')).to.deep.equal({ title: null, status: 'draft', _locale: 'en', _fallbackFields: null });
      await dataOf(await editor.post('/api/collections/articles', { title: 'English', status: 'published' }), 201);
      expect(await next(enAdded, 'articleAdded')).to.deep.equal({ title: 'English', status: 'published', _locale: 'en' });
      expect(rAdded.pending).to.equal(0);
    });

    it('a collection without localized fields answers its one version in the locale; bad locales are refused', async function () {
      const reader = client('viewer');
      const added = reader.subscribe('subscription { noteAdded(locale: "de-ch") { text status _locale _locales _fallbackFields } }');
      await waitFor('1 subscription', () => active(t) === 1);
      await dataOf(await editor.post('/api/collections/notes', { text: 'n', status: 'published' }), 201);
      expect(await next(added, 'noteAdded')).to.deep.equal({
        text: 'n',
        status: 'published',
        _locale: 'de-CH',
        _locales: ['en'],
        _fallbackFields: null,
      });
      for (const locale of ['xx', '*']) {
        const refused = await reader.subscribe(`subscription { articleAdded(locale: "${locale}") { title } }`).next();
        expect(
          refused.errors.map((e: Entry) => e.extensions.code),
          locale,
        ).to.deep.equal(['VALIDATION_ERROR']);
      }
    });
  });
}

describe('content: a GraphQL subscriber in a locale on another instance (two kernels, one MariaDB, one Redis)', function () {
  this.timeout(60000);
  let a: TestKernel;
  let b: TestKernel;
  before(async function () {
    requireVariant(
      this,
      DB_VARIANTS.find((v) => v.name === 'mariadb')!,
    );
    if (!REDIS_URL) return this.skip();
    const redis = { url: REDIS_URL, prefix: uniqueName('cmsloc') };
    a = await startTestKernel({ db: 'mariadb', plugins: [fixturePlugin('test-identity')], config: { redis } });
    b = await startTestKernel({ db: 'mariadb', dbUrl: a.dbUrl, plugins: [fixturePlugin('test-identity')], config: { redis } });
    await setUpLocales(a);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('an entry deleted on A reaches a de reader on B as it was in de (its versions travel with the event)', async function () {
    const editor = as(a, 'editor');
    const id = (await dataOf(await editor.post('/api/collections/articles', { title: 'Hello', body: 'World', status: 'published' }), 201))
      ._id;
    await dataOf(await editor.patch(`/api/collections/articles/${id}?locale=de`, { title: 'Hallo', status: 'published' }));
    await waitFor(
      'the schema on B',
      async () =>
        (await b.request('/api/graphql', { method: 'POST', identity: 'viewer', json: { query: '{ articles { total } }' } })).status === 200,
    );
    const ws = modernClient(b, { headers: testHeaders('viewer') });
    try {
      const deleted = ws.subscribe('subscription { articleDeleted(locale: "de") { _id title body status _locale _fallbackFields } }');
      await waitFor('the subscription', () => active(b) === 1);
      await dataOf(await editor.delete(`/api/collections/articles/${id}`));
      expect((await deleted.next()).data.articleDeleted).to.deep.equal({
        _id: id,
        title: 'Hallo',
        body: 'World',
        status: 'published',
        _locale: 'de',
        _fallbackFields: ['body'],
      });
    } finally {
      await ws.dispose();
    }
  });
});
