import { expect } from 'chai';
import { as, createCollections, dataOf, failureOf, graphqlData } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// API-DECISIONS "Locales": a read in a locale answers that locale's values with the fallback chain. Lists in a locale
// sort, filter and search localized fields by those same values, in SQL (pages and totals right).
const PRODUCTS = {
  name: 'products',
  fields: [
    { name: 'name', type: 'text', required: true, localized: true },
    { name: 'blurb', type: 'text', localized: true },
    { name: 'rank', type: 'number', localized: true },
    { name: 'on', type: 'date', localized: true },
    { name: 'active', type: 'boolean', localized: true },
    { name: 'extra', type: 'json', localized: true },
    { name: 'sku', type: 'text' },
  ],
};
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: lists in a locale sort, filter and search localized values (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const ids: Record<string, string> = {};
    const names: Record<string, string> = {};

    const list = async (query: string, who = 'editor') => {
      const data = await dataOf(await as(t, who).get(`/api/collections/products?${query}`));
      return { skus: data.items.map((e: Entry) => e.sku), total: data.total, items: data.items as Entry[] };
    };
    const filtered = async (locale: string, filter: unknown, who = 'editor') =>
      (await list(`${locale ? `locale=${locale}&` : ''}sort=sku&filter=${encodeURIComponent(JSON.stringify(filter))}`, who)).skus;

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de-CH', fallback: 'de' }), 201);
      await createCollections(t, PRODUCTS);
      const en = [
        { sku: 'a', name: 'Apple', blurb: 'crunchy fruit', rank: 1, on: '2026-01-01T00:00:00.000Z', active: true },
        { sku: 'b', name: 'Banana', rank: 2, on: '2026-02-01T00:00:00.000Z', active: false },
        { sku: 'c', name: 'Cherry', rank: 3, active: true },
        { sku: 'd', name: 'Date', rank: 4 },
      ];
      for (const body of en) {
        const made = await dataOf(await as(t, 'editor').post('/api/collections/products', { ...body, status: 'published' }), 201);
        ids[body.sku] = made._id;
        names[made._id] = body.sku;
      }
      const write = (sku: string, locale: string, body: Record<string, unknown>) =>
        as(t, 'editor')
          .patch(`/api/collections/products/${ids[sku]}?locale=${locale}`, body)
          .then((r) => dataOf(r));
      await write('a', 'de', { name: 'Zwetschge', blurb: 'knackig', rank: 40, status: 'published' });
      await write('b', 'de', { name: 'Birne', on: '2025-01-01T00:00:00.000Z', active: true, status: 'published' });
      await write('d', 'de', { name: 'Dattel', rank: 0 });
      await write('d', 'de-CH', { name: 'Aprikose', status: 'published' });
    });

    it('sorts by the locale’s values with the fallback chain, with pages and totals right', async function () {
      expect((await list('sort=name')).skus).to.deep.equal(['a', 'b', 'c', 'd']);
      expect((await list('locale=de&sort=name')).skus).to.deep.equal(['b', 'c', 'd', 'a']);
      expect((await list('locale=de-CH&sort=name')).skus).to.deep.equal(['d', 'b', 'c', 'a']);
      expect((await list('locale=de&sort=-rank')).skus).to.deep.equal(['a', 'c', 'b', 'd']);
      const page = await list('locale=de&sort=-rank&limit=2&page=2');
      expect(page.skus).to.deep.equal(['b', 'd']);
      expect(page.total).to.equal(4);
      expect(page.items.map((e) => e.rank)).to.deep.equal([2, 0]);
      expect((await list('locale=de&sort=on,sku')).skus).to.deep.equal(['c', 'd', 'b', 'a']);
    });

    it('filters by the locale’s values: text, numbers, booleans, dates and null, in groups too', async function () {
      expect(await filtered('', { name: 'Birne' })).to.deep.equal([]);
      expect(await filtered('de', { name: 'Birne' })).to.deep.equal(['b']);
      expect(await filtered('de-CH', { name: 'Birne' })).to.deep.equal(['b']);
      expect(await filtered('de', { name: { startsWith: 'zw' } })).to.deep.equal(['a']);
      expect(await filtered('de', { name: { contains: 'att' } })).to.deep.equal(['d']);
      expect(await filtered('de', { name: { in: ['Cherry', 'Dattel', 'Date'] } })).to.deep.equal(['c', 'd']);
      expect(await filtered('', { rank: { gte: 3 } })).to.deep.equal(['c', 'd']);
      expect(await filtered('de', { rank: { gte: 3 } })).to.deep.equal(['a', 'c']);
      expect(await filtered('', { active: true })).to.deep.equal(['a', 'c']);
      expect(await filtered('de', { active: true })).to.deep.equal(['a', 'b', 'c']);
      expect(await filtered('', { on: { lt: '2025-06-01T00:00:00.000Z' } })).to.deep.equal([]);
      expect(await filtered('de', { on: { lt: '2025-06-01T00:00:00.000Z' } })).to.deep.equal(['b']);
      expect(await filtered('de', { on: '2025-01-01T00:00:00.000Z' })).to.deep.equal(['b']);
      expect(await filtered('de', { on: { null: true } })).to.deep.equal(['c', 'd']);
      expect(await filtered('de', { $or: [{ name: 'Zwetschge' }, { rank: 0 }] })).to.deep.equal(['a', 'd']);
      expect(await filtered('de', { $not: { name: { startsWith: 'b' } }, sku: { ne: 'c' } })).to.deep.equal(['a', 'd']);
      // Another tenant's administrator finds none of them through the locale's values.
      const acme = await dataOf(
        await as(t, 'admin', 'acme').get(`/api/collections/products?locale=de&filter=${encodeURIComponent('{"name":"Birne"}')}`),
      );
      expect(acme.items).to.deep.equal([]);
      const counted = await list(`locale=de&filter=${encodeURIComponent(JSON.stringify({ rank: { lt: 3 } }))}&limit=1`);
      expect(counted.total).to.equal(2);
    });

    it('searches the locale’s values', async function () {
      expect((await list('search=crunchy')).skus).to.deep.equal(['a']);
      expect((await list('locale=de&search=crunchy')).skus).to.deep.equal([]);
      expect((await list('locale=de&search=KNACKIG')).skus).to.deep.equal(['a']);
      expect((await list('locale=de-CH&search=knackig')).skus).to.deep.equal(['a']);
      expect((await list('locale=de&search=cherry')).skus).to.deep.equal(['c']);
    });

    it('callers who see published entries only: versions that are not published take no part in the chain', async function () {
      // d's de version is a draft: for a viewer in de-CH, d's rank falls back past it to the default's (4).
      expect(await filtered('de-CH', { rank: 0 })).to.deep.equal(['d']);
      expect(await filtered('de-CH', { rank: 0 }, 'viewer')).to.deep.equal([]);
      expect(await filtered('de-CH', { rank: 4 }, 'viewer')).to.deep.equal(['d']);
      // Only entries published in the locale are listed for them (b and a in de; d's de version is a draft).
      expect((await list('locale=de&sort=name', 'viewer')).skus).to.deep.equal(['b', 'a']);
    });

    it('refuses what SQL cannot compare in a locale; * and the default use the default values; GraphQL lists alike', async function () {
      for (const query of [`filter=${encodeURIComponent('{"extra":{"null":true}}')}`, 'sort=extra']) {
        const failure = await failureOf(await as(t, 'editor').get(`/api/collections/products?locale=de&${query}`), 400);
        expect(failure.error, query).to.equal('VALIDATION_ERROR');
      }
      const inLocale = await failureOf(
        await as(t, 'editor').get(`/api/collections/products?locale=de&filter=${encodeURIComponent('{"extra":{"null":true}}')}`),
        400,
      );
      expect(inLocale.message).to.include("localized json field 'extra' in a locale other than the default");
      expect((await list('locale=*&sort=name')).skus).to.deep.equal(['a', 'b', 'c', 'd']);
      expect((await list('locale=en&sort=name')).skus).to.deep.equal(['a', 'b', 'c', 'd']);
      const gql = await graphqlData(t, '{ products(locale: "de", sort: "name", filter: {rank: {lte: 3}}) { total items { sku name } } }');
      expect(gql.products).to.deep.equal({
        total: 3,
        items: [
          { sku: 'b', name: 'Birne' },
          { sku: 'c', name: 'Cherry' },
          { sku: 'd', name: 'Dattel' },
        ],
      });
    });
  });
}
