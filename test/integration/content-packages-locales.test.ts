import { expect } from 'chai';
import { as, dataOf, planPackageImport } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 36, "packages round-trip localised entries exactly": an export carries each entry's versions in other
// locales (status, values and when each locale's values last changed); an import writes them with the entry. A version in a locale the target lacks, or a
// package whose default locale is not the target's, blocks the plan naming what to do (never a silent loss).
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content packages: entries' versions in other locales (${variant.name})`, function () {
    this.timeout(120000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        await dataOf(await admin.post('/api/locales', { code: 'de' }), 201);
        await dataOf(await admin.post('/api/locales', { code: 'fr' }), 201);
        await dataOf(
          await admin.post('/api/collections', {
            name: 'lpages',
            fields: [
              { name: 'title', type: 'text', localized: true },
              { name: 'seo', type: 'json', localized: true },
              { name: 'price', type: 'number' },
            ],
          }),
          201,
        );
        const id = (
          await dataOf(await admin.post('/api/collections/lpages', { title: 'Hello', seo: { k: 1 }, price: 3, status: 'published' }), 201)
        )._id;
        await dataOf(await admin.patch(`/api/collections/lpages/${id}?locale=de`, { title: 'Hallo', seo: { k: 'ä' } }));
        await dataOf(await admin.patch(`/api/collections/lpages/${id}/status?locale=de`, { status: 'published' }));
        await dataOf(await admin.patch(`/api/collections/lpages/${id}?locale=fr`, { title: 'Bonjour' }));
        await dataOf(await admin.post('/api/collections/lpages', { title: 'Only English', price: 4 }), 201);
      },
    });
    const exported = async () => {
      const admin = as(t, 'admin');
      const planned = await dataOf(await admin.post('/api/content-export/plan', { collections: ['lpages'] }));
      const run = await admin.post('/api/content-export/run', { planId: planned.planId, planHash: planned.planHash });
      const runData = (await run.json()).data;
      expect(run.status, JSON.stringify(runData)).to.equal(200);
      return Buffer.from(await (await t.request(runData.downloadUrl, { identity: 'admin' })).arrayBuffer());
    };
    /** Every entry by title (en) with its answers in each locale: values, status, _locales. */
    const readAll = async (tenant?: string) => {
      const who = as(t, 'admin', tenant);
      const list = (await dataOf(await who.get('/api/collections/lpages?sort=price&limit=100'))).items as Entry[];
      const out: Entry[] = [];
      for (const e of list)
        for (const locale of ['en', 'de', 'fr', '*']) {
          const x = await dataOf(await who.get(`/api/collections/lpages/${e._id}?locale=${locale}`));
          out.push({
            locale,
            title: x.title,
            seo: x.seo,
            price: x.price,
            status: x.status,
            _locales: x._locales,
            _fallbackFields: x._fallbackFields,
            // When each locale's values last changed (the "out of date" mark) comes back too.
            _localeUpdatedAt: x._localeUpdatedAt,
            createdAt: x.createdAt,
          });
        }
      return out;
    };
    const apply = async (planId: string, tenant = 'other') => {
      const applied = (await (await as(t, 'admin', tenant).post('/api/content-import/apply', { planId })).json()).data;
      expect(applied.outcome, JSON.stringify(applied)).to.equal('success');
    };

    it('export -> import into another tenant: every version comes back with its values and status; again changes nothing', async function () {
      const source = await readAll();
      const bytes = await exported();
      const p = (await planPackageImport(t, bytes, 'other')).plan;
      expect(p.blockedReasons).to.deep.equal([]);
      await apply(p.planId);
      expect(await readAll('other')).to.deep.equal(source);
      expect((await planPackageImport(t, bytes, 'other')).plan.summary).to.include({ created: 0, updated: 0, deleted: 0 });

      // A changed translation only (the default's values as they were) is an update, and arrives.
      const admin = as(t, 'admin');
      const [hello] = (await dataOf(await admin.get('/api/collections/lpages?sort=price'))).items as Entry[];
      await dataOf(await admin.patch(`/api/collections/lpages/${hello._id}?locale=fr`, { title: 'Salut' }));
      const again = (await planPackageImport(t, await exported(), 'other')).plan;
      expect(again.summary).to.include({ created: 0, updated: 1 });
      await apply(again.planId);
      expect(await readAll('other')).to.deep.equal(await readAll());
    });

    it('a version in a locale the target lacks blocks the plan naming it; created, the import goes through', async function () {
      const source = await readAll();
      const bytes = await exported();
      // Deleting fr deletes its versions (another tenant's too); the package still holds them.
      expect((await as(t, 'admin').delete('/api/locales/fr')).status).to.equal(200);
      const blocked = (await planPackageImport(t, bytes, 'third')).plan;
      expect(blocked.blockedReasons.join(' ')).to.include("locale 'fr', which this installation does not have");
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'fr' }), 201);
      const p = (await planPackageImport(t, bytes, 'third')).plan;
      expect(p.blockedReasons).to.deep.equal([]);
      await apply(p.planId, 'third');
      expect(await readAll('third')).to.deep.equal(source);
    });

    it('a version holding a field that is not localized here blocks the plan naming the field', async function () {
      const bytes = await exported();
      const admin = as(t, 'admin');
      const schema = await dataOf(await admin.get('/api/collections/lpages/schema'));
      const plain = schema.fields.map((f: Entry) => (f.name === 'seo' ? { ...f, localized: false } : f));
      await dataOf(await admin.patch('/api/collections/lpages/schema', { fields: plain }));
      try {
        const blocked = (await planPackageImport(t, bytes, 'fifth')).plan;
        expect(blocked.blockedReasons.join(' ')).to.include("Field 'lpages.seo' holds values per locale");
      } finally {
        await dataOf(await admin.patch('/api/collections/lpages/schema', { fields: schema.fields }));
      }
    });

    it("a package whose default locale is not the target's is blocked", async function () {
      const bytes = await exported();
      await dataOf(await as(t, 'admin').patch('/api/locales/de', { isDefault: true }));
      const blocked = (await planPackageImport(t, bytes, 'fourth')).plan;
      expect(blocked.blockedReasons.join(' ')).to.include("The package's default locale is 'en' but this installation's is 'de'");
      expect(await dataOf(await as(t, 'admin', 'fourth').get('/api/collections/lpages'))).to.include({ total: 0 });
    });
  });
}
