import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { as, dataOf } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * The import ledger never makes unrelated files collide, and every skip is counted and explained.
 * Found by hand before: a 2-row alpha.csv then an unrelated 3-row posts.csv reported `imported: 1`
 * (rows without an id column were keyed `row-<n>` per tenant and format only), the stream's complete
 * event did not mention skips, and csvkit-bad.csv "finished" with 0 imported and no reason anywhere.
 */
for (const variant of DB_VARIANTS) {
  describe(`import ledger: unrelated files, skips explained, no empty scaffolds (${variant.name})`, function () {
    this.timeout(60000);

    /** validate -> preview -> run (inline below 100 rows); answers the job view. */
    const importCsv = async (
      name: string,
      content: string | Buffer,
      options: { collection?: string; scaffold?: boolean; mode?: 'add' | 'merge' } = {},
    ) => {
      const fd = new FormData();
      fd.append('file', new Blob([content]), name);
      const validated = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(validated.valid, JSON.stringify(validated)).to.equal(true);
      const plan = await dataOf(
        await as(t, 'admin').post('/api/importers/preview', {
          format: 'csv',
          uploadId: validated.uploadId,
          scaffold: options.scaffold ?? false,
          mode: options.mode ?? 'add',
          ...(options.collection ? { mappings: { rows: options.collection } } : {}),
        }),
      );
      const run = await (await as(t, 'admin').post('/api/importers/run', { planId: plan.planId, confirmed: true })).json();
      return { plan, job: await dataOf(await as(t, 'admin').get(`/api/importers/jobs/${run.jobId}`)) };
    };
    const total = async (collection: string) =>
      (await dataOf(await as(t, 'admin').get(`/api/collections/${collection}?limit=1`))).total as number;

    const t = useIdentityKernel(variant, {
      seed: async () => {
        await dataOf(
          await as(t, 'admin').post('/api/collections', {
            name: 'notes',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'body', type: 'text' },
            ],
          }),
          201,
        );
      },
    });

    it('an unrelated CSV without ids imports all its rows after another one, into its own collection or the same one', async () => {
      const alpha = await importCsv('alpha.csv', 'title,body\nAlpha one,first\nAlpha two,second\n', { scaffold: true });
      expect(alpha.job.results.rows).to.include({ imported: 2, skipped: 0 });
      const posts = await importCsv('posts.csv', 'title,body\nPost one,a\nPost two,b\nPost three,c\n', { scaffold: true });
      expect(posts.job.results.rows).to.include({ imported: 3, skipped: 0, failed: 0 });
      expect(await total('posts')).to.equal(3);

      // Both into one existing collection: still no collision.
      expect(
        (await importCsv('alpha.csv', 'title,body\nAlpha one,first\nAlpha two,second\n', { collection: 'notes' })).job.results.rows,
      ).to.include({ imported: 2 });
      expect(
        (await importCsv('posts.csv', 'title,body\nPost one,a\nPost two,b\nPost three,c\n', { collection: 'notes' })).job.results.rows,
      ).to.include({ imported: 3, skipped: 0 });
      expect(await total('notes')).to.equal(5);
    });

    it('the same file again is skipped, counted by reason and explained; a deleted entry comes back; merge skips unchanged rows', async () => {
      const file = 'title,body\nKeep me,one\nChange me,two\nDelete me,three\n';
      expect((await importCsv('again.csv', file, { collection: 'notes' })).job.results.rows).to.include({ imported: 3 });
      const again = await importCsv('again.csv', file, { collection: 'notes' });
      expect(again.job.results.rows).to.deep.include({ imported: 0, skipped: 3, skipReasons: { alreadyImported: 3 } });
      expect(again.job.warnings[0].message).to.match(/rows: 3 skipped: 3 imported into 'notes' before/);
      expect(again.plan.operations[0].note).to.match(/earlier csv imports into 'notes'/);

      const notes = (await dataOf(await as(t, 'admin').get('/api/collections/notes?limit=100'))).items as Array<{
        _id: string;
        title: string;
      }>;
      const gone = notes.find((n) => n.title === 'Delete me')!;
      await dataOf(await as(t, 'admin').delete(`/api/collections/notes/${gone._id}`));
      const back = await importCsv('again.csv', file, { collection: 'notes' });
      expect(back.job.results.rows).to.deep.include({ imported: 1, skipped: 2, skipReasons: { alreadyImported: 2 } });
      expect(notes.filter((n) => n.title === 'Keep me')).to.have.length(1);

      // Rows without ids are known by their content: in merge mode an edited row is a new record, the others unchanged.
      const merged = await importCsv('again.csv', file.replace('Change me,two', 'Change me,two (edited)'), {
        collection: 'notes',
        mode: 'merge',
      });
      expect(merged.job.results.rows).to.deep.include({ imported: 1, skipped: 2, skipReasons: { unchanged: 2 } });
    });

    it("the stream's complete event reports skipped records", async () => {
      const fd = new FormData();
      fd.append('file', new Blob(['title,body\nStreamed,x\n']), 'streamed.csv');
      fd.append('collection', 'notes');
      const stream = async () => {
        const copy = new FormData();
        for (const [k, v] of fd.entries()) copy.append(k, v);
        const text = await (await t.request('/api/migration/import', { method: 'POST', body: copy, identity: 'admin' })).text();
        return JSON.parse(/event: complete\ndata: (.+)/.exec(text)![1]!);
      };
      expect(await stream()).to.include({ imported: 1, skipped: 0 });
      expect(await stream()).to.include({ imported: 0, skipped: 1 });
    });

    it('csvkit-bad.csv imports its rows with the reading warnings in the result (lenient default)', async () => {
      const bad = await importCsv('csvkit-bad.csv', readFileSync(join(IMPORT_FIXTURES, 'csv', 'csvkit-bad.csv')), { scaffold: true });
      expect(bad.job.results.rows.imported, JSON.stringify(bad.job)).to.be.greaterThan(0);
      expect(bad.job.results.rows.skipped).to.equal(0);
      expect(bad.job.warnings.some((w: { message: string; line?: number }) => /^while reading:/.test(w.message) && w.line === 2)).to.equal(
        true,
      );
    });

    it('a scaffolded collection that ends up empty is removed again, and the result says so', async () => {
      const empty = await importCsv('header-only.csv', readFileSync(join(IMPORT_FIXTURES, 'csv', 'ghost-wix-header-only.csv')), {
        scaffold: true,
      });
      const name = empty.plan.operations[0].targetCollection;
      expect(empty.job.status).to.equal('completed');
      expect(empty.job.warnings.map((w: { message: string }) => w.message).join('\n')).to.match(
        new RegExp(`collection '${name}' was created for this import and removed again`),
      );
      expect((await as(t, 'admin').get(`/api/collections/${name}?limit=1`)).status).to.equal(404);
    });
  });
}
