import { expect } from 'chai';
import { as, dataOf, failureOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

// Components of API-DECISIONS "Content model v2" (collections:manage to write, content:read to read):
// GET /api/components -> data: [{name, label, fields}]; POST -> 201; GET|PATCH|DELETE /api/components/:name
// (PATCH takes the whole new field list).
const SEO_FIELDS = [
  { name: 'title', type: 'text', required: true },
  { name: 'description', type: 'text' },
];
const SEO = { name: 'seo', label: 'SEO', fields: SEO_FIELDS };

for (const variant of DB_VARIANTS) {
  describe(`content: components (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('creates, lists, reads, changes and deletes a component', async function () {
      expect(await dataOf(await as(t, 'viewer').get('/api/components'))).to.deep.equal([]);
      const made = await dataOf(await as(t, 'admin').post('/api/components', SEO), 201);
      expect(made).to.deep.equal(SEO);
      const cta = await dataOf(await as(t, 'admin').post('/api/components', { name: 'cta', fields: [{ name: 'url', type: 'text' }] }), 201);
      expect(cta.label).to.equal('Cta');
      expect((await dataOf(await as(t, 'viewer').get('/api/components'))).map((c: { name: string }) => c.name)).to.deep.equal([
        'cta',
        'seo',
      ]);
      expect(await dataOf(await as(t, 'viewer').get('/api/components/seo'))).to.deep.equal(SEO);
      const fields = [
        { name: 'title', type: 'text' },
        { name: 'noindex', type: 'boolean' },
      ];
      const changed = await dataOf(await as(t, 'admin').patch('/api/components/seo', { fields }));
      expect(changed).to.deep.equal({ name: 'seo', label: 'SEO', fields });
      expect((await dataOf(await as(t, 'viewer').get('/api/components/seo'))).fields).to.deep.equal(fields);
      expect(await dataOf(await as(t, 'admin').delete('/api/components/cta'))).to.deep.equal({ deleted: true });
      expect((await failureOf(await as(t, 'viewer').get('/api/components/cta'), 404)).error).to.equal('NOT_FOUND');
    });

    it('answers 409 for a taken name and 400 naming a bad field, and changes nothing', async function () {
      expect((await failureOf(await as(t, 'admin').post('/api/components', SEO), 409)).error).to.equal('CONFLICT');
      const bad = await failureOf(
        await as(t, 'admin').post('/api/components', { name: 'card', fields: [{ name: 'kind', type: 'select' }] }),
        400,
      );
      expect(bad.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(bad)).to.include('body.fields.0.options');
      await failureOf(await as(t, 'admin').post('/api/components', { name: 'Bad Name', fields: [{ name: 'a', type: 'text' }] }), 400);
      await failureOf(await as(t, 'admin').post('/api/components', { name: 'empty', fields: [] }), 400);
      await failureOf(await as(t, 'admin').patch('/api/components/nothing', { label: 'x' }), 404);
      expect((await dataOf(await as(t, 'viewer').get('/api/components'))).map((c: { name: string }) => c.name)).to.deep.equal(['seo']);
    });

    it('needs collections:manage to write and content:read to read', async function () {
      await failureOf(await as(t, 'editor').post('/api/components', { name: 'x', fields: [{ name: 'a', type: 'text' }] }), 403);
      await failureOf(await as(t, 'editor').patch('/api/components/seo', { label: 'x' }), 403);
      await failureOf(await as(t, 'editor').delete('/api/components/seo'), 403);
      await failureOf(await t.request('/api/components'), 401);
    });
  });
}

describe('content: components are shared by every tenant (sqlite)', function () {
  this.timeout(60000);
  it("another tenant's admin reads them but cannot change them", async function () {
    const { t, t2Cookie } = await startTwoTenantKernel('sqlite');
    try {
      await dataOf(await as(t, 'admin').post('/api/components', SEO), 201);
      const headers = { ...T2_HOST, cookie: t2Cookie };
      const read = await t.request('/api/components', { headers });
      expect((await dataOf(read)).map((c: { name: string }) => c.name)).to.deep.equal(['seo']);
      for (const [method, path] of [
        ['POST', '/api/components'],
        ['PATCH', '/api/components/seo'],
        ['DELETE', '/api/components/seo'],
      ] as const) {
        const json =
          method === 'DELETE' ? undefined : method === 'POST' ? { name: 'x', fields: [{ name: 'a', type: 'text' }] } : { label: 'x' };
        await failureOf(await t.request(path, { method, headers, json }), 403);
      }
      expect(await dataOf(await as(t, 'admin').get('/api/components/seo'))).to.deep.equal(SEO);
    } finally {
      await t.close();
    }
  });
});
