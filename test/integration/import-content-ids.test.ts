/**
 * Records without an id of their own (CSV rows without an id column, JSON records without an id field)
 * are keyed by their content, not their position: an unrelated file's first row no longer collides in
 * the import ledger with an earlier file's first row (it used to be skipped as "already imported"),
 * identical rows of one file all import, and a re-import of the same file is recognised.
 */
import { expect } from 'chai';
import { ContentKeys, ExternalIds } from '../../plugins/import-tabular/external-ids.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

describe('content-derived external ids', () => {
  it('sha256 of the values (key order does not matter), #k for the k-th identical record, short enough for the ledger', () => {
    const keys = new ContentKeys();
    const a = keys.of({ title: 'Same', score: '1' });
    expect(a).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(keys.of({ score: '1', title: 'Same' })).to.equal(`${a}#2`);
    expect(keys.of({ title: 'Same', score: '1' })).to.equal(`${a}#3`);
    expect(keys.of({ title: 'Other', score: '1' })).to.not.match(new RegExp(`^${a}`));
    expect(new ContentKeys().of({ title: 'Same', score: '1' })).to.equal(a); // the same content in another run: the same key
    expect(`${a}#100000`.length).to.be.below(191);
    const ids = new ExternalIds();
    expect(ids.of({ id: 7, t: 'x' }).id).to.equal('7');
    const repeated = ids.of({ id: 7, t: 'y' });
    expect(repeated).to.deep.include({ duplicate: '7' });
    expect(repeated.id).to.match(/^sha256:/);
  });
});

for (const variant of DB_VARIANTS) {
  describe(`content-derived external ids through the importers (${variant.name})`, function () {
    this.timeout(120000);
    let k: TestKernel;
    const form = (content: string, filename: string) => {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      return fd;
    };
    /** validate -> preview (into `collection`, scaffolded when missing) -> run; the job's results for `rows`. */
    async function importInto(content: string, filename: string, format: 'csv' | 'json', collection: string) {
      const v = (
        await (await k.request('/api/importers/validate', { method: 'POST', body: form(content, filename), identity: 'admin' })).json()
      ).data;
      expect(v, JSON.stringify(v)).to.include({ valid: true, detectedFormat: format });
      const plan = (
        await (
          await k.request('/api/importers/preview', {
            method: 'POST',
            identity: 'admin',
            json: { format, uploadId: v.uploadId, scaffold: true, mappings: { rows: collection } },
          })
        ).json()
      ).data;
      const run = await (
        await k.request('/api/importers/run', { method: 'POST', identity: 'admin', json: { planId: plan.planId, confirmed: true } })
      ).json();
      let job: any;
      for (let i = 0; i < 400; i++) {
        job = (await (await k.request(`/api/importers/jobs/${run.jobId}`, { identity: 'admin' })).json()).data;
        if (job.status !== 'processing') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return job.results.rows as { imported: number; skipped: number; failed: number };
    }
    const titles = async (collection: string) =>
      (await (await k.request(`/api/collections/${collection}?limit=100`, { identity: 'admin' })).json()).data.items
        .map((i: Record<string, unknown>) => i.title)
        .sort();

    before(async function () {
      requireVariant(this, variant);
      k = await startTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] });
    });
    after(async () => k?.close());

    it('CSV without an id column: an unrelated second file imports in full; re-importing the first is recognised', async () => {
      expect(await importInto('title,score\nAlpha,1\nBeta,2\n', 'first.csv', 'csv', 'notes')).to.include({ imported: 2, skipped: 0 });
      expect(await importInto('title,score\nGamma,3\nDelta,4\n', 'second.csv', 'csv', 'notes')).to.include({ imported: 2, skipped: 0 });
      expect(await titles('notes')).to.deep.equal(['Alpha', 'Beta', 'Delta', 'Gamma']);
      expect(await importInto('title,score\nAlpha,1\nBeta,2\n', 'first.csv', 'csv', 'notes')).to.include({ imported: 0, skipped: 2 });
      expect(await titles('notes')).to.have.length(4);
    });

    it('CSV: identical rows of one file all import, and are all recognised on a re-import', async () => {
      const same = 'title,score\nSame,1\nSame,1\nSame,1\n';
      expect(await importInto(same, 'same.csv', 'csv', 'twins')).to.include({ imported: 3, skipped: 0 });
      expect(await importInto(same, 'same.csv', 'csv', 'twins')).to.include({ imported: 0, skipped: 3 });
      expect(await titles('twins')).to.deep.equal(['Same', 'Same', 'Same']);
    });

    it('JSON records without an id: the same', async () => {
      const first = JSON.stringify([{ title: 'One' }, { title: 'Two' }]);
      const second = JSON.stringify([{ title: 'Three' }, { title: 'Four' }]);
      expect(await importInto(first, 'first.json', 'json', 'records')).to.include({ imported: 2, skipped: 0 });
      expect(await importInto(second, 'second.json', 'json', 'records')).to.include({ imported: 2, skipped: 0 });
      expect(await importInto(first, 'first.json', 'json', 'records')).to.include({ imported: 0, skipped: 2 });
      expect(await titles('records')).to.deep.equal(['Four', 'One', 'Three', 'Two']);
    });
  });
}
