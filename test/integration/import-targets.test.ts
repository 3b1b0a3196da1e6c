import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import type { TestKernel } from '../helpers/kernel.js';
import { finishedImportJob } from '../helpers/importers.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

/**
 * Issue 33, item 4: imports never land silently in your own collections. The real Strapi 5 export (6 articles)
 * and the WordPress theme unit test WXR: the default target of a source's records is a new collection, an
 * existing one only when chosen (then drafts by default, enforced by the server), a required field the source
 * lacks blocks the plan with words, past runs can be opened again (tenant-scoped), password-protected posts
 * stay private and shortcodes are named in the preview.
 */
for (const variant of DB_VARIANTS) {
  describe(`importers: targets, statuses, past runs (${variant.name})`, function () {
    this.timeout(180000);
    let t: TestKernel;
    let t2Cookie: string;

    const validate = async (dir: string, file: string) => {
      const fd = new FormData();
      fd.append('file', new Blob([readFileSync(join(IMPORT_FIXTURES, dir, file))]), file);
      const res = await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.data.valid, JSON.stringify(body.data)).to.equal(true);
      return body.data as { uploadId: string; detectedFormat: string; summary: Record<string, number> };
    };
    const preview = async (body: Record<string, unknown>) => {
      const res = await t.request('/api/importers/preview', { method: 'POST', json: body, identity: 'admin' });
      const answer = await res.json();
      expect(res.status, JSON.stringify(answer)).to.equal(200);
      return answer.data;
    };
    const op = (plan: any, entity: string) => plan.operations.find((o: any) => o.sourceType === entity);
    const waitForJob = (jobId: string) => finishedImportJob(t, jobId, 'admin', 2400);
    const run = async (planId: string) => {
      const res = await t.request('/api/importers/run', { method: 'POST', json: { planId, confirmed: true }, identity: 'admin' });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(200);
      return waitForJob(body.jobId);
    };
    const list = async (collection: string, identity?: string) => {
      const res = await t.request(`/api/collections/${collection}?limit=100`, identity ? { identity } : {});
      return { status: res.status, body: await res.json() };
    };
    const createCollection = async (name: string, fields: Array<Record<string, unknown>>) => {
      const res = await t.request('/api/collections', { method: 'POST', json: { name, fields }, identity: 'admin' });
      expect(res.status, await res.clone().text()).to.equal(201);
    };

    before(async function () {
      requireVariant(this, variant);
      ({ t, t2Cookie } = await startTwoTenantKernel(variant.name));
      // The user's own public `articles` (as in the issue) and an `authors` with a required field WordPress lacks.
      await createCollection('articles', [
        { name: 'title', type: 'text' },
        { name: 'description', type: 'text' },
      ]);
      const pub = await t.request('/api/collections/articles/public-access', { method: 'PUT', json: { public: true }, identity: 'admin' });
      expect(pub.status, await pub.clone().text()).to.equal(200);
      await createCollection('authors', [
        { name: 'displayName', type: 'text' },
        { name: 'bio', type: 'text', required: true },
      ]);
    });
    after(() => t?.close());

    let strapiRun = '';

    it('Strapi: the articles default to a NEW collection articles_strapi (statuses kept), never the user’s own public articles', async () => {
      const v = await validate('node_cms', 'strapi5-rr7-starter-export.tar.gz');
      expect(v.summary.articles).to.equal(6);
      const plan = await preview({ format: v.detectedFormat, uploadId: v.uploadId, scaffold: true });
      expect(op(plan, 'articles')).to.include({ action: 'scaffold', targetCollection: 'articles_strapi', target: 'new', statuses: 'keep' });
      // Entities whose names are free keep them, as new collections.
      expect(op(plan, 'tags')).to.include({ targetCollection: 'tags', target: 'new' });
      const job = await run(plan.planId);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      expect(job.results.articles).to.include({ imported: 6, failed: 0 });
      strapiRun = job.jobId;
      // The user's own articles are untouched.
      expect((await list('articles', 'admin')).body.data.total).to.equal(0);
      const imported = (await list('articles_strapi', 'admin')).body.data;
      expect(imported.total).to.equal(6);
      expect(imported.items.some((e: any) => e.status === 'published')).to.equal(true);
    });

    it('Strapi into the existing public articles (chosen): drafts by default, the server enforces it, anonymous visitors see none', async () => {
      const v = await validate('node_cms', 'strapi5-rr7-starter-export.tar.gz');
      const plan = await preview({ format: v.detectedFormat, uploadId: v.uploadId, mappings: { articles: 'articles' } });
      const articles = op(plan, 'articles');
      expect(articles).to.include({ action: 'create', targetCollection: 'articles', target: 'existing', statuses: 'draft' });
      expect(articles.emptyFields).to.deep.equal([]);
      expect(articles.unmappedFields).to.include('content');
      const job = await run(plan.planId);
      expect(job.results.articles).to.include({ imported: 6, failed: 0 });
      const own = (await list('articles', 'admin')).body.data;
      expect(own.total).to.equal(6);
      expect(own.items.map((e: any) => e.status)).to.deep.equal(Array(6).fill('draft'));
      const anonymous = await list('articles');
      expect(anonymous.status).to.equal(200);
      expect(anonymous.body.data.total).to.equal(0);
    });

    it("keep the source's statuses into an existing collection when chosen: the published ones are public", async () => {
      await createCollection('stories', [{ name: 'title', type: 'text' }]);
      await t.request('/api/collections/stories/public-access', { method: 'PUT', json: { public: true }, identity: 'admin' });
      const v = await validate('node_cms', 'strapi5-rr7-starter-export.tar.gz');
      const plan = await preview({
        format: v.detectedFormat,
        uploadId: v.uploadId,
        mappings: { articles: { collection: 'stories', statuses: 'keep' } },
      });
      expect(op(plan, 'articles')).to.include({ target: 'existing', statuses: 'keep' });
      await run(plan.planId);
      const published = (await list('stories', 'admin')).body.data.items.filter((e: any) => e.status === 'published').length;
      expect(published).to.be.greaterThan(0);
      expect((await list('stories')).body.data.total).to.equal(published);
    });

    it('WordPress authors into an authors collection with a required field: blocked with words and a way out; by default a new collection', async () => {
      const v = await validate('xml_blog', 'wpimporter-small-export.xml');
      expect(v.summary.authors).to.be.greaterThan(0);
      const chosen = await preview({ format: 'xml_blog', uploadId: v.uploadId, scaffold: true, mappings: { authors: 'authors' } });
      expect(op(chosen, 'authors').requiredMissing).to.deep.equal(['bio']);
      expect(chosen.blockedReasons).to.have.length(1);
      expect(chosen.blockedReasons[0]).to.match(/requires the field 'bio'/);
      expect(chosen.blockedReasons[0]).to.match(/new collection instead, or choose a source field for 'bio'/);
      const refused = await t.request('/api/importers/run', {
        method: 'POST',
        json: { planId: chosen.planId, confirmed: true },
        identity: 'admin',
      });
      expect(refused.status).to.equal(400);
      expect((await refused.json()).error).to.equal('PLAN_BLOCKED');
      expect((await list('authors', 'admin')).body.data.total).to.equal(0);
      // Mapping a source field to the required one is the other way out.
      const mapped = await preview({
        format: 'xml_blog',
        uploadId: v.uploadId,
        scaffold: true,
        mappings: { authors: { collection: 'authors', fields: { login: 'bio' } } },
      });
      expect(mapped.blockedReasons).to.deep.equal([]);
      const plan = await preview({ format: 'xml_blog', uploadId: v.uploadId, scaffold: true });
      expect(op(plan, 'authors')).to.include({ targetCollection: 'authors_wordpress', target: 'new' });
      expect(plan.blockedReasons).to.deep.equal([]);
    });

    it('WordPress fidelity: the password-protected post is imported as a draft (not public); shortcodes are named in the preview', async () => {
      const v = await validate('xml_blog', 'wp-theme-unit-test-data.xml');
      const plan = await preview({ format: 'xml_blog', uploadId: v.uploadId, scaffold: true, mappings: { posts: 'wp_posts' } });
      const names = Object.fromEntries(plan.shortcodes.map((s: any) => [s.name, s.count]));
      expect(names.gallery).to.be.greaterThan(0);
      expect(names.caption).to.be.greaterThan(0);
      const job = await run(plan.planId);
      expect(job.status, JSON.stringify(job.error)).to.equal('completed');
      const res = await t.request('/api/collections/wp_posts?limit=100&search=Protected', { identity: 'admin' });
      const items = (await res.json()).data.items as any[];
      const protectedPost = items.find((e) => e.passwordProtected === true);
      expect(protectedPost, JSON.stringify(items.map((e) => e.title))).to.not.equal(undefined);
      expect(protectedPost.status).to.equal('draft');
      // The content (with its shortcodes) is imported exactly as written.
      const all = (await (await t.request('/api/collections/wp_posts?limit=100', { identity: 'admin' })).json()).data.items as any[];
      expect(all.some((e) => typeof e.content === 'string' && e.content.includes('[gallery'))).to.equal(true);
      // The password itself ('enter' in the fixture) is never stored: only the fact.
      expect(Object.values(protectedPost)).to.not.include('enter');
      // Comments keep their thread: parent keeps the WordPress id, parentEntry is the parent's new entry id.
      const comments = (await (await t.request('/api/collections/comments?limit=100', { identity: 'admin' })).json()).data.items as any[];
      const replies = comments.filter((c) => c.parent);
      expect(replies.length).to.be.greaterThan(5);
      for (const reply of replies) {
        const parent = comments.find((c) => String(c.wpId) === reply.parent);
        expect(parent, `parent ${reply.parent}`).to.not.equal(undefined);
        expect(reply.parentEntry).to.equal(parent._id);
      }
      expect(comments.filter((c) => !c.parent).every((c) => c.parentEntry === null || c.parentEntry === undefined)).to.equal(true);
    });

    it('past runs: listed newest first with source, who and counts, opened again with items; another tenant sees none (404)', async () => {
      const res = await t.request('/api/importers/runs', { identity: 'admin' });
      expect(res.status).to.equal(200);
      const runs = (await res.json()).data.runs as any[];
      const strapi = runs.find((r) => r.jobId === strapiRun);
      expect(strapi).to.include({ format: 'node_cms', source: 'Strapi export (JSON)', filename: 'strapi5-rr7-starter-export.tar.gz' });
      expect(strapi.status).to.equal('completed');
      expect(strapi.counts.imported).to.be.greaterThan(6);
      expect(strapi.targets.find((x: any) => x.sourceType === 'articles')).to.include({
        targetCollection: 'articles_strapi',
        target: 'new',
        statuses: 'keep',
      });
      expect(Date.parse(runs[0].startedAt)).to.be.at.least(Date.parse(runs[runs.length - 1].startedAt));
      const opened = await t.request(`/api/importers/runs/${strapiRun}?limit=200`, { identity: 'admin' });
      expect(opened.status).to.equal(200);
      const view = (await opened.json()).data;
      expect(view.run.jobId).to.equal(strapiRun);
      expect(view.results.articles).to.include({ imported: 6 });
      expect(view.itemsTotal).to.equal(strapi.counts.imported);
      const articles = view.items.filter((i: any) => i.entity === 'articles');
      expect(articles).to.have.length(6);
      const entry = await t.request(`/api/collections/articles_strapi/${articles[0].entryId}`, { identity: 'admin' });
      expect(entry.status).to.equal(200);

      // Tenant t2's admin: none of tenant one's runs, and one of them is not found.
      const other = await t.request('/api/importers/runs', { headers: { ...T2_HOST, cookie: t2Cookie } });
      expect(other.status).to.equal(200);
      expect((await other.json()).data.runs).to.deep.equal([]);
      const foreign = await t.request(`/api/importers/runs/${strapiRun}`, { headers: { ...T2_HOST, cookie: t2Cookie } });
      expect(foreign.status).to.equal(404);
      expect((await foreign.json()).error).to.equal('IMPORT_JOB_NOT_FOUND');
      // Bad input is a 400 with the usual shape.
      const bad = await t.request('/api/importers/runs?limit=0', { identity: 'admin' });
      expect(bad.status).to.equal(400);
      expect((await bad.json()).error).to.equal('VALIDATION_ERROR');
    });
  });
}
