import { expect } from 'chai';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// The list query of API-DECISIONS "Content model v2": filter groups ($or, $and, $not), the operators nin,
// startsWith and null, `fields=` on lists and single reads, and 400s naming unknown paths and operators.
const BOOKS = {
  name: 'books',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'genre', type: 'select', options: ['novel', 'poetry', 'essay'] },
    { name: 'pages', type: 'number' },
    { name: 'blurb', type: 'richtext' },
  ],
};
const ROWS: Array<Record<string, unknown>> = [
  { title: 'Middlemarch', genre: 'novel', pages: 880 },
  { title: 'Mrs Dalloway', genre: 'novel', pages: 194 },
  { title: 'Leaves of Grass', genre: 'poetry', pages: 145 },
  { title: 'A Room of One’s Own', genre: 'essay', pages: 172 },
  { title: '100% Pure', genre: null, pages: null },
  { title: 'middle Way', genre: 'essay', pages: 60 },
];

type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: the list query language (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      {
        variant,
        seed: async () => {
          await dataOf(await as(t, 'admin').post('/api/collections', BOOKS), 201);
          for (const row of ROWS) await dataOf(await as(t, 'editor').post('/api/collections/books', { ...row, status: 'published' }), 201);
        },
      },
    );
    const titles = async (filter: unknown, extra = ''): Promise<string[]> => {
      const q = `limit=100&sort=title&filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`;
      const page = await dataOf(await as(t, 'editor').get(`/api/collections/books?${q}`));
      expect(page.total, 'total counts what the filter matches').to.equal(page.items.length);
      // Sorted here: the two databases order mixed case differently.
      return page.items.map((e: Entry) => e.title as string).sort();
    };
    const refused = async (filter: unknown, naming: string) => {
      const res = await as(t, 'editor').get(`/api/collections/books?filter=${encodeURIComponent(JSON.stringify(filter))}`);
      const body = await res.json();
      expect(res.status, JSON.stringify(filter)).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(body)).to.include(naming);
    };

    it('$or matches entries meeting any branch, $and all of them, $not none', async function () {
      expect(await titles({ $or: [{ genre: 'poetry' }, { pages: { gt: 800 } }] })).to.deep.equal(['Leaves of Grass', 'Middlemarch']);
      expect(await titles({ $and: [{ genre: 'novel' }, { pages: { lt: 500 } }] })).to.deep.equal(['Mrs Dalloway']);
      expect(await titles({ genre: { null: false }, $not: { genre: 'novel' } })).to.deep.equal([
        'A Room of One’s Own',
        'Leaves of Grass',
        'middle Way',
      ]);
      // Nested groups, beside a plain condition (all must hold).
      expect(
        await titles({ pages: { gte: 100 }, $or: [{ $and: [{ genre: 'essay' }, { pages: { lt: 200 } }] }, { title: 'Middlemarch' }] }),
      ).to.deep.equal(['A Room of One’s Own', 'Middlemarch']);
    });

    it('nin leaves out the listed values, null: true / false finds empty and set fields', async function () {
      expect(await titles({ genre: { nin: ['novel', 'poetry'] } })).to.deep.equal(['A Room of One’s Own', 'middle Way']);
      expect(await titles({ genre: { null: true } })).to.deep.equal(['100% Pure']);
      expect(await titles({ pages: { null: false, lt: 150 } })).to.deep.equal(['Leaves of Grass', 'middle Way']);
    });

    it('startsWith matches a prefix without case, and a % or _ in it is taken literally', async function () {
      expect(await titles({ title: { startsWith: 'middle' } })).to.deep.equal(['Middlemarch', 'middle Way']);
      expect(await titles({ title: { startsWith: '100%' } })).to.deep.equal(['100% Pure']);
      expect(await titles({ title: { startsWith: '1_0' } })).to.deep.equal([]);
      expect(await titles({ title: { startsWith: 'Way' } })).to.deep.equal([]);
    });

    it('answers 400 VALIDATION_ERROR naming an unknown field, operator or group, and a bad shape', async function () {
      await refused({ colour: 'red' }, "unknown field 'colour'");
      await refused({ title: { like: 'x' } }, "unknown operator 'like'");
      await refused({ $xor: [{ title: 'x' }] }, "unknown group '$xor'");
      await refused({ $or: [] }, '$or needs an array');
      await refused({ $or: { title: 'x' } }, '$or needs an array');
      await refused({ $not: [{ title: 'x' }] }, 'a JSON object');
      await refused({ genre: { null: 'yes' } }, 'genre.null needs true or false');
      await refused({ pages: { startsWith: '1' } }, 'pages.startsWith needs a text field');
      await refused({ genre: { nin: 'novel' } }, 'genre.nin needs an array');
      await refused({ genre: { nin: ['novel', 'drama'] } }, 'genre.nin');
      await refused({ blurb: { gt: 'a' } }, 'blurb.gt is not defined for richtext');
    });

    it('bounds the filter: nesting depth and the number of conditions', async function () {
      let deep: Record<string, unknown> = { title: 'x' };
      for (let i = 0; i < 7; i++) deep = { $not: deep };
      await refused(deep, 'groups nest at most 5 levels deep');
      const many = { $or: Array.from({ length: 20 }, () => ({ $and: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] })) };
      await refused(many, 'at most 50 conditions');
    });

    it('fields= keeps only the named fields and _id, on lists and on one entry', async function () {
      const page = await dataOf(await as(t, 'editor').get('/api/collections/books?sort=title&limit=2&fields=title,status'));
      expect(page.items).to.have.length(2);
      for (const item of page.items) expect(Object.keys(item)).to.deep.equal(['_id', 'title', 'status', '_locale', '_locales']);
      expect(page.items[0].title).to.equal('100% Pure');
      const one = await dataOf(await as(t, 'editor').get(`/api/collections/books/${page.items[1]._id}?fields=pages`));
      expect(one).to.deep.equal({ _id: page.items[1]._id, pages: 172, _locale: 'en', _locales: ['en'] });
      // The same list without fields= still answers whole entries (the selection is part of the cache key).
      const whole = await dataOf(await as(t, 'editor').get('/api/collections/books?sort=title&limit=2'));
      expect(whole.items[0]).to.include.keys('_id', 'title', 'genre', 'pages', 'blurb', 'slug', 'status', 'createdAt');
    });

    it('fields= naming an unknown field is a 400 naming it', async function () {
      for (const path of [
        '/api/collections/books?fields=title,colour',
        `/api/collections/books/00000000-0000-4000-8000-000000000001?fields=colour`,
      ]) {
        const res = await as(t, 'editor').get(path);
        const body = await res.json();
        expect(res.status, path).to.equal(400);
        expect(body.error).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(body)).to.include("unknown field 'colour'");
      }
    });

    it('GraphQL lists take the same filter language', async function () {
      const res = await as(t, 'editor').post('/api/graphql', {
        query: 'query($f: JSON) { books(filter: $f, sort: "title") { items { title } total } }',
        variables: { f: { $or: [{ genre: 'poetry' }, { title: { startsWith: 'mrs' } }] } },
      });
      const body = await res.json();
      expect(res.status).to.equal(200);
      expect(body.errors).to.equal(undefined);
      expect(body.data.books.items.map((e: Entry) => e.title).sort()).to.deep.equal(['Leaves of Grass', 'Mrs Dalloway']);
    });
  });
}
