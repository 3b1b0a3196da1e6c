import { expect } from 'chai';
import type { AuditLog } from '../../kernel/audit.js';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel, type TestKernelOptions } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, requireVariant } from '../helpers/services.js';

const ROWS = 3000;
const csv = () => `sku,title,price\n${Array.from({ length: ROWS }, (_, i) => `S-${i + 1},Item ${i + 1},${(i % 90) + 0.5}`).join('\n')}\n`;

/**
 * Stopping the instance during a background import: the job stops between batches (no transaction is
 * cut off), the shutdown finishes, and the next start resumes after the rows already written: every row
 * exactly once. Before, shutdown waited for the whole import and then closed the database under it.
 */
for (const variant of DB_VARIANTS) {
  describe(`an import interrupted by a shutdown resumes on the next start (${variant.name})`, function () {
    this.timeout(120000);
    let first: TestKernel | undefined;
    let second: TestKernel | undefined;
    let drop: (() => Promise<void>) | undefined;
    const dataDir = tempDir();

    before(function () {
      requireVariant(this, variant);
    });
    after(async () => {
      await first?.close();
      await second?.close();
      await drop?.();
    });

    it('stops between batches on SIGTERM-like close, and the next instance finishes the rest: 3,000 rows, each once', async () => {
      let dbUrl: string | undefined;
      if (variant.name === 'mariadb') ({ url: dbUrl, drop } = await createMariaDbDatabase());
      const options: TestKernelOptions = {
        db: variant.name,
        dataDir,
        dbUrl,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { importers: { batchSize: 20 } } } },
      };
      first = await startTestKernel(options);
      const fd = new FormData();
      fd.append('file', new Blob([csv()]), 'items.csv');
      const validated = await dataOf(await first.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      const plan = await dataOf(
        await as(first, 'admin').post('/api/importers/preview', { format: 'csv', uploadId: validated.uploadId, scaffold: true }),
      );
      const run = await (await as(first, 'admin').post('/api/importers/run', { planId: plan.planId, confirmed: true })).json();
      let job: any;
      for (let i = 0; i < 400; i++) {
        job = await dataOf(await as(first, 'admin').get(`/api/importers/jobs/${run.jobId}`));
        if (job.progress.processed > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(job.progress.processed).to.be.greaterThan(0);
      const closing = first;
      first = undefined;
      await closing.close();

      second = await startTestKernel(options);
      for (let i = 0; i < 1200; i++) {
        job = await dataOf(await as(second, 'admin').get(`/api/importers/jobs/${run.jobId}`));
        if (job.status !== 'processing') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      expect(job.results.rows).to.include({ imported: ROWS, failed: 0 });
      expect(job.progress).to.deep.equal({ processed: ROWS, total: ROWS });
      const entries = await dataOf(await as(second, 'admin').get(`/api/collections/${plan.collections[0].name}?limit=1`));
      expect(entries.total).to.equal(ROWS);
      // The run went through the data-operation engine: one audit entry for the plan (the interruption wrote none).
      const audit = second.kernel.container.resolve<AuditLog>('audit');
      let mine: Awaited<ReturnType<AuditLog['list']>>['items'] = [];
      for (let i = 0; i < 100 && !mine.length; i++) {
        mine = (await audit.list({ tenantId: 'default', limit: 100 })).items.filter((e) => e.planId === plan.planId);
        if (!mine.length) await new Promise((r) => setTimeout(r, 50));
      }
      expect(mine.map((e) => [e.domain, e.operation, e.outcome])).to.deep.equal([['importer', 'apply', 'success']]);
      expect(mine[0]!.summary).to.deep.include({ created: ROWS, failed: 0 });
    });
  });
}
