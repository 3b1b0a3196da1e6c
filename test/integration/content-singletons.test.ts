import { expect } from 'chai';
import { as, dataOf, failureOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Singletons of API-DECISIONS "Content model v2": POST /api/collections {..., singleton: true};
// GET .../single -> the one entry (404 NOT_FOUND before it is written); PUT .../single writes it (201 the first
// time, then 200); its list has at most one item.
const SITE = {
  name: 'site_settings',
  singular: 'site_setting',
  singleton: true,
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'tagline', type: 'text' },
    { name: 'postsPerPage', type: 'number' },
  ],
};

for (const variant of DB_VARIANTS) {
  describe(`content: singletons (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      {
        variant,
        seed: async () => {
          const made = await dataOf(await as(t, 'admin').post('/api/collections', SITE), 201);
          expect(made.singleton).to.equal(true);
          await dataOf(await as(t, 'admin').post('/api/collections', { name: 'pages', fields: [{ name: 'title', type: 'text' }] }), 201);
        },
      },
    );

    it('answers 404 NOT_FOUND before the entry is written, then 201, then 200 with the fields replaced', async function () {
      expect((await failureOf(await as(t, 'editor').get('/api/collections/site_settings/single'), 404)).error).to.equal('ENTRY_NOT_FOUND');
      const first = await t.request('/api/collections/site_settings/single', {
        method: 'PUT',
        identity: 'editor',
        json: { title: 'My site', tagline: 'Hello', postsPerPage: 10, status: 'published' },
      });
      const created = await dataOf(first, 201);
      expect(created).to.include({ title: 'My site', tagline: 'Hello', postsPerPage: 10, status: 'published' });
      const second = await t.request('/api/collections/site_settings/single', {
        method: 'PUT',
        identity: 'editor',
        json: { title: 'Renamed', postsPerPage: 20 },
      });
      const updated = await dataOf(second, 200);
      expect(updated._id).to.equal(created._id);
      // PUT replaces: the tagline left out is emptied; the status is kept.
      expect(updated).to.include({ title: 'Renamed', tagline: null, postsPerPage: 20, status: 'published', version: 2 });
      expect(await dataOf(await as(t, 'editor').get('/api/collections/site_settings/single'))).to.deep.equal(updated);
      expect(await dataOf(await as(t, 'editor').get('/api/collections/site_settings/single?fields=title'))).to.deep.equal({
        _id: created._id,
        title: 'Renamed',
        _locale: 'en',
        _locales: ['en'],
      });
    });

    it('keeps one entry: a POST of a second is 409 CONFLICT, and the list has one item', async function () {
      const res = await as(t, 'editor').post('/api/collections/site_settings', { title: 'Another' });
      const body = await failureOf(res, 409);
      expect(body.error).to.equal('CONFLICT');
      expect(body.message).to.include('PUT /api/collections/site_settings/single');
      const list = await dataOf(await as(t, 'editor').get('/api/collections/site_settings'));
      expect(list.total).to.equal(1);
      expect(list.items).to.have.length(1);
    });

    it('checks the body like any write: a required field left out is a 400 naming it', async function () {
      const res = await t.request('/api/collections/site_settings/single', { method: 'PUT', identity: 'editor', json: { tagline: 'x' } });
      const body = await failureOf(res, 400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(body)).to.include('title');
      expect((await dataOf(await as(t, 'editor').get('/api/collections/site_settings/single'))).title).to.equal('Renamed');
    });

    it('is one entry per tenant, and a reader without content:write sees it only when published', async function () {
      const other = as(t, 'editor', 'tenant-b');
      expect((await failureOf(await other.get('/api/collections/site_settings/single'), 404)).error).to.equal('ENTRY_NOT_FOUND');
      const put = await t.request('/api/collections/site_settings/single', {
        method: 'PUT',
        identity: 'editor',
        headers: { 'x-test-tenant': 'tenant-b' },
        json: { title: 'B site' },
      });
      expect((await dataOf(put, 201)).status).to.equal('draft');
      expect((await failureOf(await as(t, 'viewer', 'tenant-b').get('/api/collections/site_settings/single'), 404)).error).to.equal(
        'ENTRY_NOT_FOUND',
      );
      expect((await dataOf(await as(t, 'viewer').get('/api/collections/site_settings/single'))).title).to.equal('Renamed');
    });

    it('answers 404 for .../single of a collection that is not a singleton, and 403 for PUT without content:write', async function () {
      const body = await failureOf(await as(t, 'editor').get('/api/collections/pages/single'), 404);
      expect(body.error).to.equal('NOT_FOUND');
      expect(body.message).to.include('not a singleton');
      await failureOf(
        await t.request('/api/collections/site_settings/single', { method: 'PUT', identity: 'viewer', json: { title: 'x' } }),
        403,
      );
    });

    it('GraphQL reads the one entry without an id (null before it is written)', async function () {
      const query = (field: string, tenant?: string) =>
        t.request('/api/graphql', {
          method: 'POST',
          identity: 'editor',
          headers: tenant ? { 'x-test-tenant': tenant } : {},
          json: { query: `{ ${field} { _id title tagline } }` },
        });
      const body = await (await query('siteSetting')).json();
      expect(body.errors).to.equal(undefined);
      expect(body.data.siteSetting).to.deep.include({ title: 'Renamed', tagline: null });
      const empty = await (await query('siteSetting', 'tenant-c')).json();
      expect(empty.errors).to.equal(undefined);
      expect(empty.data.siteSetting).to.equal(null);
    });

    it('two first writes at once leave one entry', async function () {
      await dataOf(await as(t, 'admin').post('/api/collections', { ...SITE, name: 'footer', singular: 'footer_item' }), 201);
      const put = (title: string) => t.request('/api/collections/footer/single', { method: 'PUT', identity: 'editor', json: { title } });
      const answers = await Promise.all([put('a'), put('b'), put('c')]);
      expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 200, 201]);
      const list = await dataOf(await as(t, 'editor').get('/api/collections/footer'));
      expect(list.total).to.equal(1);
    });
  });
}
