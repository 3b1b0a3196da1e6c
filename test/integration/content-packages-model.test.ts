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

    it('exports and imports into another tenant entry by entry, relations remapped in order', async function () {
      const admin = as(t, 'admin');
      const exportPlan = await dataOf(await admin.post('/api/content-export/plan', { collections: ['pktags', 'pkpages'] }));
      const run = await admin.post('/api/content-export/run', { planId: exportPlan.planId, planHash: exportPlan.planHash });
      const runData = (await run.json()).data;
      expect(run.status, JSON.stringify(runData)).to.equal(200);
      const bytes = Buffer.from(await (await t.request(runData.downloadUrl, { identity: 'admin' })).arrayBuffer());
      const other = as(t, 'admin', 'other');
      const plan = async () => (await planPackageImport(t, bytes, 'other')).plan;
      const p = await plan();
      expect(p.blockedReasons).to.deep.equal([]);
      const applied = (await (await other.post('/api/content-import/apply', { planId: p.planId })).json()).data;
      expect(applied.outcome, JSON.stringify(applied)).to.equal('success');

      const list = async (who: ReturnType<typeof as>, name: string) =>
        (await dataOf(await who.get(`/api/collections/${name}?sort=slug&limit=100`))).items as Entry[];
      const [tagsHere, tagsThere] = [await list(admin, 'pktags'), await list(other, 'pktags')];
      const [pagesHere, pagesThere] = [await list(admin, 'pkpages'), await list(other, 'pkpages')];
      const thereIdOf = (hereId: string) => tagsThere.find((x) => x.syncId === tagsHere.find((y) => y._id === hereId)!.syncId)!._id;
      expect(pagesThere.map(plain)).to.deep.equal(pagesHere.map((e) => ({ ...plain(e), tags: e.tags.map(thereIdOf) })));
      const pageThere = (hereId: string) => pagesThere.find((x) => x.syncId === pagesHere.find((y) => y._id === hereId)!.syncId)!._id;
      expect(tagsThere.map(plain)).to.deep.equal(tagsHere.map((e) => ({ ...plain(e), pages: e.pages.map(pageThere) })));
      expect((await plan()).summary).to.include({ created: 0, updated: 0, deleted: 0 });
    });
  });
}
