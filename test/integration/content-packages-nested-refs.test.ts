import { expect } from 'chai';
import { as, dataOf, planPackageImport } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35: components take relation and media fields like collections do, so a package must carry the ids
// inside component and blocks values in the same portable form as top-level ones: imported into another
// tenant, a component's relation points at that tenant's copy of the entry (a many-relation in order) and its
// image at the media record carried over, never at the source tenant's ids.
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content packages: relations and media inside components (${variant.name})`, function () {
    this.timeout(120000);
    const ids: Record<string, string> = {};
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        const post = async (path: string, body: unknown) => dataOf(await admin.post(path, body), 201);
        await post('/api/collections', { name: 'nrtags', fields: [{ name: 'name', type: 'text' }] });
        await post('/api/components', {
          name: 'feature',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'main', type: 'relation', collection: 'nrtags' },
            { name: 'tags', type: 'relation', collection: 'nrtags', cardinality: 'many' },
            { name: 'image', type: 'media' },
          ],
        });
        await post('/api/collections', {
          name: 'nrpages',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'hero', type: 'component', component: 'feature' },
            { name: 'body', type: 'blocks', components: ['feature'] },
          ],
        });
        for (const name of ['red', 'green', 'blue']) ids[name] = (await post('/api/collections/nrtags', { name, status: 'published' }))._id;
        ids.image = (await dataOf(await uploadFile(t, await imageBytes(4, 3), 'hero.png', { identity: 'admin' }), 201))._id;
        await post('/api/collections/nrpages', {
          title: 'Home',
          status: 'published',
          hero: { title: 'Welcome', main: ids.blue, tags: [ids.green, ids.red], image: ids.image },
          body: [
            { __component: 'feature', title: 'First', main: ids.red, tags: [], image: null },
            { __component: 'feature', title: 'Second', tags: [ids.blue, ids.green], image: ids.image },
          ],
        });
      },
    });

    it('imports into another tenant with the ids inside components pointing at that tenant copies', async function () {
      const admin = as(t, 'admin');
      const planned = await dataOf(
        await admin.post('/api/content-export/plan', { collections: ['nrtags', 'nrpages'], includeMedia: true }),
      );
      const run = await admin.post('/api/content-export/run', { planId: planned.planId, planHash: planned.planHash });
      const runData = (await run.json()).data;
      expect(run.status, JSON.stringify(runData)).to.equal(200);
      const bytes = Buffer.from(await (await t.request(runData.downloadUrl, { identity: 'admin' })).arrayBuffer());

      const other = as(t, 'admin', 'other');
      const p = (await planPackageImport(t, bytes, 'other')).plan;
      expect(p.blockedReasons).to.deep.equal([]);
      expect(p.warnings).to.deep.equal([]);
      const applied = (await (await other.post('/api/content-import/apply', { planId: p.planId })).json()).data;
      expect(applied.outcome, JSON.stringify(applied)).to.equal('success');

      const list = async (name: string) => (await dataOf(await other.get(`/api/collections/${name}?limit=100`))).items as Entry[];
      const tagThere = new Map((await list('nrtags')).map((e) => [e.name as string, e._id as string]));
      const [page] = await list('nrpages');
      const media = (await dataOf(await other.get('/api/media?limit=10'))).items as Entry[];
      expect(media.map((m) => m.originalName ?? m.filename)).to.have.length(1);
      const imageThere = media[0]!._id;
      expect(imageThere).to.not.equal(ids.image);
      expect(page.hero).to.deep.equal({
        title: 'Welcome',
        main: tagThere.get('blue'),
        tags: [tagThere.get('green'), tagThere.get('red')],
        image: imageThere,
      });
      expect(page.body).to.deep.equal([
        { __component: 'feature', title: 'First', main: tagThere.get('red'), tags: [], image: null },
        { __component: 'feature', title: 'Second', tags: [tagThere.get('blue'), tagThere.get('green')], image: imageThere },
      ]);
      // The source is untouched and a second import of the same package changes nothing.
      const [source] = (await dataOf(await admin.get('/api/collections/nrpages'))).items as Entry[];
      expect(source.hero.main).to.equal(ids.blue);
      expect((await planPackageImport(t, bytes, 'other')).plan.summary).to.include({ created: 0, updated: 0, deleted: 0 });
    });
  });
}
