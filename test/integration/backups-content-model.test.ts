import { expect } from 'chai';
import { as, CTA_COMPONENT, dataOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, "everything that moves content carries it", for backups: a model using every new type (components
// nested in components, a repeatable component, blocks, a many-relation with an inverse field, a multiple
// select, email/url/color) survives backup -> the collections and components removed -> restore, entry by
// entry; the components come back before the collections that use them.
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`backups: a content model with components, blocks and many-relations (${variant.name})`, function () {
    this.timeout(120000);
    const t = useIdentityKernel(
      variant,
      {
        seed: async () => {
          const admin = as(t, 'admin');
          const post = async (path: string, body: unknown) => dataOf(await admin.post(path, body), 201);
          await post('/api/components', CTA_COMPONENT);
          await post('/api/components', {
            name: 'hero',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'cta', type: 'component', component: 'cta' },
            ],
          });
          await post('/api/components', { name: 'seo', fields: [{ name: 'title', type: 'text' }] });
          await post('/api/collections', { name: 'tags', fields: [{ name: 'name', type: 'text' }] });
          await post('/api/collections', {
            name: 'pages',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'seo', type: 'component', component: 'seo' },
              { name: 'links', type: 'component', component: 'cta', repeatable: true },
              { name: 'body', type: 'blocks', components: ['hero', 'cta'] },
              { name: 'tags', type: 'relation', collection: 'tags', cardinality: 'many', inverseName: 'pages' },
              { name: 'moods', type: 'select', multiple: true, options: ['calm', 'bold'] },
              { name: 'contact', type: 'email' },
              { name: 'tint', type: 'color' },
            ],
          });
          const red = (await post('/api/collections/tags', { name: 'red' }))._id;
          const blue = (await post('/api/collections/tags', { name: 'blue' }))._id;
          for (let i = 0; i < 3; i++)
            await post('/api/collections/pages', {
              title: `Page ${i}`,
              seo: { title: `SEO ${i}` },
              links: [{ label: 'Docs', url: 'https://example.org/docs' }, { label: 'Blog' }],
              body: [
                { __component: 'hero', title: `Hello ${i}`, cta: { label: 'Go', url: 'https://example.org/go' } },
                { __component: 'cta', label: 'More' },
              ],
              tags: i === 0 ? [blue, red] : [red],
              moods: ['bold', 'calm'],
              contact: 'team@example.org',
              tint: '#336699',
            });
        },
      },
      { config: { plugins: { options: { backups: { retentionCount: 3 } } } } },
    );
    const read = async () => {
      const admin = as(t, 'admin');
      const pages = (await dataOf(await admin.get('/api/collections/pages?sort=title&limit=100'))).items as Entry[];
      const tags = (await dataOf(await admin.get('/api/collections/tags?sort=name&limit=100'))).items as Entry[];
      const components = (await dataOf(await admin.get('/api/components'))) as Entry[];
      const schema = (await dataOf(await admin.get('/api/collections/pages/schema'))).fields;
      return { pages, tags, components, schema };
    };
    const call = async (path: string, body: unknown) => {
      const res = await as(t, 'admin').post(path, body);
      const json = await res.json();
      expect(res.status, JSON.stringify(json)).to.equal(200);
      return json.data;
    };

    it('restores the components, the collection using them and every value exactly', async function () {
      const before = await read();
      expect(before.pages).to.have.length(3);
      expect(before.tags.find((x) => x.name === 'red')!.pages).to.have.length(3);
      const { backupId } = await call('/api/backups/create', {});
      // Lose the model: the collection, then its components (no longer used).
      const admin = as(t, 'admin');
      expect((await admin.delete('/api/collections/pages/schema')).status).to.be.oneOf([200, 204]);
      for (const name of ['hero', 'cta', 'seo']) expect((await admin.delete(`/api/components/${name}`)).status).to.be.oneOf([200, 204]);
      expect(await dataOf(await admin.get('/api/components'))).to.deep.equal([]);

      const plan = await call('/api/backups/restore-plan', { backupId });
      expect(plan.blockedReasons).to.deep.equal([]);
      const ops = plan.operations.map((o: Entry) => `${o.action} ${o.type} ${o.target}`);
      // Used components before their users, all before the collection that needs them.
      expect(ops.indexOf('create component cta')).to.be.lessThan(ops.indexOf('create component hero'));
      expect(ops.indexOf('create component hero')).to.be.lessThan(ops.indexOf('create collection pages'));
      expect(ops.indexOf('create component seo')).to.be.lessThan(ops.indexOf('create collection pages'));
      const done = await call('/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect(done.outcome).to.equal('success');

      const after = await read();
      expect(after.components.map((c) => [c.name, c.fields])).to.deep.equal(before.components.map((c) => [c.name, c.fields]));
      expect(after.schema).to.deep.equal(before.schema);
      expect(after.pages).to.deep.equal(before.pages);
      expect(after.tags).to.deep.equal(before.tags);
      // The restored components validate again: a page with a bad url inside a block is refused naming the path.
      const bad = await admin.post('/api/collections/pages', { body: [{ __component: 'hero', cta: { label: 'x', url: 'nope' } }] });
      expect(bad.status).to.equal(400);
      expect(JSON.stringify(await bad.json())).to.include('body.body.0.cta.url');
    });

    it('a component changed after the backup is put back as it was (an update, with an undo)', async function () {
      const admin = as(t, 'admin');
      const { backupId } = await call('/api/backups/create', {});
      const seo = await dataOf(await admin.get('/api/components/seo'));
      await dataOf(await admin.patch('/api/components/seo', { fields: [...seo.fields, { name: 'keywords', type: 'text' }] }));
      const plan = await call('/api/backups/restore-plan', { backupId });
      expect(plan.operations.map((o: Entry) => `${o.action} ${o.type} ${o.target}`)).to.include('update component seo');
      expect(plan.operations.filter((o: Entry) => o.type === 'component')).to.have.length(1);
      await call('/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect((await dataOf(await admin.get('/api/components/seo'))).fields).to.deep.equal(seo.fields);
    });

    it('puts the locales back as they were (one operation, first, with an undo); a backup with the same locales plans none', async function () {
      const admin = as(t, 'admin');
      await dataOf(await admin.post('/api/locales', { code: 'de', name: 'Deutsch' }), 201);
      await dataOf(await admin.post('/api/locales', { code: 'de-AT', fallback: 'de' }), 201);
      const saved = await dataOf(await admin.get('/api/locales'));
      const { backupId } = await call('/api/backups/create', {});
      const same = await call('/api/backups/restore-plan', { backupId });
      expect(same.operations.filter((o: Entry) => o.type === 'locales')).to.deep.equal([]);
      // Change them after the backup: another default, a locale gone, a new one.
      await dataOf(await admin.patch('/api/locales/de', { isDefault: true }));
      await dataOf(await admin.delete('/api/locales/de-AT'));
      await dataOf(await admin.post('/api/locales', { code: 'fr' }), 201);
      const plan = await call('/api/backups/restore-plan', { backupId });
      const ops = plan.operations.map((o: Entry) => `${o.action} ${o.type} ${o.target}`);
      expect(ops[0]).to.equal('update locales locales');
      await call('/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect(await dataOf(await admin.get('/api/locales'))).to.deep.equal(saved);
    });
  });
}
