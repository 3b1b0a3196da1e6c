import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { loadAdminModule, type LocaleTimesRule } from '../helpers/admin-module.js';
import { as, createCollections, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// "Out of date" translations (docs/features/localisation.md): entry answers for callers who may write (and `?locale=*`
// reads) carry `_localeUpdatedAt: {<code>: ISO time}`, when each locale's localized values last changed (the default's
// too); the admin UI's rule (admin/src/pages/content/locale-times.ts, loaded here as it is) marks a translation older
// than its source.
const PAGES = {
  name: 'pages',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'price', type: 'number' },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: out-of-date translations (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    let rule: LocaleTimesRule;
    let id = '';
    const path = (query = '') => `/api/collections/pages/${id}${query}`;
    const read = async (query = '', identity = 'editor'): Promise<Entry> => dataOf(await as(t, identity).get(path(query)));
    /** The clock has moved past every time answered so far (times are milliseconds): a later write is later. */
    const tick = async (e: Entry) => {
      const last = Math.max(...Object.values(e._localeUpdatedAt as Record<string, string>).map((v) => Date.parse(v)));
      while (Date.now() <= last) await new Promise((resolve) => setImmediate(resolve));
    };

    before(async function () {
      rule = await loadAdminModule<LocaleTimesRule>('pages/content/locale-times.ts');
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await createCollections(t, PAGES, { name: 'plain', fields: [{ name: 'title', type: 'text' }] });
      const made = await dataOf(
        await as(t, 'editor').post('/api/collections/pages', { title: 'Hello', price: 1, status: 'published' }),
        201,
      );
      id = made._id;
      // The default's values were written when the entry was created.
      expect(made._localeUpdatedAt).to.deep.equal({ en: made.createdAt });
    });

    it('editing the source marks the translation out of date; editing the translation clears it', async function () {
      const de = await dataOf(await as(t, 'editor').patch(path('?locale=de'), { title: 'Hallo' }));
      expect(Object.keys(de._localeUpdatedAt)).to.deep.equal(['en', 'de']);
      expect(rule.entryOutOfDate(de, 'de', 'en')).to.equal(false);
      await tick(de);

      const en = await dataOf(await as(t, 'editor').patch(path(), { title: 'Hello again' }));
      expect(Date.parse(en._localeUpdatedAt.en)).to.be.greaterThan(Date.parse(de._localeUpdatedAt.de));
      expect(en._localeUpdatedAt.de).to.equal(de._localeUpdatedAt.de);
      // Every answer of the entry says it: in the default, in the locale, in lists.
      expect(rule.entryOutOfDate(en, 'de', 'en')).to.equal(true);
      expect(rule.entryOutOfDate(await read('?locale=de'), 'de', 'en')).to.equal(true);
      const list = await dataOf(await as(t, 'editor').get('/api/collections/pages'));
      expect(rule.entryOutOfDate(list.items[0], 'de', 'en')).to.equal(true);
      await tick(en);

      const again = await dataOf(await as(t, 'editor').patch(path('?locale=de'), { title: 'Hallo wieder' }));
      expect(rule.entryOutOfDate(again, 'de', 'en')).to.equal(false);
      expect(rule.entryOutOfDate(await read(), 'de', 'en')).to.equal(false);
    });

    it('a status change or a shared field leaves the times as they were', async function () {
      const before = (await read())._localeUpdatedAt;
      await tick(await read());
      await dataOf(await as(t, 'editor').patch(path('/status?locale=de'), { status: 'published' }));
      await dataOf(await as(t, 'editor').patch(path('/status'), { status: 'draft' }));
      await dataOf(await as(t, 'editor').patch(path(), { price: 2, status: 'published' }));
      await dataOf(await as(t, 'editor').patch(path('?locale=de'), { price: 3 }));
      // The same value written again is no change either.
      await dataOf(await as(t, 'editor').patch(path(), { title: 'Hello again' }));
      expect((await read())._localeUpdatedAt).to.deep.equal(before);
    });

    it('every entry answer to a writer carries them: status changes, batches, singletons, restores', async function () {
      const times = (e: Entry, what: string) => expect(Object.keys(e._localeUpdatedAt ?? {}), what).to.include('en');
      times(await dataOf(await as(t, 'editor').patch(path('/status?locale=de'), { status: 'published' })), 'status in a locale');
      times(await dataOf(await as(t, 'editor').patch(path('/status'), { status: 'published' })), 'status');
      const batch = await dataOf(await as(t, 'editor').post('/api/collections/pages/batch?locale=de', { entries: [{ title: 'B' }] }), 201);
      times((batch.items ?? batch)[0], 'batch create');
      const listed = await dataOf(await as(t, 'editor').get('/api/collections/pages?locale=*'));
      for (const e of listed.items) times(e, 'list in *');
      await createCollections(t, { name: 'home', singleton: true, fields: [{ name: 'title', type: 'text', localized: true }] });
      times(await dataOf(await as(t, 'editor').put('/api/collections/home/single', { title: 'Home' }), 201), 'singleton PUT');
      times(await dataOf(await as(t, 'editor').get('/api/collections/home/single?locale=de')), 'singleton GET');
      const revisions = await dataOf(await as(t, 'editor').get(path('/revisions')));
      const first = (revisions.items ?? revisions).at(-1);
      times(await dataOf(await as(t, 'editor').post(path(`/revisions/${first.version}/restore`))), 'restore');
    });

    it('readers see the times only on ?locale=* (and only of versions published for them)', async function () {
      const reader = await read('', 'viewer');
      expect(reader).to.not.have.property('_localeUpdatedAt');
      expect(await read('?locale=de', 'viewer')).to.not.have.property('_localeUpdatedAt');
      const all = await read('?locale=*', 'viewer');
      expect(Object.keys(all._localeUpdatedAt)).to.deep.equal(['en', 'de']);
      await dataOf(await as(t, 'editor').patch(path('/status?locale=de'), { status: 'draft' }));
      expect(Object.keys((await read('?locale=*', 'viewer'))._localeUpdatedAt)).to.deep.equal(['en']);
      // A collection without localized fields has one version: no times.
      const plain = await dataOf(await as(t, 'editor').post('/api/collections/plain', { title: 'x' }), 201);
      expect(plain).to.not.have.property('_localeUpdatedAt');
    });

    it('deleting the entry drops its times; a revision does not hold them', async function () {
      const revisions = await dataOf(await as(t, 'editor').get(path('/revisions')));
      for (const r of revisions.items ?? revisions) expect(r.data ?? {}).to.not.have.property('_localeUpdatedAt');
      await dataOf(await as(t, 'editor').delete(path()));
      const sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
      const rows = await sequelize.query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM content_entry_locale_times WHERE entry_id = :id',
        {
          replacements: { id },
          type: QueryTypes.SELECT,
        },
      );
      expect(Number(rows[0]!.n)).to.equal(0);
    });

    it('changing the default locale keeps the time of each locale with it', async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/pages', { title: 'Source' }), 201);
      const at = `/api/collections/pages/${made._id}`;
      const de = await dataOf(await as(t, 'editor').patch(`${at}?locale=de`, { title: 'Quelle' }));
      await tick(de);
      const en = await dataOf(await as(t, 'editor').patch(at, { title: 'Source, edited' }));
      expect(rule.entryOutOfDate(en, 'de', 'en')).to.equal(true);
      await dataOf(await as(t, 'admin').patch('/api/locales/de', { isDefault: true }));
      const after = await dataOf(await as(t, 'editor').get(at));
      expect(after._locale).to.equal('de');
      expect(after._localeUpdatedAt).to.deep.equal(en._localeUpdatedAt);
      // Now en is the translation, and newer than its source de.
      expect(rule.entryOutOfDate(after, 'en', 'de')).to.equal(false);
      await dataOf(await as(t, 'admin').patch('/api/locales/en', { isDefault: true }));
      expect((await dataOf(await as(t, 'editor').get(at)))._localeUpdatedAt).to.deep.equal(en._localeUpdatedAt);
    });
  });
}
