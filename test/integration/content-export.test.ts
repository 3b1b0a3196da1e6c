import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import * as tar from 'tar';
import { entryChecksum } from '../../plugins/content-packages/entry-codec.js';
import type { ContentPackagesService } from '../../plugins/content-packages/public.js';
import { as, dataOf } from '../helpers/content.js';
import { tempDir, type TestResponse, useIdentityKernel } from '../helpers/kernel.js';
import { imageBytes, sha256, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';

const EDITOR = {
  kind: 'user' as const,
  userId: 'user-editor',
  role: 'editor',
  permissions: ['content:read', 'content:export'],
  tenantId: 'default',
};

/** Unpacks a downloaded package into a fresh folder: file path -> bytes. */
async function unpack(bytes: Buffer, cleanup: string[]): Promise<{ dir: string; files: Map<string, Buffer> }> {
  const dir = tempDir('cms-export-unpack-');
  cleanup.push(dir);
  writeFileSync(join(dir, 'package.tgz'), bytes);
  const out = join(dir, 'out');
  mkdirSync(out);
  await tar.x({ file: join(dir, 'package.tgz'), cwd: out });
  const files = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(out, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${name.name}` : name.name;
      if (name.isDirectory()) walk(path);
      else files.set(path, readFileSync(join(out, path)));
    }
  };
  walk('');
  return { dir: out, files };
}

const lines = (b: Buffer | undefined) =>
  (b ?? Buffer.alloc(0))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

for (const variant of DB_VARIANTS) {
  describe(`content export: validate, plan, run, download (${variant.name})`, function () {
    this.timeout(120000);
    const cleanup: string[] = [];
    const editor = () => as(t, 'editor');
    const body = async (res: TestResponse) => ({ status: res.status, body: await res.json() });
    const download = (query: string, headers: Record<string, string> = {}) =>
      t.request(`/api/content-export/download?${query}`, { identity: 'editor', headers });
    const planAndRun = async (selection: unknown) => {
      const plan = await dataOf(await editor().post('/api/content-export/plan', selection));
      const run = await editor().post('/api/content-export/run', { planId: plan.planId, planHash: plan.planHash });
      return { plan, run: { status: run.status, data: (await run.json()).data } };
    };
    let media: any;
    const authors: any[] = [];
    const posts: any[] = [];
    let png: Buffer;

    const t = useIdentityKernel(
      variant,
      {},
      // Small pages: the writer's keyset paging runs over several pages even for a few entries.
      {
        config: {
          plugins: {
            options: { 'content-packages': { export: { pageSize: 10 } } },
          },
        },
      },
    );
    before(async () => {
      const admin = as(t, 'admin');
      await dataOf(
        await admin.post('/api/collections', { name: 'authors', fields: [{ name: 'name', type: 'text', required: true }] }),
        201,
      );
      await dataOf(
        await admin.post('/api/collections', {
          name: 'articles',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'author', type: 'relation', collection: 'authors' },
            { name: 'cover', type: 'media' },
            { name: 'views', type: 'number' },
            { name: 'meta', type: 'json' },
            { name: 'kind', type: 'select', options: ['news', 'guide'] },
          ],
        }),
        201,
      );
      png = await imageBytes(64, 48);
      media = await dataOf(await uploadFile(t, png, 'cover.png'), 201);
      for (const name of ['Ada', 'Grace']) authors.push(await dataOf(await editor().post('/api/collections/authors', { name }), 201));
      for (let i = 0; i < 14; i++)
        posts.push(
          await dataOf(
            await editor().post('/api/collections/articles', {
              title: `Article ${i} "quoted" ✓`,
              author: authors[i % 2]._id,
              cover: i < 3 ? media._id : null,
              views: i * 1.5,
              meta: { i, tags: ['a', 'b'] },
              kind: i % 3 === 0 ? 'guide' : 'news',
              status: i % 2 === 0 ? 'published' : 'draft',
            }),
            201,
          ),
        );
    });
    after(() => {
      for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
    });

    it('validate answers the normalised selection; unknown collections 404 naming each, bad bodies 400', async () => {
      const ok = await dataOf(
        await editor().post('/api/content-export/validate', {
          collections: ['articles', 'authors', 'articles'],
          status: 'published',
          updatedFrom: '2020-01-01',
          filters: { articles: { kind: 'news' } },
        }),
      );
      expect(ok.valid).to.equal(true);
      expect(ok.selection).to.deep.equal({
        collections: ['articles', 'authors'],
        status: 'published',
        updatedFrom: '2020-01-01T00:00:00.000Z',
        filters: { articles: { kind: 'news' } },
      });
      const unknown = await body(await editor().post('/api/content-export/validate', { collections: ['articles', 'nope', 'gone'] }));
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error).to.equal('COLLECTION_NOT_FOUND');
      expect(unknown.body.issues.map((i: any) => i.path)).to.deep.equal(['body.collections.1', 'body.collections.2']);
      for (const bad of [
        {},
        { collections: [] },
        { collections: ['articles'], status: 'deleted' },
        { collections: ['articles'], extra: 1 },
        { collections: ['articles'], filters: { articles: { nope: 1 } } },
        { collections: ['articles'], filters: { articles: { views: 'many' } } },
        { collections: ['articles'], filters: { authors: { name: 'Ada' } } },
        { collections: ['articles'], updatedFrom: '2026-01-02', updatedTo: '2026-01-01' },
      ]) {
        const r = await body(await editor().post('/api/content-export/validate', bad));
        expect(r.status, JSON.stringify(bad)).to.equal(400);
        expect(r.body.error).to.equal('VALIDATION_ERROR');
      }
      const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, 1]));
      expect(
        (await editor().post('/api/content-export/validate', { collections: ['articles'], filters: { articles: tooMany } })).status,
      ).to.equal(400);
      // The plan route refuses the same way (through the engine's validate).
      expect((await editor().post('/api/content-export/plan', { collections: ['nope'] })).status).to.equal(404);
    });

    it('plan: one operation per collection with its count, media, the archive; warns about references leaving the selection and media without files', async () => {
      const plan = await dataOf(await editor().post('/api/content-export/plan', { collections: ['articles'] }));
      expect(plan).to.include({ domain: 'content-export', mode: 'add', requiresConfirmation: false });
      expect(plan.operations).to.deep.equal([
        { action: 'create', type: 'collection-file', target: 'articles', count: 14 },
        { action: 'create', type: 'media-manifest', target: 'media records', count: 1 },
        { action: 'create', type: 'package', target: 'archive', count: 0 },
      ]);
      expect(plan.summary).to.deep.equal({ created: 15, updated: 0, deleted: 0, skipped: 0, failed: 0 });
      const leaving = plan.warnings.find((w: any) => w.item === 'articles.author');
      expect(leaving?.message).to.include('references leaving the selection').and.include('14 entries');
      const noFiles = plan.warnings.find((w: any) => w.item === 'articles.cover');
      expect(noFiles?.message).to.include('no media files included').and.include('3 entries');
      expect(plan.estimatedBytes).to.be.greaterThan(14 * 100);

      const both = await dataOf(
        await editor().post('/api/content-export/plan', { collections: ['articles', 'authors'], includeMedia: true }),
      );
      expect(both.warnings).to.deep.equal([]);
      expect(both.risk).to.equal('safe');
      expect(both.estimatedBytes).to.be.greaterThan(plan.estimatedBytes);
      const published = await dataOf(await editor().post('/api/content-export/plan', { collections: ['articles'], status: 'published' }));
      expect(published.operations[0].count).to.equal(7);
    });

    it('run inline (200) and download: manifest, schemas, NDJSON lines (syncIds, $ref, $media, checksums), media files, checksums.sha256', async () => {
      const { plan, run } = await planAndRun({ collections: ['articles', 'authors'], includeMedia: true });
      expect(run.status, JSON.stringify(run.data)).to.equal(200);
      expect(run.data).to.include({ planId: plan.planId, outcome: 'success' });
      expect(run.data.summary).to.deep.equal({ created: 17, updated: 0, deleted: 0, skipped: 0, failed: 0 });
      expect(run.data.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(run.data.packageId).to.match(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
      expect(run.data.downloadUrl).to.equal(`/api/content-export/download?planId=${plan.planId}`);

      const res = await t.request(run.data.downloadUrl, { identity: 'editor' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/gzip');
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${run.data.packageId}.svelty-package"`);
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).to.equal(run.data.size);
      expect(sha256(bytes)).to.equal(run.data.sha256);
      expect(res.headers.get('etag')).to.equal(`"${run.data.sha256}"`);
      // The API decisions: an inline run (200) carries a jobId too, which the download accepts (issue 32, item 13).
      expect(run.data.jobId).to.equal(run.data.packageId);
      const byJob = await t.request(`/api/content-export/download?jobId=${encodeURIComponent(run.data.jobId)}`, { identity: 'editor' });
      expect(byJob.status).to.equal(200);
      expect(sha256(Buffer.from(await byJob.arrayBuffer()))).to.equal(run.data.sha256);
      const otherTenant = await t.request(`/api/content-export/download?jobId=${encodeURIComponent(run.data.jobId)}`, {
        identity: 'editor',
        headers: { 'x-test-tenant': 'other' },
      });
      expect(otherTenant.status, "another tenant's inline package").to.equal(404);

      const { files } = await unpack(bytes, cleanup);
      const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      const [installation] = await sequelize.query(`SELECT value FROM cms_installation WHERE name = 'installation_id'`, { type: 'SELECT' });
      expect(manifest).to.include({ format: 'svelty-package', version: 1 });
      expect(manifest.source).to.deep.equal({
        installationId: installation.value,
        kernelVersion: '1.0.0',
        dialect: variant.name === 'sqlite' ? 'sqlite' : 'mariadb',
      });
      expect(manifest.selection).to.deep.equal({ collections: ['articles', 'authors'], includeMedia: true });
      expect(manifest.collections).to.deep.equal([
        { name: 'articles', entries: 14, file: 'content/articles.ndjson', schemaFile: 'schemas/articles.json' },
        { name: 'authors', entries: 2, file: 'content/authors.ndjson', schemaFile: 'schemas/authors.json' },
      ]);
      expect(manifest.media).to.deep.equal({ records: 1, file: 'media/manifest.ndjson', includesFiles: true, bytes: png.length });

      // Every listed file is in the archive with its size and SHA-256; checksums.sha256 lists the same; nothing else is there.
      for (const f of manifest.files) {
        expect(files.has(f.path), f.path).to.equal(true);
        expect(files.get(f.path)!.length, f.path).to.equal(f.size);
        expect(sha256(files.get(f.path)!), f.path).to.equal(f.sha256);
      }
      const sums = files
        .get('checksums.sha256')!
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(66), l.slice(0, 64)]);
      expect(sums).to.deep.equal(manifest.files.map((f: any) => [f.path, f.sha256]));
      expect([...files.keys()].sort()).to.deep.equal(
        ['checksums.sha256', 'manifest.json', ...manifest.files.map((f: any) => f.path)].sort(),
      );

      const schema = JSON.parse(files.get('schemas/articles.json')!.toString('utf8'));
      expect(schema).to.include({ name: 'articles' });
      expect(schema.fields.map((f: any) => f.name)).to.deep.equal(['title', 'author', 'cover', 'views', 'meta', 'kind']);

      const authorLines = lines(files.get('content/authors.ndjson'));
      const articleLines = lines(files.get('content/articles.ndjson'));
      expect(articleLines).to.have.length(14);
      // Ordered by source id; each line is the entry as the API has it, in package form.
      expect(articleLines.map((l) => l.sourceId)).to.deep.equal(posts.map((p) => p._id).sort());
      const syncOf = new Map(authors.map((a) => [a._id, a.syncId]));
      for (const line of articleLines) {
        const p = posts.find((x) => x._id === line.sourceId)!;
        expect(line).to.include({ syncId: p.syncId, slug: p.slug, status: p.status, createdAt: p.createdAt, updatedAt: p.updatedAt });
        expect(line.fields.author).to.deep.equal({ $ref: { collection: 'authors', syncId: syncOf.get(p.author) } });
        expect(line.fields.cover).to.deep.equal(p.cover ? { $media: media._id } : null);
        expect(line.fields).to.deep.include({ title: p.title, views: p.views, meta: p.meta, kind: p.kind });
        expect(line.checksum).to.equal(entryChecksum(line.slug, line.status, line.fields));
        expect(line).to.not.have.property('baseChecksum');
        expect(line).to.not.have.property('externalIds');
      }
      expect(authorLines.map((l) => l.syncId).sort()).to.deep.equal(authors.map((a) => a.syncId).sort());

      const mediaLines = lines(files.get('media/manifest.ndjson'));
      expect(mediaLines).to.deep.equal([
        {
          id: media._id,
          filename: 'cover.png',
          mimeType: 'image/png',
          size: png.length,
          sha256: sha256(png),
          // Its storage path on the source: what rich-text /files/ URLs name (matched on import).
          path: String(media.url).slice('/files/'.length).split('/').map(decodeURIComponent).join('/'),
          folder: null,
          meta: { originalName: 'cover.png', width: 64, height: 48, private: false },
          file: `media/files/${sha256(png)}`,
        },
      ]);
      expect(files.get(`media/files/${sha256(png)}`)!.equals(png)).to.equal(true);

      // The work folder is gone; only the archive stays.
      const root = join(t.dataDir, 'packages', 'exports');
      expect(readdirSync(root).filter((n) => n.endsWith('.partial'))).to.deep.equal([]);
      expect(existsSync(join(root, `${run.data.packageId}.svelty-package`))).to.equal(true);

      // The plan is spent.
      const again = await body(await editor().post('/api/content-export/run', { planId: plan.planId }));
      expect(again.status).to.equal(409);
      expect(again.body.error).to.equal('PLAN_ALREADY_APPLIED');
    });

    it('download: one Range gives 206 with those bytes, an unsatisfiable one 416, If-None-Match 304; unknown or ambiguous 404/400', async () => {
      const { plan, run } = await planAndRun({ collections: ['articles'] });
      expect(run.status).to.equal(200);
      const whole = Buffer.from(await (await download(`planId=${plan.planId}`)).arrayBuffer());
      const part = await download(`planId=${plan.planId}`, { range: 'bytes=10-99' });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 10-99/${whole.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(10, 100))).to.equal(true);
      const tail = await download(`planId=${plan.planId}`, { range: 'bytes=-16' });
      expect(tail.status).to.equal(206);
      expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(whole.length - 16))).to.equal(true);
      const rest = await download(`planId=${plan.planId}`, { range: `bytes=${whole.length - 5}-` });
      expect(Buffer.from(await rest.arrayBuffer()).equals(whole.subarray(whole.length - 5))).to.equal(true);
      const outside = await download(`planId=${plan.planId}`, { range: `bytes=${whole.length}-` });
      expect(outside.status).to.equal(416);
      expect(outside.headers.get('content-range')).to.equal(`bytes */${whole.length}`);
      expect((await outside.json()).error).to.equal('RANGE_NOT_SATISFIABLE');
      const cached = await download(`planId=${plan.planId}`, { 'if-none-match': `"${run.data.sha256}"` });
      expect(cached.status).to.equal(304);

      const unknown = await body(await download('planId=00000000-0000-4000-8000-000000000000'));
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error).to.equal('PACKAGE_NOT_FOUND');
      expect((await body(await download('jobId=nope'))).body.error).to.equal('PACKAGE_NOT_FOUND');
      // A queued export job (held back an hour): 409 PACKAGE_NOT_READY; another domain's job: 404.
      const jobs = t.kernel.container.resolve<any>('jobs');
      const queued = await jobs.enqueue('data-ops.apply', { planId: plan.planId, domain: 'content-export' }, { delayMs: 3600_000 });
      const notReady = await body(await download(`jobId=${queued.jobId}`));
      expect(notReady.status).to.equal(409);
      expect(notReady.body).to.include({ error: 'PACKAGE_NOT_READY', status: 'queued' });
      const foreign = await jobs.enqueue('data-ops.apply', { planId: plan.planId, domain: 'backup' }, { delayMs: 3600_000 });
      expect((await download(`jobId=${foreign.jobId}`)).status).to.equal(404);
      expect((await download(`planId=${plan.planId}&jobId=x`)).status).to.equal(400);
      expect((await download('')).status).to.equal(400);
      // Another tenant does not see it.
      const other = await t.request(`/api/content-export/download?planId=${plan.planId}`, {
        identity: 'editor',
        headers: { 'x-test-tenant': 'other' },
      });
      expect(other.status).to.equal(404);
    });

    it('filters: status, updatedFrom/updatedTo and field equality narrow what is exported', async () => {
      const { run } = await planAndRun({ collections: ['articles'], status: 'published', filters: { articles: { kind: 'guide' } } });
      expect(run.status).to.equal(200);
      const { files } = await unpack(
        Buffer.from(await (await t.request(run.data.downloadUrl, { identity: 'editor' })).arrayBuffer()),
        cleanup,
      );
      const got = lines(files.get('content/articles.ndjson'));
      const expected = posts.filter((p) => p.status === 'published' && p.kind === 'guide');
      expect(expected.length).to.be.greaterThan(0);
      expect(got.map((l) => l.sourceId).sort()).to.deep.equal(expected.map((p) => p._id).sort());
      for (const l of got) expect(l).to.include({ status: 'published' });

      const future = await planAndRun({ collections: ['articles'], updatedFrom: '2999-01-01' });
      expect(future.plan.operations[0].count).to.equal(0);
      expect(future.plan.warnings.map((w: any) => w.message)).to.include(
        'the selection has no entries: the package will hold the schemas only',
      );
      const past = await dataOf(await editor().post('/api/content-export/plan', { collections: ['articles'], updatedTo: '2999-01-01' }));
      expect(past.operations[0].count).to.equal(14);
    });

    it('a schema change between plan and run is 409 PLAN_STALE; a run that fails leaves no files and no package', async () => {
      const admin = as(t, 'admin');
      const fields = [{ name: 'label', type: 'text' }];
      for (const name of ['stale', 'doomed']) {
        await dataOf(await admin.post('/api/collections', { name, fields }), 201);
        await dataOf(await editor().post(`/api/collections/${name}`, { label: 'x' }), 201);
      }
      const stale = await dataOf(await editor().post('/api/content-export/plan', { collections: ['stale'] }));
      await dataOf(await admin.patch('/api/collections/stale/schema', { fields: [...fields, { name: 'extra', type: 'number' }] }));
      const refused = await body(await editor().post('/api/content-export/run', { planId: stale.planId }));
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('PLAN_STALE');

      const doomed = await dataOf(await editor().post('/api/content-export/plan', { collections: ['doomed'] }));
      expect((await admin.delete('/api/collections/doomed/schema')).status).to.equal(200);
      const failed = await body(await editor().post('/api/content-export/run', { planId: doomed.planId }));
      expect(failed.status).to.equal(200);
      expect(failed.body.data.outcome).to.equal('rollback');
      expect(failed.body.data.error.code).to.equal('COLLECTION_NOT_FOUND');
      expect(failed.body.data).to.not.have.property('packageId');
      const root = join(t.dataDir, 'packages', 'exports');
      expect(readdirSync(root).filter((n) => n.endsWith('.partial'))).to.deep.equal([]);
      expect((await download(`planId=${doomed.planId}`)).status).to.equal(404);
    });

    it('permissions: without content:export no validate, plan or run (403); content:read may list jobs and download a package of published entries only; no identity 401/403', async () => {
      for (const path of ['/api/content-export/validate', '/api/content-export/plan', '/api/content-export/run']) {
        const r = await as(t, 'viewer').post(path, { collections: ['articles'], planId: 'x' });
        expect(r.status, path).to.equal(403);
      }
      expect((await as(t, 'viewer').get('/api/content-export/jobs')).status).to.equal(200);
      // The spec's table gives content:read for the download (issue 32, item 13): a reader downloads a package
      // of published entries; one that may hold drafts (a reader never sees them through the API) stays refused.
      const published = await planAndRun({ collections: ['articles'], status: 'published' });
      expect(published.run.status).to.equal(200);
      for (const query of [`planId=${published.plan.planId}`, `jobId=${published.run.data.jobId}`]) {
        const r = await as(t, 'viewer').get(`/api/content-export/download?${query}`);
        expect(r.status, query).to.equal(200);
        expect(sha256(Buffer.from(await r.arrayBuffer()))).to.equal(published.run.data.sha256);
      }
      const withDrafts = await planAndRun({ collections: ['articles'] });
      const refused = await as(t, 'viewer').get(`/api/content-export/download?jobId=${withDrafts.run.data.jobId}`);
      expect(refused.status).to.equal(403);
      expect(((await refused.json()) as { error: string }).error).to.equal('FORBIDDEN');
      expect((await as(t, 'viewer').get(`/api/content-export/download?planId=${withDrafts.plan.planId}`)).status).to.equal(403);
      expect((await as(t, 'nobody').get(`/api/content-export/download?planId=${published.plan.planId}`)).status).to.equal(403);
      expect((await as(t, 'nobody').get('/api/content-export/jobs')).status).to.equal(403);
      expect((await t.request('/api/content-export/download?planId=x')).status).to.be.oneOf([401, 403]);
    });

    it('500 entries or more run as a job (202); the job completes and its package downloads by jobId', async function () {
      const admin = as(t, 'admin');
      await dataOf(await admin.post('/api/collections', { name: 'bulk', fields: [{ name: 'n', type: 'number' }] }), 201);
      for (let b = 0; b < 5; b++)
        await dataOf(
          await editor().post('/api/collections/bulk/batch', { entries: Array.from({ length: 100 }, (_, i) => ({ n: b * 100 + i })) }),
          201,
        );
      const { plan, run } = await planAndRun({ collections: ['bulk'] });
      expect(plan.operations[0]).to.deep.equal({ action: 'create', type: 'collection-file', target: 'bulk', count: 500 });
      expect(run.status).to.equal(202);
      expect(run.data).to.include({ status: 'queued' });
      expect(run.data.downloadUrl).to.equal(`/api/content-export/download?jobId=${run.data.jobId}`);
      const early = await t.request(run.data.downloadUrl, { identity: 'editor' });
      if (early.status !== 200) {
        expect(early.status).to.equal(409);
        expect((await early.json()).error).to.equal('PACKAGE_NOT_READY');
      } else await early.arrayBuffer();
      const job = await until(
        async () => {
          const [j] = (await dataOf(await editor().get(`/api/content-export/jobs?jobId=${run.data.jobId}`))).jobs;
          return j.status === 'completed' || j.status === 'failed' ? j : undefined;
        },
        'the export job to finish',
        60000,
      );
      expect(job).to.include({ status: 'completed', outcome: 'success', domain: 'content-export' });
      expect(job.progress).to.deep.equal({ processed: 500, total: 500 });
      const res = await t.request(run.data.downloadUrl, { identity: 'editor' });
      expect(res.status).to.equal(200);
      const { files } = await unpack(Buffer.from(await res.arrayBuffer()), cleanup);
      const got = lines(files.get('content/bulk.ndjson'));
      expect(got).to.have.length(500);
      expect(new Set(got.map((l) => l.fields.n)).size).to.equal(500);
      expect(JSON.parse(files.get('manifest.json')!.toString('utf8')).collections[0]).to.include({ name: 'bulk', entries: 500 });
    });

    it('build() for a peer: entries carry baseChecksum from the ledger and externalIds from the importers links; retention prunes old packages', async () => {
      const packages = t.kernel.container.resolve<ContentPackagesService>('contentPackages');
      const first = posts[0];
      await packages.recordBases('default', 'peer-1', [{ collection: 'articles', syncId: first.syncId, checksum: 'f'.repeat(64) }]);
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      const links = (await sequelize.getQueryInterface().showAllTables()).map((x: any) => (typeof x === 'string' ? x : x.tableName));
      const hasLinks = links.includes('import_links');
      expect(hasLinks, 'the importers plugin (import_links) is loaded by default').to.equal(true);
      if (hasLinks)
        await sequelize.getQueryInterface().bulkInsert('import_links', [
          {
            tenant_id: 'default',
            format: 'csv',
            entity: 'rows',
            external_id: 'row-7',
            collection: 'articles',
            entry_id: first._id,
            checksum: '0'.repeat(64),
            updated_at: Date.now(),
          },
        ]);
      // An expired package (a row 2 days old and its file): the next build's retention deletes both.
      const root = join(t.dataDir, 'packages', 'exports');
      const oldId = '20200101T000000000Z-0badc0de';
      writeFileSync(join(root, `${oldId}.svelty-package`), 'old');
      await sequelize.getQueryInterface().bulkInsert('cms_content_exports', [
        {
          package_id: oldId,
          tenant_id: 'default',
          plan_id: null,
          peer: null,
          file_name: `${oldId}.svelty-package`,
          size: 3,
          sha256: createHash('sha256').update('old').digest('hex'),
          entries: 0,
          created_by: null,
          created_at: Date.now() - 48 * 3600_000,
        },
      ]);
      const progress: Array<[number, number]> = [];
      const built = await packages.build({ collections: ['articles'] }, EDITOR, {
        peer: 'peer-1',
        onProgress: (p, n) => progress.push([p, n]),
      });
      expect(built.manifest.source.peer).to.equal('peer-1');
      expect(progress.at(-1)).to.deep.equal([14, 14]);
      expect(readFileSync(built.archivePath).length).to.equal(built.size);
      const { files } = await unpack(readFileSync(built.archivePath), cleanup);
      const got = lines(files.get('content/articles.ndjson'));
      const line = got.find((l) => l.syncId === first.syncId)!;
      expect(line.baseChecksum).to.equal('f'.repeat(64));
      expect(got.filter((l) => l.baseChecksum)).to.have.length(1);
      if (hasLinks) expect(line.externalIds).to.deep.equal([{ format: 'csv', entity: 'rows', id: 'row-7' }]);
      expect(existsSync(join(root, `${oldId}.svelty-package`))).to.equal(false);
      const [gone] = await sequelize.query('SELECT COUNT(*) AS n FROM cms_content_exports WHERE package_id = ?', {
        type: 'SELECT',
        replacements: [oldId],
      });
      expect(Number(gone.n)).to.equal(0);
    });
  });
}
