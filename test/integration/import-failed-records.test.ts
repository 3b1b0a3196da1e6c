import { expect } from 'chai';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { settledImportJob } from '../helpers/importers.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 32, item 16: records that cannot be parsed were warned about but counted as `failed: 0`.
for (const variant of DB_VARIANTS) {
  describe(`importers: records that cannot be read count as failed (${variant.name})`, function () {
    this.timeout(120000);
    const admin = () => as(t, 'admin');

    async function run(content: string, filename: string) {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(v.valid, JSON.stringify(v)).to.equal(true);
      const plan = await dataOf(
        await admin().post('/api/importers/preview', { format: v.detectedFormat, uploadId: v.uploadId, scaffold: true }),
      );
      const started = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
      const { jobId } = await started.json();
      const job = await settledImportJob(t, jobId, 400, 50);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return { v, job };
    }

    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('NDJSON: every line that is not valid JSON (or not an object) is failed, the good lines imported', async function () {
      const good = (n: number) => JSON.stringify({ id: `r${n}`, title: `Row ${n}` });
      const lines = [good(1), good(2), good(3), good(4), good(5), '{"id":"bad",', 'not json at all', '[1,2]', good(6)];
      const { v, job } = await run(`${lines.join('\n')}\n`, 'lines.ndjson');
      expect(v.warnings.length).to.be.at.least(3);
      expect(job.results.rows).to.include({ imported: 6, failed: 3 });
    });

    it('CSV: an unterminated quoted record is failed, not silently dropped', async function () {
      const csv = 'id,title\n1,First\n2,Second\n3,"never closed\n';
      const { job } = await run(csv, 'unterminated.csv');
      expect(job.results.rows.imported).to.equal(2);
      expect(job.results.rows.failed).to.equal(1);
    });
  });
}
