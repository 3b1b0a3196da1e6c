/**
 * The import-cms plugin inside a real kernel: its three formats in the registry, a parse task run by
 * the real worker pool, detection against every registered format (including the generic `json`),
 * and the importers HTTP flow (validate -> preview -> run -> jobs -> entries) for one fixture per format.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ImportParseSummary, ImportSample } from '../../plugins/importers/public.js';
import { importProfile } from '../../workers/import/profile.js';
import { startTestKernel, type TestKernel, useIdentityKernel } from '../helpers/kernel.js';
import { pollImportJob, validateUpload } from '../helpers/importers.js';
import { postAs } from '../helpers/content.js';
import { CACHE_VARIANTS, DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

const FIXTURES = IMPORT_FIXTURES;
const fixture = (folder: string, name: string) => join(FIXTURES, folder, name);

async function sampleOf(path: string): Promise<ImportSample> {
  const filename = path.split('/').pop()!;
  const r = await importProfile({ path, filename, maxDepth: 32 });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { filename, size: statSync(path).size, head: readFileSync(path).subarray(0, 64 * 1024), profile: r.value };
}

describe('import-cms: the plugin in a kernel', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(FIXTURES)) this.skip();
  });
  for (const db of DB_VARIANTS) {
    for (const cache of CACHE_VARIANTS) {
      describe(`${db.name} + ${cache.name}`, () => {
        let k: TestKernel;
        let work: string;
        before(async function () {
          requireVariant(this, db);
          requireVariant(this, cache);
          k = await startTestKernel({ db: db.name, cache: cache.name });
          work = mkdtempSync(join(tmpdir(), 'cms-import-cms-pool-'));
        });
        after(async () => {
          await k?.close();
          if (work) rmSync(work, { recursive: true, force: true });
        });

        it('registers php_cms, node_cms and data_cms with their worker task file', () => {
          const registry = k.kernel.registries.importFormats;
          for (const [format, task] of [
            ['php_cms', 'parsePhpCms'],
            ['node_cms', 'parseNodeCms'],
            ['data_cms', 'parseDataCms'],
          ]) {
            const f = registry.get(format)!;
            expect(f, format).to.not.equal(undefined);
            expect(f.parseTask).to.equal(task);
            expect(f.taskFile).to.match(/import-cms[\\/]parse-task\.js$/);
            expect(existsSync(f.taskFile)).to.equal(true);
            expect(registry.ownerOf(format)).to.equal('import-cms');
          }
          expect(registry.get('php_cms')!.extensions).to.deep.equal(['.json', '.tar.gz']);
          expect(registry.get('data_cms')!.extensions).to.deep.equal(['.json']);
        });

        it('the real worker pool runs the Strapi parse task (archive extraction inside the worker)', async () => {
          const f = k.kernel.registries.importFormats.get('node_cms')!;
          const path = fixture('node_cms', 'strapi4-dashboard-export.tar.gz');
          const pool = k.kernel.container.resolve('pool') as { run(name: string, input: unknown, filename?: string): Promise<unknown> };
          const input = {
            path,
            filename: 'strapi4-dashboard-export.tar.gz',
            workDir: work,
            spoolPath: join(work, 'spool.ndjson'),
            profile: (await sampleOf(path)).profile,
            maxDepth: 32,
          };
          const result = (await pool.run(f.parseTask, input, f.taskFile)) as { ok: boolean; value: ImportParseSummary };
          expect(result.ok).to.equal(true);
          expect(result.value.counts).to.deep.equal({ attachments: 13, customers: 11, invoices: 12, revenues: 13 });
          expect(existsSync(join(work, 'archive', 'assets', 'uploads', 'evil_rabbit_772a9988cf.png'))).to.equal(true);
        });

        it('among every registered format, each CMS fixture is won by its own format', async () => {
          const formats = k.kernel.registries.importFormats.list();
          for (const folder of ['php_cms', 'node_cms', 'data_cms']) {
            for (const file of (await import('node:fs')).readdirSync(join(FIXTURES, folder)).filter((f) => f !== 'README.md')) {
              const sample = await sampleOf(fixture(folder, file));
              const ranked = formats.map((f) => ({ format: f.format, score: f.detect(sample) })).sort((a, b) => b.score - a.score);
              expect(ranked[0].format, `${folder}/${file}: ${JSON.stringify(ranked.slice(0, 3))}`).to.equal(folder);
              expect(ranked[0].score).to.be.at.least(0.8);
              if (ranked[1]) expect(ranked[1].score, `${folder}/${file}: runner-up ${ranked[1].format}`).to.be.below(ranked[0].score);
            }
          }
        });
      });
    }
  }
});

describe('import-cms: through the importers HTTP flow', function () {
  this.timeout(120000);
  for (const db of DB_VARIANTS) {
    describe(db.name, () => {
      before(function () {
        if (!existsSync(FIXTURES)) this.skip();
      });
      const k = useIdentityKernel(db);
      const post = (path: string, body: FormData | unknown, identity = 'admin') => postAs(k, identity, path, body);
      const validate = (folder: string, file: string) => validateUpload(k, readFileSync(fixture(folder, file)), file);
      /** validate -> preview (scaffold) -> run -> job: returns the finished job. */
      const importAll = async (uploadId: string, format: string) => {
        const preview = await post('/api/importers/preview', { format, uploadId, scaffold: true });
        const plan = (await preview.json()).data;
        expect(preview.status, JSON.stringify(plan)).to.equal(200);
        const run = await post('/api/importers/run', { planId: plan.planId, confirmed: true });
        const { jobId } = await run.json();
        expect(jobId, 'jobId').to.be.a('string');
        return { plan, job: await pollImportJob(k, jobId) };
      };
      const entries = async (collection: string) =>
        (await (await k.request(`/api/collections/${collection}?limit=100`, { identity: 'admin' })).json()).data;
      /** A fixture of one collection detected as `format`, imported whole: its entries. */
      const importedFixture = async (format: string, file: string, collection: string, count: number) => {
        const v = await validate(format, file);
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        expect(v.body.data).to.include({ valid: true, detectedFormat: format });
        expect(v.body.data.summary).to.deep.equal({ [collection]: count });
        const { job } = await importAll(v.body.data.uploadId, format);
        expect(job.status).to.equal('completed');
        expect(job.results[collection]).to.include({ imported: count, failed: 0 });
        return entries(collection);
      };

      it('GET /api/importers/sources lists the three CMS formats', async () => {
        const res = await k.request('/api/importers/sources', { identity: 'viewer' });
        expect(res.status).to.equal(200);
        const formats = (await res.json()).data.sources.map((s: { format: string }) => s.format);
        expect(formats).to.include.members(['php_cms', 'node_cms', 'data_cms']);
      });

      it('php_cms: the Drupal Standard article imports as one `articles` entry; the index file is not valid', async () => {
        const list = await importedFixture('php_cms', 'drupal-standard-article.jsonapi.json', 'articles', 1);
        expect(list.total).to.equal(1);
        expect(list.items[0].title).to.equal('This is an Example Article');

        const index = await validate('php_cms', 'drupal-umami-jsonapi-index.json');
        expect(index.status).to.equal(200);
        expect(index.body.data).to.include({ valid: false, detectedFormat: 'php_cms' });
        expect(index.body.data.blockedReasons.join(' ')).to.match(/JSON:API entry point/);
      });

      it('node_cms: the Strapi 4 dashboard export imports customers, invoices and revenues', async () => {
        const v = await validate('node_cms', 'strapi4-dashboard-export.tar.gz');
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        expect(v.body.data).to.include({ valid: true, detectedFormat: 'node_cms' });
        expect(v.body.data.summary).to.deep.equal({ attachments: 13, customers: 11, invoices: 12, revenues: 13 });
        const { job } = await importAll(v.body.data.uploadId, 'node_cms');
        expect(job.status, JSON.stringify(job)).to.equal('completed');
        for (const [entity, n] of [
          ['customers', 11],
          ['invoices', 12],
          ['revenues', 13],
        ] as const) {
          expect(job.results[entity], entity).to.include({ imported: n, failed: 0 });
          expect((await entries(entity)).total, entity).to.equal(n);
        }
        // The 13 uploads travel as attachments whose bytes were extracted from assets/uploads.
        expect(job.results.attachments, JSON.stringify(job.results)).to.include({ imported: 13, failed: 0 });
      });

      it('data_cms: the Directus products import as two `products` entries', async () => {
        const list = await importedFixture('data_cms', 'directus-simple-ecommerce-products.json', 'products', 2);
        expect(list.items.map((p: { title: string }) => p.title).sort()).to.deep.equal(['Directus Super Soft T-Shirt', 'Directus Tumbler']);
      });
    });
  }
});
