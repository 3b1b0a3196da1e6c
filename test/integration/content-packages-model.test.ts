import { expect } from 'chai';
import { as, CTA_COMPONENT, dataOf, planPackageImport } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, "everything that moves content carries it", for content packages: a model using components,
// blocks, a many-relation (with an inverse field), a multiple select and the new text types goes through
// export -> import into another tenant; every entry compares equal field by field, the many-relation pointing
// at the other tenant's copies in the same order; importing again changes nothing.
type Entry = Record<string, any>;
const SYSTEM = ['_id', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy', 'version'];
const plain = (e: Entry) => Object.fromEntries(Object.entries(e).filter(([k]) => !SYSTEM.includes(k)));

for (const variant of DB_VARIANTS) {
  describe(`content packages: components, blocks and many-relations round-trip (${variant.name})`, function () {
    this.timeout(120000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        const post = async (path: string, body: unknown) => dataOf(await admin.post(path, body), 201);
        await post('/api/components', CTA_COMPONENT);
        await post('/api/collections', { name: 'pktags', fields: [{ name: 'name', type: 'text' }] });
        await post('/api/collections', {
          name: 'pkpages',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'links', type: 'component', component: 'cta', repeatable: true },
            { name: 'body', type: 'blocks', components: ['cta'] },
            { name: 'tags', type: 'relation', collection: 'pktags', cardinality: 'many', inverseName: 'pages' },
            { name: 'moods', type: 'select', multiple: true, options: ['calm', 'bold'] },
            { name: 'tint', type: 'color' },
          ],
        });
        const ids: string[] = [];
        for (const name of ['red', 'green', 'blue']) ids.push((await post('/api/collections/pktags', { name, status: 'published' }))._id);
        await post('/api/collections/pkpages', {
          title: 'Home',
          status: 'published',
          links: [{ label: 'Docs', url: 'https://example.org/docs' }, { label: 'Blog' }],
          body: [{ __component: 'cta', label: 'Start', url: 'https://example.org/start' }],
          tags: [ids[2], ids[0]],
          moods: ['bold'],
          tint: '#112233',
        });
        await post('/api/collections/pkpages', { title: 'Empty', status: 'published', tags: [] });
      },
    });

    const list = async (who: ReturnType<typeof as>, name: string) =>
      (await dataOf(await who.get(`/api/collections/${name}?sort=slug&limit=100`))).items as Entry[];
    /** The package of pktags and pkpages, exported by the default tenant's admin. */
    const exported = async () => {
      const admin = as(t, 'admin');
      const exportPlan = await dataOf(await admin.post('/api/content-export/plan', { collections: ['pktags', 'pkpages'] }));
      const run = await admin.post('/api/content-export/run', { planId: exportPlan.planId, planHash: exportPlan.planHash });
      const runData = (await run.json()).data;
      expect(run.status, JSON.stringify(runData)).to.equal(200);
      return Buffer.from(await (await t.request(runData.downloadUrl, { identity: 'admin' })).arrayBuffer());
    };

    it('exports and imports into another tenant entry by entry, relations remapped in order', async function () {
      const admin = as(t, 'admin');
      const bytes = await exported();
      const other = as(t, 'admin', 'other');
      const plan = async () => (await planPackageImport(t, bytes, 'other')).plan;
      const p = await plan();
      expect(p.blockedReasons).to.deep.equal([]);
      const applied = (await (await other.post('/api/content-import/apply', { planId: p.planId })).json()).data;
      expect(applied.outcome, JSON.stringify(applied)).to.equal('success');

      const [tagsHere, tagsThere] = [await list(admin, 'pktags'), await list(other, 'pktags')];
      const [pagesHere, pagesThere] = [await list(admin, 'pkpages'), await list(other, 'pkpages')];
      const thereIdOf = (hereId: string) => tagsThere.find((x) => x.syncId === tagsHere.find((y) => y._id === hereId)!.syncId)!._id;
      expect(pagesThere.map(plain)).to.deep.equal(pagesHere.map((e) => ({ ...plain(e), tags: e.tags.map(thereIdOf) })));
      const pageThere = (hereId: string) => pagesThere.find((x) => x.syncId === pagesHere.find((y) => y._id === hereId)!.syncId)!._id;
      expect(tagsThere.map(plain)).to.deep.equal(tagsHere.map((e) => ({ ...plain(e), pages: e.pages.map(pageThere) })));
      expect((await plan()).summary).to.include({ created: 0, updated: 0, deleted: 0 });
    });

    it('carries the components: an instance without them gets them created, one that differs is refused', async function () {
      const admin = as(t, 'admin');
      const bytes = await exported();
      const before = await list(admin, 'pkpages');
      // The target lacks the model: the collections and the component go (as on a fresh instance).
      for (const name of ['pkpages', 'pktags']) await dataOf(await admin.delete(`/api/collections/${name}/schema`));
      await dataOf(await admin.delete('/api/components/cta'));
      // A component of that name with other fields: the plan is blocked, naming the fields the package's has.
      await dataOf(await admin.post('/api/components', { name: 'cta', fields: [{ name: 'caption', type: 'text' }] }), 201);
      const blocked = (await planPackageImport(t, bytes, 'default')).plan;
      expect(blocked.blockedReasons.join(' ')).to.match(/component 'cta': fields label, url are in the package but not here/);
      await dataOf(await admin.delete('/api/components/cta'));

      const p = (await planPackageImport(t, bytes, 'default')).plan;
      expect(p.blockedReasons).to.deep.equal([]);
      expect(p.operations.filter((o: any) => o.type === 'component').map((o: any) => [o.action, o.target])).to.deep.equal([
        ['create', 'cta'],
      ]);
      const applied = (await (await admin.post('/api/content-import/apply', { planId: p.planId })).json()).data;
      expect(applied.outcome, JSON.stringify(applied)).to.equal('success');
      const cta = await dataOf(await admin.get('/api/components/cta'));
      expect(cta.fields.map((f: any) => [f.name, f.type])).to.deep.equal(CTA_COMPONENT.fields.map((f) => [f.name, f.type]));
      const after = await list(admin, 'pkpages');
      const fieldsOf = (e: Entry) => ({ slug: e.slug, title: e.title, links: e.links, body: e.body, moods: e.moods, tint: e.tint });
      expect(after.map(fieldsOf)).to.deep.equal(before.map(fieldsOf));
    });
  });
}
