import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { as, createCollections, dataOf, failureOf, graphqlData, validationIssues } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { countStatements } from '../helpers/sql-statements.js';

// Related entries in a locale (docs/features/localisation.md): populated entries (REST) and GraphQL related entries
// answer in the read's locale (values with fallbacks, _fallbackFields, _locale, _locales; for readers only those
// published there); batch creates and GraphQL mutations take a locale; a preview link shows the locale it was made in.
const AUTHORS = {
  name: 'authors',
  fields: [
    { name: 'name', type: 'text', required: true, localized: true },
    { name: 'bio', type: 'text', localized: true },
    { name: 'born', type: 'number' },
  ],
};
const BOOKS = {
  name: 'books',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'author', type: 'relation', collection: 'authors' },
    { name: 'coauthors', type: 'relation', collection: 'authors', cardinality: 'many' },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: related entries, batches, mutations and previews in a locale (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    // anna: published in en, a draft in de. bob: published in en and in de.
    let anna = '';
    let bob = '';
    let book = '';

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-AT', fallback: 'de' }), 201);
      await createCollections(t, AUTHORS, BOOKS);
      const editor = as(t, 'editor');
      anna = (
        await dataOf(await editor.post('/api/collections/authors', { name: 'Anna', bio: 'Writes', born: 1970, status: 'published' }), 201)
      )._id;
      await dataOf(await editor.patch(`/api/collections/authors/${anna}?locale=de`, { name: 'Anna (de)' }));
      bob = (
        await dataOf(await editor.post('/api/collections/authors', { name: 'Bob', bio: 'Reads', born: 1980, status: 'published' }), 201)
      )._id;
      await dataOf(await editor.patch(`/api/collections/authors/${bob}?locale=de`, { name: 'Bob (de)', status: 'published' }));
      book = (
        await dataOf(
          await editor.post('/api/collections/books', { title: 'Book', author: anna, coauthors: [bob, anna], status: 'published' }),
          201,
        )
      )._id;
      await dataOf(await editor.patch(`/api/collections/books/${book}?locale=de`, { title: 'Buch', status: 'published' }));
    });

    it('populated entries answer in the read locale, with fallbacks, _locale and _locales', async function () {
      const de = await dataOf(await as(t, 'editor').get(`/api/collections/books/${book}?locale=de&populate=author,coauthors`));
      expect(de).to.include({ title: 'Buch', _locale: 'de' });
      expect(de.author).to.include({ _id: anna, name: 'Anna (de)', bio: 'Writes', born: 1970, _locale: 'de', status: 'draft' });
      expect(de.author._fallbackFields).to.deep.equal(['bio']);
      expect(de.author._locales).to.deep.equal(['en', 'de']);
      expect(de.coauthors.map((a: Entry) => a.name)).to.deep.equal(['Bob (de)', 'Anna (de)']);
      // de-AT falls back to de for every field.
      const at = await dataOf(await as(t, 'editor').get(`/api/collections/books?locale=de-AT&populate=author`));
      expect(at.items[0].author).to.include({ name: 'Anna (de)', _locale: 'de-AT' });
      expect(at.items[0].author._fallbackFields).to.deep.equal(['name', 'bio']);
      // Without a locale the populated entries answer as stored (the default's values).
      const en = await dataOf(await as(t, 'editor').get(`/api/collections/books/${book}?populate=author`));
      expect(en.author).to.include({ name: 'Anna' });
      // `*`: every locale's own values.
      const all = await dataOf(await as(t, 'editor').get(`/api/collections/books/${book}?locale=*&populate=author`));
      expect(all.author.name).to.deep.equal({ en: 'Anna', de: 'Anna (de)' });
    });

    it('readers get only the related entries published in the locale (lists and reads alike)', async function () {
      const one = await dataOf(await as(t, 'viewer').get(`/api/collections/books/${book}?locale=de&populate=author,coauthors`));
      expect(one.title).to.equal('Buch');
      // anna is a draft in de: hidden, as a draft is (null for one, left out of a many-relation).
      expect(one.author).to.equal(null);
      expect(one.coauthors.map((a: Entry) => [a._id, a.name, a.status])).to.deep.equal([[bob, 'Bob (de)', 'published']]);
      const list = await dataOf(await as(t, 'viewer').get('/api/collections/books?locale=de&populate=author,coauthors'));
      expect(list.items[0].author).to.equal(null);
      expect(list.items[0].coauthors.map((a: Entry) => a._id)).to.deep.equal([bob]);
      // In the default both are published.
      const en = await dataOf(await as(t, 'viewer').get(`/api/collections/books/${book}?locale=en&populate=author`));
      expect(en.author).to.include({ name: 'Anna', _locale: 'en', status: 'published' });
      // Publishing anna in de shows her there.
      await dataOf(await as(t, 'editor').patch(`/api/collections/authors/${anna}/status?locale=de`, { status: 'published' }));
      const after = await dataOf(await as(t, 'viewer').get(`/api/collections/books?locale=de&populate=author`));
      expect(after.items[0].author).to.include({ name: 'Anna (de)', status: 'published' });
      await dataOf(await as(t, 'editor').patch(`/api/collections/authors/${anna}/status?locale=de`, { status: 'draft' }));
    });

    it('costs one query more per populated target collection, whatever the page', async function () {
      const sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
      const versionsRead = async (path: string) => {
        const { statements } = await countStatements(sequelize, async () => dataOf(await as(t, 'editor').get(path)));
        return statements.filter((s) => /FROM\s+content_entry_locales\b/i.test(s)).length;
      };
      const plain = await versionsRead('/api/collections/books?locale=de&limit=7');
      const populated = await versionsRead('/api/collections/books?locale=de&limit=8&populate=author,coauthors');
      expect(populated - plain).to.equal(1);
    });

    it('GraphQL related entries answer in the query locale (readers: only those published there)', async function () {
      const q = (locale: string) =>
        `{ book(_id: "${book}", locale: "${locale}") { title _locale authorEntry { name _locale _fallbackFields status } coauthorsEntries { name _locale } } }`;
      const de = await graphqlData(t, q('de'));
      expect(de.book).to.deep.include({ title: 'Buch', _locale: 'de' });
      expect(de.book.authorEntry).to.deep.equal({ name: 'Anna (de)', _locale: 'de', _fallbackFields: ['bio'], status: 'draft' });
      expect(de.book.coauthorsEntries).to.deep.equal([
        { name: 'Bob (de)', _locale: 'de' },
        { name: 'Anna (de)', _locale: 'de' },
      ]);
      const reader = await graphqlData(t, q('de'), 'viewer');
      expect(reader.book.authorEntry).to.equal(null);
      expect(reader.book.coauthorsEntries).to.deep.equal([{ name: 'Bob (de)', _locale: 'de' }]);
      const list = await graphqlData(t, '{ books(locale: "de-AT") { items { authorEntry { name _locale } } } }');
      expect(list.books.items[0].authorEntry).to.deep.equal({ name: 'Anna (de)', _locale: 'de-AT' });
      const en = await graphqlData(t, q('en'));
      expect(en.book.authorEntry).to.deep.include({ name: 'Anna', _locale: 'en' });
    });

    it('a batch create takes ?locale= as a single create does', async function () {
      const made = await dataOf(
        await as(t, 'editor').post('/api/collections/authors/batch?locale=de', {
          entries: [
            { name: 'Clara (de)', born: 1990, status: 'published' },
            { name: 'Dora (de)', bio: 'Schreibt' },
          ],
        }),
        201,
      );
      expect(made.items.map((e: Entry) => [e.name, e._locale, e.status, e.born ?? null])).to.deep.equal([
        ['Clara (de)', 'de', 'published', 1990],
        ['Dora (de)', 'de', 'draft', null],
      ]);
      // The default's version starts as a draft with its localized fields empty; shared fields are shared.
      const en = await dataOf(await as(t, 'editor').get(`/api/collections/authors/${made.items[0]._id}`));
      expect(en).to.include({ name: null, born: 1990, status: 'draft', _locale: 'en' });
      expect(en._locales).to.deep.equal(['en', 'de']);
      // A required localized field must be given in the locale; all or nothing.
      const bad = await validationIssues(
        await as(t, 'editor').post('/api/collections/authors/batch?locale=de', { entries: [{ name: 'Eva' }, { bio: 'x' }] }),
      );
      expect(bad.map((i) => i.path)).to.include('body.entries.1.name');
      const eva = await dataOf(await as(t, 'editor').get('/api/collections/authors?locale=de&search=Eva'));
      expect(eva.total).to.equal(0);
      for (const locale of ['*', 'zz'])
        expect(
          (
            await failureOf(
              await as(t, 'editor').post(`/api/collections/authors/batch?locale=${locale}`, { entries: [{ name: 'F' }] }),
              400,
            )
          ).error,
        ).to.equal('VALIDATION_ERROR');
      // Without a locale (or naming the default) a batch creates as before.
      const plain = await dataOf(
        await as(t, 'editor').post('/api/collections/authors/batch?locale=en', { entries: [{ name: 'Gus' }] }),
        201,
      );
      expect(plain.items[0]).to.include({ name: 'Gus', _locale: 'en' });
    });

    it('GraphQL mutations take a locale', async function () {
      const created = await graphqlData(
        t,
        'mutation { createAuthor(input: {name: "Hans (de)", born: 1960}, locale: "de") { _id name _locale status } }',
      );
      expect(created.createAuthor).to.include({ name: 'Hans (de)', _locale: 'de', status: 'draft' });
      const id = created.createAuthor._id;
      const updated = await graphqlData(
        t,
        `mutation { updateAuthor(_id: "${id}", input: {bio: "Dichter"}, locale: "de") { name bio _locale } }`,
      );
      expect(updated.updateAuthor).to.deep.equal({ name: 'Hans (de)', bio: 'Dichter', _locale: 'de' });
      const published = await graphqlData(
        t,
        `mutation { setAuthorStatus(_id: "${id}", status: published, locale: "de") { status _locale } }`,
      );
      expect(published.setAuthorStatus).to.deep.equal({ status: 'published', _locale: 'de' });
      const en = await dataOf(await as(t, 'editor').get(`/api/collections/authors/${id}`));
      expect(en).to.include({ name: null, bio: null, born: 1960, status: 'draft' });
      const res = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: { query: `mutation { updateAuthor(_id: "${id}", input: {bio: "x"}, locale: "zz") { name } }` },
      });
      const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      expect(body.errors?.[0]?.extensions?.code).to.equal('VALIDATION_ERROR');
    });

    it('a preview link shows the entry in the locale it was made in', async function () {
      const make = async (body: object) =>
        dataOf(await t.request(`/api/collections/books/${book}/preview-links`, { method: 'POST', identity: 'editor', json: body }), 201);
      const de = await make({ expiresInHours: 1, locale: 'DE' });
      const view = await dataOf(await t.request(`/api/preview/${de.token}`));
      expect(view.locale).to.equal('de');
      const fields = Object.fromEntries(view.fields.map((f: Entry) => [f.name, f]));
      expect(fields.title.value).to.equal('Buch');
      expect(view.entry.title).to.equal('Buch');
      expect(fields.author.relation).to.deep.equal({ collection: 'authors', title: 'Anna (de)' });
      // It follows later writes in that locale.
      await dataOf(await as(t, 'editor').patch(`/api/collections/books/${book}?locale=de`, { title: 'Buch, neu' }));
      expect((await dataOf(await t.request(`/api/preview/${de.token}`))).entry.title).to.equal('Buch, neu');
      // Without a locale: the default's.
      const en = await dataOf(await t.request(`/api/preview/${(await make({})).token}`));
      expect(en.locale).to.equal('en');
      expect(en.entry.title).to.equal('Book');
      for (const locale of ['zz', '*'])
        expect(
          (
            await failureOf(
              await t.request(`/api/collections/books/${book}/preview-links`, { method: 'POST', identity: 'editor', json: { locale } }),
              400,
            )
          ).error,
        ).to.equal('VALIDATION_ERROR');
      // A link whose locale was deleted since shows the default's values.
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'fr' }), 201);
      await dataOf(await as(t, 'editor').patch(`/api/collections/books/${book}?locale=fr`, { title: 'Livre' }));
      const fr = await make({ locale: 'fr' });
      expect((await dataOf(await t.request(`/api/preview/${fr.token}`))).entry.title).to.equal('Livre');
      await dataOf(await as(t, 'admin').delete('/api/locales/fr'));
      const gone = await dataOf(await t.request(`/api/preview/${fr.token}`));
      expect(gone).to.deep.include({ locale: 'en' });
      expect(gone.entry.title).to.equal('Book');
    });
  });
}
