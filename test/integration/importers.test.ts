import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import * as tar from 'tar';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { finishedImportJob } from '../helpers/importers.js';
import { postAs } from '../helpers/content.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const PLUGINS = [fixturePlugin('test-identity'), fixturePlugin('import-example')];

/** A .kv file of the example format: posts, one author, one attachment by URL. */
function kvPosts(n: number, opts: { authors?: boolean; suffix?: string; prefix?: string } = {}): string {
  const blocks: string[] = [];
  for (let i = 1; i <= n; i++) {
    blocks.push(
      [
        `entity=posts`,
        `id=${opts.prefix ?? 'p'}${i}`,
        `title=Post ${i}${opts.suffix ?? ''}`,
        `body=Body of post ${i}`,
        `views=${i * 10}`,
        `post_date_gmt=2024-01-0${(i % 9) + 1} 10:00:00`,
        'status=published',
      ].join('\n'),
    );
  }
  if (opts.authors) blocks.push(['entity=authors', 'id=a1', 'display_name=Ada', 'Variant SKU=X-1'].join('\n'));
  return blocks.join('\n\n') + '\n';
}

function form(content: string | Buffer, filename: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), filename);
  return fd;
}

/** Parses a text/event-stream body into events. */
function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.+)$/m.exec(block)?.[1];
      return { event, data: data ? JSON.parse(data) : null };
    });
}

for (const variant of DB_VARIANTS) {
  describe(`importers: validate / preview / run / jobs / stream (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    const post = (path: string, body: FormData | unknown, identity = 'editor') => postAs(t, identity, path, body);
    const validate = async (content: string | Buffer, filename: string, fields: Record<string, string> = {}, identity = 'editor') => {
      const res = await post('/api/importers/validate', form(content, filename, fields), identity);
      return { status: res.status, body: await res.json() };
    };
    const entries = async (collection: string) =>
      (await (await t.request(`/api/collections/${collection}?limit=100`, { identity: 'admin' })).json()).data;
    const waitForJob = (jobId: string) => finishedImportJob(t, jobId, 'editor', 600);
    /** The plan of a preview of the kv_blocks upload with `options` (mappings, mode): the answer's data. */
    const planOf = async (uploadId: string, options: Record<string, unknown> = { mappings: { posts: 'posts' } }) =>
      (await (await post('/api/importers/preview', { format: 'kv_blocks', uploadId, ...options })).json()).data;

    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({ db: variant.name, plugins: PLUGINS });
      const res = await post(
        '/api/collections',
        {
          name: 'posts',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'body', type: 'richtext' },
            { name: 'views', type: 'number' },
            { name: 'publishedAt', type: 'date' },
          ],
        },
        'admin',
      );
      expect(res.status).to.equal(201);
    });
    after(() => t?.close());

    it('GET /api/importers/sources lists the registered formats', async () => {
      const res = await t.request('/api/importers/sources', { identity: 'viewer' });
      expect(res.status).to.equal(200);
      const { sources } = (await res.json()).data;
      const kv = sources.find((s: any) => s.format === 'kv_blocks');
      expect(kv).to.deep.equal({
        format: 'kv_blocks',
        label: 'Key=value blocks',
        extensions: ['.kv'],
        features: ['entities', 'delta-import'],
        description: 'Records as key=value lines, one blank line between records; `entity=` and `id=` are special.',
      });
    });

    it('validate detects the format from the content (any file name) and summarises the entities', async () => {
      const { status, body } = await validate(kvPosts(3, { authors: true }), 'export.txt');
      expect(status).to.equal(200);
      expect(body.data).to.include({ valid: true, detectedFormat: 'kv_blocks' });
      expect(body.data.confidence).to.be.greaterThan(0.5);
      expect(body.data.summary).to.deep.equal({ posts: 3, authors: 1 });
      expect(body.data.blockedReasons).to.deep.equal([]);
      expect(body.data.uploadId).to.match(/^[0-9a-f-]{36}$/);
    });

    it('validate with a format hint: known and matching, unknown (400), not matching (400)', async () => {
      expect((await validate(kvPosts(1), 'a.kv', { format: 'kv_blocks' })).body.data.detectedFormat).to.equal('kv_blocks');
      const unknown = await validate(kvPosts(1), 'a.kv', { format: 'nope' });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error).to.equal('IMPORT_FORMAT_UNKNOWN');
      const mismatch = await validate('{"a": [1, 2, 3]}', 'a.json', { format: 'kv_blocks' });
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.error).to.equal('IMPORT_FORMAT_MISMATCH');
    });

    it('a file no format recognises: 200 with valid false and a blocked reason', async () => {
      const { status, body } = await validate(Buffer.from(Array.from({ length: 300 }, (_, i) => i % 5)), 'junk.bin');
      expect(status).to.equal(200);
      expect(body.data.valid).to.equal(false);
      expect(body.data.blockedReasons[0]).to.match(/No import format/);
    });

    it('a hostile archive (../ and absolute entries) is refused cleanly, nothing written outside the job folder', async () => {
      const dir = tempDir('cms-hostile-');
      mkdirSync(join(dir, 'a', 'b'), { recursive: true });
      writeFileSync(join(dir, 'a', 'evil.txt'), 'pwned');
      writeFileSync(join(dir, 'a', 'b', 'ok.json'), '{"x": 1}');
      const archive = join(dir, 'hostile.tar.gz');
      await tar.c({ gzip: true, file: archive, cwd: join(dir, 'a', 'b'), preservePaths: true }, ['../evil.txt', 'ok.json']);
      const { status, body } = await validate(readFileSync(archive), 'hostile.tar.gz');
      expect(status).to.equal(200);
      expect(body.data.valid).to.equal(false);
      expect(body.data.warnings.map((w: any) => w.message).join(' ')).to.match(/unsafe paths.*\.\.\/evil\.txt/);
      expect(existsSync(join(t.dataDir, 'evil.txt'))).to.equal(false);
      expect(existsSync(join(t.dataDir, 'imports', 'evil.txt'))).to.equal(false);
      expect(readdirSync(join(t.dataDir, 'imports'))).to.not.include(body.data.uploadId);
    });

    it('preview maps fields automatically; an entity without a collection is skipped with a note', async () => {
      const { body } = await validate(kvPosts(3, { authors: true }), 'posts.kv');
      const res = await post('/api/importers/preview', { format: 'kv_blocks', uploadId: body.data.uploadId, mappings: { posts: 'posts' } });
      expect(res.status).to.equal(200);
      const plan = (await res.json()).data;
      expect(plan.planId).to.match(/^[0-9a-f-]{36}$/);
      expect(plan.scaffold).to.equal(false);
      const byField = Object.fromEntries(plan.fieldMappings.filter((m: any) => m.entity === 'posts').map((m: any) => [m.sourceField, m]));
      expect(byField.title).to.include({ targetField: 'title', confidence: 1, type: 'text' });
      expect(byField.views).to.include({ targetField: 'views', type: 'number' });
      expect(byField.post_date_gmt.targetField).to.equal('publishedAt');
      expect(plan.operations.find((o: any) => o.sourceType === 'posts')).to.include({
        action: 'create',
        sourceType: 'posts',
        targetCollection: 'posts',
        count: 3,
        target: 'existing',
        statuses: 'draft',
      });
      const authors = plan.operations.find((o: any) => o.sourceType === 'authors');
      expect(authors).to.include({ action: 'skip', targetCollection: null, count: 1, target: 'new' });
      expect(authors.note).to.match(/need a new collection 'authors': allow the import to create new collections/);
      expect(authors.note).to.not.match(/scaffold/);
      expect(plan.estimatedDurationMs).to.be.a('number');
      // A target the content plugin would refuse is refused here, naming the mapping, not at run time.
      for (const bad of ['wixPosts', 'batch', '9lives']) {
        const refused = await post('/api/importers/preview', {
          format: 'kv_blocks',
          uploadId: body.data.uploadId,
          mappings: { posts: bad },
        });
        expect(refused.status, bad).to.equal(400);
        const err = await refused.json();
        expect(err.error).to.equal('VALIDATION_ERROR');
        expect(err.issues[0].path).to.equal('body.mappings.posts');
      }
    });

    it("preview defaults to the caller's latest valid upload; an unknown upload is 404", async () => {
      await validate(kvPosts(2), 'latest.kv');
      const res = await post('/api/importers/preview', { format: 'kv_blocks' });
      expect(res.status).to.equal(200);
      expect((await res.json()).data.operations[0]).to.include({ sourceType: 'posts', count: 2 });
      const missing = await post('/api/importers/preview', { format: 'kv_blocks', uploadId: '00000000-0000-4000-8000-000000000000' });
      expect(missing.status).to.equal(404);
      expect((await missing.json()).error).to.equal('IMPORT_UPLOAD_NOT_FOUND');
    });

    it('scaffold: a missing collection is created with inferred types, camelCase names and _source_import', async () => {
      const { body } = await validate(kvPosts(1, { authors: true }), 'with-authors.kv', {}, 'admin');
      const res = await post('/api/importers/preview', { format: 'kv_blocks', uploadId: body.data.uploadId, scaffold: true }, 'admin');
      const answer = await res.json();
      expect(res.status, JSON.stringify(answer)).to.equal(200);
      const plan = answer.data;
      expect(plan.operations.find((o: any) => o.sourceType === 'authors')).to.include({
        action: 'scaffold',
        sourceType: 'authors',
        targetCollection: 'authors',
        count: 1,
        target: 'new',
        statuses: 'keep',
      });
      const authors = plan.collections.find((c: any) => c.name === 'authors');
      expect(authors.fields.map((f: any) => f.name)).to.include.members(['displayName', 'variantSku', '_source_import']);
      expect(authors.widgets.displayName).to.equal('input');
      const run = await post('/api/importers/run', { planId: plan.planId, confirmed: true }, 'admin');
      const job = await waitForJob((await run.json()).jobId);
      expect(job.results.authors).to.include({ imported: 1, failed: 0 });
      const list = await entries('authors');
      expect(list.items[0]).to.include({ displayName: 'Ada', variantSku: 'X-1' });
      expect(list.items[0]._source_import).to.include({ format: 'kv_blocks', externalId: 'a1' });
      expect(list.items[0]._source_import.importedAt).to.be.a('string');
      // The created collection's fields carry their default editing widget.
      const schema = (await (await t.request('/api/collections/authors/schema', { identity: 'admin' })).json()).data;
      const widgetOf = (name: string) => schema.fields.find((f: any) => f.name === name)?.widget;
      expect(widgetOf('displayName')).to.equal('input');
      expect(widgetOf('_source_import')).to.equal('code-editor');
    });

    it('scaffold needs collections:manage (editor: 403)', async () => {
      const { body } = await validate(kvPosts(1, { authors: true }), 'x.kv');
      const res = await post('/api/importers/preview', { format: 'kv_blocks', uploadId: body.data.uploadId, scaffold: true });
      expect(res.status).to.equal(403);
    });

    describe('run', () => {
      let planId: string;
      before(async () => {
        const { body } = await validate(kvPosts(3, { prefix: 'run' }), 'run.kv');
        // Into an existing collection the default is drafts; this run keeps the source's statuses.
        planId = (await planOf(body.data.uploadId, { mappings: { posts: { collection: 'posts', statuses: 'keep' } } })).planId;
      });

      it('refuses without confirmed: true', async () => {
        const res = await post('/api/importers/run', { planId, confirmed: false });
        expect(res.status).to.equal(400);
        expect((await res.json()).error).to.equal('IMPORT_NOT_CONFIRMED');
      });

      it('below 100 entities runs inline: the job is completed when run answers; a second run of the plan is 409', async () => {
        // Each imported entry announces on:create and, imported published, on:publish (webhooks deliver both).
        const announced: string[] = [];
        const bus = t.kernel.container.resolve<any>('events');
        const offs = ['on:create', 'on:publish'].map((name) =>
          bus.subscribe(name, (e: any) => void (e.payload.collection === 'posts' && announced.push(`${name} ${e.payload.entry.title}`))),
        );
        const res = await post('/api/importers/run', { planId, confirmed: true });
        expect(res.status).to.equal(200);
        const body = await res.json();
        expect(body).to.include({ success: true, status: 'processing' });
        const job = (await (await t.request(`/api/importers/jobs/${body.jobId}`, { identity: 'viewer' })).json()).data;
        expect(job).to.include({ jobId: body.jobId, status: 'completed', format: 'kv_blocks' });
        expect(job.progress).to.deep.equal({ processed: 3, total: 3 });
        expect(job.results.posts).to.include({ imported: 3, failed: 0 });
        expect(job.completedAt).to.be.a('string');
        expect(job.durationMs).to.be.a('number');
        const list = await entries('posts');
        const first = list.items.find((e: any) => e.title === 'Post 1');
        expect(first).to.include({ views: 10, status: 'published', publishedAt: '2024-01-02T10:00:00.000Z' });
        for (let i = 0; i < 100 && announced.length < 6; i++) await new Promise((r) => setTimeout(r, 20));
        offs.forEach((off: () => void) => off());
        expect(announced.sort()).to.deep.equal(
          ['Post 1', 'Post 2', 'Post 3'].flatMap((title) => [`on:create ${title}`, `on:publish ${title}`]).sort(),
        );
        const again = await post('/api/importers/run', { planId, confirmed: true });
        expect(again.status).to.equal(409);
        expect((await again.json()).error).to.equal('IMPORT_ALREADY_RUN');
      });

      it('re-importing the same file does not duplicate (add mode skips; merge updates what changed)', async () => {
        const before = (await entries('posts')).total;
        const v1 = await validate(kvPosts(3, { prefix: 'run' }), 'run.kv');
        const p1 = await planOf(v1.body.data.uploadId);
        expect(p1.operations[0].note).to.match(/matched by external id/);
        const r1 = await (await post('/api/importers/run', { planId: p1.planId, confirmed: true })).json();
        const j1 = await waitForJob(r1.jobId);
        expect(j1.results.posts).to.include({ imported: 0, skipped: 3 });
        expect((await entries('posts')).total).to.equal(before);
        const v2 = await validate(kvPosts(3, { suffix: ' (edited)', prefix: 'run' }), 'run.kv');
        const p2 = await planOf(v2.body.data.uploadId, { mode: 'merge', mappings: { posts: 'posts' } });
        const j2 = await waitForJob((await (await post('/api/importers/run', { planId: p2.planId, confirmed: true })).json()).jobId);
        expect(j2.results.posts).to.include({ imported: 3, updated: 3 });
        const after = await entries('posts');
        expect(after.total).to.equal(before);
        expect(after.items.some((e: any) => e.title === 'Post 2 (edited)')).to.equal(true);
      });

      it('at or above 100 entities runs as a background job, polled to completion', async () => {
        const { body } = await validate(kvPosts(150).replace(/id=p/g, 'id=bg'), 'big.kv');
        const plan = await planOf(body.data.uploadId);
        const res = await post('/api/importers/run', { planId: plan.planId, confirmed: true });
        expect(res.status).to.equal(200);
        const run = await res.json();
        expect(run.status).to.equal('processing');
        expect(run.message).to.match(/background/);
        const job = await waitForJob(run.jobId);
        expect(job.status).to.equal('completed');
        expect(job.results.posts).to.include({ imported: 150, failed: 0 });
        expect(job.progress).to.deep.equal({ processed: 150, total: 150 });
      });

      it('a run is followed as server-sent events on GET /api/importers/jobs/:jobId/events (progress, then complete)', async () => {
        const { body } = await validate(kvPosts(120).replace(/id=p/g, 'id=ev'), 'events.kv');
        const plan = await planOf(body.data.uploadId);
        const run = await (await post('/api/importers/run', { planId: plan.planId, confirmed: true })).json();
        const res = await t.request(`/api/importers/jobs/${run.jobId}/events`, { identity: 'viewer' });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
        const events = parseSse(await res.text());
        const last = events.at(-1)!;
        expect(last.event).to.equal('complete');
        expect(last.data).to.include({ imported: 120, failed: 0, jobId: run.jobId });
        expect(
          events
            .filter((e) => e.event === 'progress')
            .every((e) => e.data.step === 'importing' && e.data.percent >= 0 && e.data.percent <= 100),
        ).to.equal(true);
        // A finished job answers its final event at once; an unknown one is a JSON 404.
        const again = parseSse(await (await t.request(`/api/importers/jobs/${run.jobId}/events`, { identity: 'viewer' })).text());
        expect(again.at(-1)!.event).to.equal('complete');
        const missing = await t.request('/api/importers/jobs/nope/events', { identity: 'viewer' });
        expect(missing.status).to.equal(404);
        expect((await missing.json()).error).to.equal('IMPORT_JOB_NOT_FOUND');
      });

      it("an unknown job, or another tenant's, is 404", async () => {
        const res = await t.request('/api/importers/jobs/nope', { identity: 'editor' });
        expect(res.status).to.equal(404);
        expect((await res.json()).error).to.equal('IMPORT_JOB_NOT_FOUND');
      });
    });

    it('POST /api/migration/import streams progress events and a final complete', async () => {
      const fd = form(
        kvPosts(4)
          .replace(/id=p/g, 'id=sse')
          .replace(/entity=posts/g, 'entity=notes'),
        'notes.kv',
        { scaffold: 'true', collection: 'stream_notes' },
      );
      const res = await t.request('/api/migration/import', { method: 'POST', body: fd, identity: 'admin' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = parseSse(await res.text());
      const steps = events.filter((e) => e.event === 'progress').map((e) => e.data.step);
      expect([...new Set(steps)]).to.deep.equal(['detecting', 'parsing', 'mapping', 'importing']);
      for (const e of events.filter((x) => x.event === 'progress')) expect(e.data.percent).to.be.within(0, 100);
      const complete = events.find((e) => e.event === 'complete');
      expect(complete?.data).to.include({ imported: 4, failed: 0 });
      expect(complete?.data.durationMs).to.be.a('number');
      expect((await entries('stream_notes')).total).to.equal(4);
    });

    it('the stream reports an unrecognised upload as an error event', async () => {
      const res = await t.request('/api/migration/import', { method: 'POST', body: form('nothing here', 'x.txt'), identity: 'editor' });
      const events = parseSse(await res.text());
      expect(events.at(-1)).to.deep.include({ event: 'error' });
      expect(events.at(-1)!.data.error).to.equal('IMPORT_UPLOAD_INVALID');
    });

    it('permissions: a viewer cannot POST (403), an anonymous caller gets 401; not multipart is 415', async () => {
      expect((await post('/api/importers/validate', form('a=b', 'a.kv'), 'viewer')).status).to.equal(403);
      expect((await post('/api/migration/import', form('a=b', 'a.kv'), 'viewer')).status).to.equal(403);
      expect((await t.request('/api/importers/validate', { method: 'POST', body: form('a=b', 'a.kv') })).status).to.equal(401);
      expect((await t.request('/api/importers/sources')).status).to.equal(401);
      const notMultipart = await post('/api/importers/validate', { file: 'x' });
      expect(notMultipart.status).to.equal(415);
    });
  });
}
