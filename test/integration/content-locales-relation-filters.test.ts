import { expect } from 'chai';
import { as, createCollections, dataOf, failureOf, graphqlData } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Lists in a locale filter by relation paths (`author.name`, `author.country.name`, a many-relation, an inverse field,
// a localized relation) with the target's values in that locale and its fallback chain, as reads answer them; callers
// who see published entries only reach only targets published in that locale (as populated reads hide the others).
const COUNTRIES = { name: 'countries', fields: [{ name: 'name', type: 'text', required: true, localized: true }] };
const AUTHORS = {
  name: 'authors',
  fields: [
    { name: 'name', type: 'text', required: true, localized: true },
    { name: 'notes', type: 'json', localized: true },
    { name: 'country', type: 'relation', collection: 'countries' },
  ],
};
const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'headline', type: 'text', localized: true },
    { name: 'author', type: 'relation', collection: 'authors', inverseName: 'posts' },
    { name: 'coauthors', type: 'relation', collection: 'authors', cardinality: 'many' },
    { name: 'editor', type: 'relation', collection: 'authors', localized: true },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: relation paths in a locale filter by the targets' values there (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const ids: Record<string, string> = {};

    const titles = async (collection: string, locale: string, filter: unknown, who = 'editor') => {
      const query = `${locale ? `locale=${locale}&` : ''}sort=createdAt&filter=${encodeURIComponent(JSON.stringify(filter))}`;
      const data = await dataOf(await as(t, who).get(`/api/collections/${collection}?${query}`));
      return data.items.map((e: Entry) => e.title ?? e._id);
    };
    const posts = (locale: string, filter: unknown, who = 'editor') => titles('posts', locale, filter, who);

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-CH', fallback: 'de' }), 201);
      await createCollections(t, COUNTRIES, AUTHORS, POSTS);
      const editor = as(t, 'editor');
      const make = async (collection: string, key: string, body: Entry) =>
        (ids[key] = (await dataOf(await editor.post(`/api/collections/${collection}`, { ...body, status: 'published' }), 201))._id);
      const write = (collection: string, key: string, locale: string, body: Entry) =>
        editor.patch(`/api/collections/${collection}/${ids[key]}?locale=${locale}`, body).then((r) => dataOf(r));
      // Iceland is "Island" in de (published); Norway has no de version.
      await make('countries', 'is', { name: 'Iceland' });
      await write('countries', 'is', 'de', { name: 'Island', status: 'published' });
      await make('countries', 'no', { name: 'Norway' });
      // ada: "Ada (de)" published in de. bob: "Robert", a draft in de. cyd: no de version, "Cyd CH" published in de-CH.
      await make('authors', 'ada', { name: 'Ada', country: ids.is });
      await write('authors', 'ada', 'de', { name: 'Ada (de)', status: 'published' });
      await make('authors', 'bob', { name: 'Bob', country: ids.no });
      await write('authors', 'bob', 'de', { name: 'Robert' });
      await make('authors', 'cyd', { name: 'Cyd' });
      await write('authors', 'cyd', 'de-CH', { name: 'Cyd CH', status: 'published' });
      // p1's editor is bob, in de cyd; p2's is ada in every locale.
      await make('posts', 'p1', { title: 'p1', headline: 'One', author: ids.ada, coauthors: [ids.bob], editor: ids.bob });
      await make('posts', 'p2', { title: 'p2', headline: 'Two', author: ids.bob, coauthors: [ids.ada, ids.cyd], editor: ids.ada });
      await make('posts', 'p3', { title: 'p3', headline: 'Three', author: ids.cyd });
      for (const [key, headline] of [
        ['p1', 'Eins'],
        ['p2', 'Zwei'],
        ['p3', 'Drei'],
      ] as const)
        await write('posts', key, 'de', { headline, status: 'published' });
      await write('posts', 'p3', 'de-CH', { status: 'published' });
      await write('posts', 'p1', 'de', { editor: ids.cyd });
    });

    it('compares a target’s localized field in the asked locale, with the fallback chain', async function () {
      expect(await posts('', { 'author.name': 'Bob' })).to.deep.equal(['p2']);
      expect(await posts('', { 'author.name': 'Robert' })).to.deep.equal([]);
      expect(await posts('de', { 'author.name': 'Robert' })).to.deep.equal(['p2']);
      expect(await posts('de', { 'author.name': 'Bob' })).to.deep.equal([]);
      // cyd has no de version: its default name; in de-CH its own, and bob's de name through the chain.
      expect(await posts('de', { 'author.name': 'Cyd' })).to.deep.equal(['p3']);
      expect(await posts('de-CH', { 'author.name': 'Cyd CH' })).to.deep.equal(['p3']);
      expect(await posts('de-CH', { 'author.name': { in: ['Robert', 'Ada'] } })).to.deep.equal(['p2']);
      expect(await posts('de', { 'author.name': { startsWith: 'ada' } })).to.deep.equal(['p1']);
      expect(await posts('de', { $not: { 'author.name': { contains: 'Ro' } } })).to.deep.equal(['p1', 'p3']);
      expect(await posts('*', { 'author.name': 'Bob' })).to.deep.equal(['p2']);
      expect(await posts('en', { 'author.name': 'Bob' })).to.deep.equal(['p2']);
    });

    it('two levels deep, many-relations and inverse fields alike', async function () {
      expect(await posts('de', { 'author.country.name': 'Island' })).to.deep.equal(['p1']);
      expect(await posts('de', { 'author.country.name': 'Iceland' })).to.deep.equal([]);
      expect(await posts('de', { 'author.country.name': 'Norway' })).to.deep.equal(['p2']);
      expect(await posts('de', { 'coauthors.name': 'Robert' })).to.deep.equal(['p1']);
      expect(await posts('de', { 'coauthors.name': { startsWith: 'Ada (' } })).to.deep.equal(['p2']);
      expect(await posts('de-CH', { 'coauthors.name': 'Cyd CH' })).to.deep.equal(['p2']);
      const authors = async (locale: string, filter: unknown) =>
        (await titles('authors', locale, filter)).map((id: string) => Object.keys(ids).find((k) => ids[k] === id));
      expect(await authors('de', { 'posts.headline': 'Zwei' })).to.deep.equal(['bob']);
      expect(await authors('', { 'posts.headline': 'Zwei' })).to.deep.equal([]);
      expect(await authors('de', { 'posts.author.name': 'Robert' })).to.deep.equal(['bob']);
    });

    it('steps through a localized relation by its value in the locale', async function () {
      expect(await posts('', { 'editor.name': 'Bob' })).to.deep.equal(['p1']);
      expect(await posts('de', { 'editor.name': 'Cyd' })).to.deep.equal(['p1']);
      expect(await posts('de', { 'editor.name': 'Robert' })).to.deep.equal([]);
      // p2 has no editor of its own in de: the default's (ada), read in de.
      expect(await posts('de', { 'editor.name': 'Ada (de)' })).to.deep.equal(['p2']);
      expect(await posts('de-CH', { 'editor.name': 'Cyd CH' })).to.deep.equal(['p1']);
    });

    it('callers who see published entries only reach only targets published in the locale', async function () {
      // bob's de version is a draft, cyd has none: in de they are hidden from a viewer, as populated reads hide them.
      expect(await posts('de', { 'author.name': 'Ada (de)' }, 'viewer')).to.deep.equal(['p1']);
      expect(await posts('de', { 'author.name': { in: ['Robert', 'Bob', 'Cyd'] } }, 'viewer')).to.deep.equal([]);
      expect(await posts('de-CH', { 'author.name': 'Cyd CH' }, 'viewer')).to.deep.equal(['p3']);
      expect(await posts('de-CH', { 'author.name': { in: ['Bob', 'Robert', 'Ada (de)'] } }, 'viewer')).to.deep.equal([]);
      expect(await posts('de', { 'author.country.name': { null: false } }, 'viewer')).to.deep.equal(['p1']);
      expect(await posts('de', { 'author.country.name': 'Island' }, 'viewer')).to.deep.equal(['p1']);
      expect(await posts('', { 'author.country.name': 'Norway' }, 'viewer')).to.deep.equal(['p2']);
      const populated = await dataOf(await as(t, 'viewer').get(`/api/collections/posts?locale=de&sort=createdAt&populate=author`));
      expect(populated.items.map((e: Entry) => e.author?.name ?? null)).to.deep.equal(['Ada (de)', null, null]);
    });

    it('a changed translation of a target changes the filtered list; refusals and GraphQL lists alike', async function () {
      expect(await posts('de', { 'author.name': 'Ada (de)' })).to.deep.equal(['p1']);
      await dataOf(await as(t, 'editor').patch(`/api/collections/authors/${ids.ada}?locale=de`, { name: 'Ada L.' }));
      expect(await posts('de', { 'author.name': 'Ada (de)' })).to.deep.equal([]);
      expect(await posts('de', { 'author.name': 'Ada L.' })).to.deep.equal(['p1']);
      // The default locale's lists by relation paths change too (the list cache follows the paths' collections).
      expect(await posts('', { 'author.name': 'Bob' })).to.deep.equal(['p2']);
      await dataOf(await as(t, 'editor').patch(`/api/collections/authors/${ids.bob}`, { name: 'Bobby' }));
      expect(await posts('', { 'author.name': 'Bob' })).to.deep.equal([]);
      expect(await posts('', { 'author.country.name': 'Norway' })).to.deep.equal(['p2']);
      await dataOf(await as(t, 'editor').patch(`/api/collections/countries/${ids.no}`, { name: 'Norge' }));
      expect(await posts('', { 'author.country.name': 'Norway' })).to.deep.equal([]);
      const refused = await failureOf(
        await as(t, 'editor').get(`/api/collections/posts?locale=de&filter=${encodeURIComponent('{"author.notes":{"null":true}}')}`),
        400,
      );
      expect(refused.error).to.equal('VALIDATION_ERROR');
      expect(refused.message).to.include("localized json field 'author.notes' in a locale other than the default");
      const filter = JSON.stringify(JSON.stringify({ 'author.name': 'Robert' }));
      const gql = await graphqlData(t, `{ posts(locale: "de", sort: "createdAt", filter: ${filter}) { total items { title headline } } }`);
      expect(gql.posts).to.deep.equal({ total: 1, items: [{ title: 'p2', headline: 'Zwei' }] });
    });
  });
}
