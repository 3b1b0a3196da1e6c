import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { startChildInstance, startCuttingProxy, type ChildInstance, type CuttingProxy } from '../helpers/content-sync-rig.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { MARIADB_URL, REDIS_URL } from '../helpers/services.js';

/**
 * Content sync end to end between two real instances on loopback, in two processes with their own
 * data folders and databases: A (this process) pushes to and pulls from B (a child process) through a
 * channel holding an API key of B with content:read and content:sync.
 */
const AUTHORS = { name: 'authors', fields: [{ name: 'name', type: 'text', required: true }] };
const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'author', type: 'relation', collection: 'authors' },
  ],
};

interface Api {
  call(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
}

const kernelApi = (t: TestKernel): Api => ({
  async call(method, path, json) {
    const res = await t.request(path, { method, identity: 'admin', ...(json !== undefined ? { json } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  },
});
const childApi = (c: ChildInstance): Api => ({ call: (method, path, json) => c.as('admin', method, path, json) });

async function ok(api: Api, method: string, path: string, json?: unknown, status = [200, 201]): Promise<any> {
  const res = await api.call(method, path, json);
  expect(status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.include(res.status);
  return res.body?.data;
}

async function entries(api: Api, collection: string): Promise<any[]> {
  return (await ok(api, 'GET', `/api/collections/${collection}?limit=100&sort=createdAt`)).items;
}

async function setupCollections(api: Api) {
  await ok(api, 'POST', '/api/collections', AUTHORS);
  await ok(api, 'POST', '/api/collections', POSTS);
}

function variants() {
  return [
    { name: 'A and B on SQLite', a: {} as Parameters<typeof startTestKernel>[0], available: true },
    {
      name: 'A on MariaDB + Redis, B on SQLite',
      a: { db: 'mariadb', cache: 'redis' } as Parameters<typeof startTestKernel>[0],
      available: Boolean(MARIADB_URL && REDIS_URL),
    },
  ];
}

for (const variant of variants()) {
  describe(`content sync: push and pull between two instances (${variant.name})`, function () {
    this.timeout(180000);
    let a: TestKernel;
    let b: ChildInstance;
    let A: Api;
    let B: Api;
    let channelId: string;
    let proxy: CuttingProxy;
    let proxiedChannelId: string;
    let key: string;
    const options = { chunkBytes: 512, retryDelayMs: 10, requestTimeoutMs: 10000, retries: 3, remoteJobPollMs: 100 };

    before(async function () {
      if (!variant.available) return this.skip();
      [a, b] = await Promise.all([
        startTestKernel({
          ...variant.a,
          plugins: [fixturePlugin('test-identity')],
          // Both instances are on loopback: the operator switch lets the channel reach them.
          config: { outbound: { allowPrivate: true }, plugins: { options: { 'content-sync': options } } } as never,
          captureLogs: 'debug',
        }),
        startChildInstance(),
      ]);
      A = kernelApi(a);
      B = childApi(b);
      await Promise.all([setupCollections(A), setupCollections(B)]);
      key = (await b.apiKey(['content:read', 'content:sync'])).key;
      channelId = (await ok(A, 'POST', '/api/content-sync/channels', { name: 'B', url: b.url, apiKey: key })).channelId;
      proxy = await startCuttingProxy(b.url);
      proxiedChannelId = (await ok(A, 'POST', '/api/content-sync/channels', { name: 'B via proxy', url: proxy.url, apiKey: key }))
        .channelId;
    });
    after(async () => {
      await proxy?.close();
      await Promise.all([a?.close(), b?.stop()]);
    });

    const plan = (direction: 'push' | 'pull', extra: Record<string, unknown> = {}, channel = channelId) =>
      ok(A, 'POST', '/api/content-sync/plan', { channelId: channel, direction, ...extra });
    const apply = (direction: 'push' | 'pull', body: Record<string, unknown>) => A.call('POST', `/api/content-sync/${direction}`, body);

    it('push creates the entries on B with the same syncIds and the relations re-pointed', async function () {
      const ada = await ok(A, 'POST', '/api/collections/authors', { name: 'Ada', status: 'published' });
      const bob = await ok(A, 'POST', '/api/collections/authors', { name: 'Bob', status: 'published' });
      for (const [title, author] of [
        ['First', ada],
        ['Second', bob],
        ['Third', ada],
      ] as const)
        await ok(A, 'POST', '/api/collections/posts', { title, author: author._id, status: 'published' });

      const p = await plan('push');
      expect(p.domain).to.equal('content-sync-push');
      expect(p.summary, JSON.stringify(p)).to.include({ created: 5, updated: 0, deleted: 0 });
      expect(p.operations.at(-1)).to.include({ type: 'remote-apply', target: 'B', count: 0 });
      expect(JSON.stringify(p)).to.not.contain('sck_');
      const done = await apply('push', { planId: p.planId, confirmed: false, planHash: p.planHash });
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');

      const [aPosts, bPosts, bAuthors] = [await entries(A, 'posts'), await entries(B, 'posts'), await entries(B, 'authors')];
      expect(bPosts.map((e) => e.syncId).sort()).to.deep.equal(aPosts.map((e) => e.syncId).sort());
      const aAuthors = await entries(A, 'authors');
      for (const post of bPosts) {
        const source = aPosts.find((e) => e.syncId === post.syncId)!;
        const sourceAuthor = aAuthors.find((e) => e._id === source.author)!;
        const target = bAuthors.find((e) => e._id === post.author);
        expect(target, `post ${post.title} points to an author of B`).to.not.equal(undefined);
        expect(target.syncId).to.equal(sourceAuthor.syncId);
        expect(post.title).to.equal(source.title);
      }
    });

    it('a repeated push plans nothing to create or update (no duplicates)', async function () {
      const p = await plan('push');
      expect(p.summary, JSON.stringify(p)).to.include({ created: 0, updated: 0, deleted: 0 });
      const done = await apply('push', { planId: p.planId, confirmed: false });
      expect(done.body.data.outcome).to.equal('success');
      expect(await entries(B, 'posts')).to.have.length(3);
    });

    it("pull brings B's new entries to A; a repeated pull plans nothing", async function () {
      const bAuthors = await entries(B, 'authors');
      const created = await ok(B, 'POST', '/api/collections/posts', { title: 'From B', author: bAuthors[1]._id, status: 'published' });
      const p = await plan('pull');
      expect(p.domain).to.equal('content-sync');
      expect(p.summary, JSON.stringify(p)).to.include({ created: 1, updated: 0, deleted: 0 });
      const done = await apply('pull', { planId: p.planId, confirmed: false });
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      const pulled = (await entries(A, 'posts')).find((e) => e.syncId === created.syncId);
      expect(pulled?.title).to.equal('From B');
      const author = (await entries(A, 'authors')).find((e) => e._id === pulled.author);
      expect(author?.syncId).to.equal(bAuthors[1].syncId);

      const again = await plan('pull');
      expect(again.summary, JSON.stringify(again)).to.include({ created: 0, updated: 0, deleted: 0 });
      const push = await plan('push');
      expect(push.summary, JSON.stringify(push)).to.include({ created: 0, updated: 0, deleted: 0 });
    });

    it('an entry changed on one side only is not reverted by a sync from the other side', async function () {
      const aPost = (await entries(A, 'posts')).find((e) => e.title === 'Second');
      const bPost = (await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId);
      await ok(B, 'PATCH', `/api/collections/posts/${bPost._id}`, { title: 'Second (edited on B only)' });
      const push = await plan('push');
      expect(push.summary, JSON.stringify(push)).to.include({ created: 0, updated: 0 });
      expect((await apply('push', { planId: push.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('Second (edited on B only)');
      const pull = await plan('pull');
      expect(pull.summary, JSON.stringify(pull)).to.include({ created: 0, updated: 1 });
      expect((await apply('pull', { planId: pull.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(A, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('Second (edited on B only)');
      await ok(A, 'PATCH', `/api/collections/posts/${aPost._id}`, { title: 'Second (edited on A only)' });
      const pullAgain = await plan('pull');
      expect(pullAgain.summary, JSON.stringify(pullAgain)).to.include({ created: 0, updated: 0 });
      const pushAgain = await plan('push');
      expect(pushAgain.summary, JSON.stringify(pushAgain)).to.include({ created: 0, updated: 1 });
      expect((await apply('push', { planId: pushAgain.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('Second (edited on A only)');
    });

    it('an entry changed on both sides is a conflict: a warning, skipped, kept as it is on the target', async function () {
      const aPost = (await entries(A, 'posts')).find((e) => e.title === 'First');
      const bPost = (await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId);
      await ok(A, 'PATCH', `/api/collections/posts/${aPost._id}`, { title: 'First (A)' });
      await ok(B, 'PATCH', `/api/collections/posts/${bPost._id}`, { title: 'First (B)' });
      for (const direction of ['push', 'pull'] as const) {
        const p = await plan(direction);
        const conflict = p.warnings.find((w: { message: string; item?: string }) => /conflict/.test(w.message));
        expect(conflict, JSON.stringify(p.warnings)).to.not.equal(undefined);
        expect(conflict.item).to.equal(`posts/${aPost.syncId}`);
        expect(p.summary.updated).to.equal(0);
        const done = await apply(direction, { planId: p.planId, confirmed: false });
        expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      }
      expect((await entries(A, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('First (A)');
      expect((await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('First (B)');
      // Still a conflict the next time (nothing was recorded as agreed for it).
      const next = await plan('push');
      expect(next.warnings.some((w: { item?: string }) => w.item === `posts/${aPost.syncId}`)).to.equal(true);
      // conflictStrategy source: the pushing side wins.
      const forced = await plan('push', { conflictStrategy: 'source' });
      expect(forced.summary.updated).to.equal(1);
      expect((await apply('push', { planId: forced.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(B, 'posts')).find((e) => e.syncId === aPost.syncId).title).to.equal('First (A)');
    });

    it('a conflict carries both sides (titles, fields that differ, update times); per-entry resolutions keep one side each', async function () {
      for (const title of ['Keep A', 'Take B']) await ok(A, 'POST', '/api/collections/posts', { title, status: 'published' });
      const first = await plan('push');
      expect((await apply('push', { planId: first.planId, confirmed: false })).body.data.outcome).to.equal('success');
      const onA = (await entries(A, 'posts')).filter((e) => e.title === 'Keep A' || e.title === 'Take B');
      const onB = await entries(B, 'posts');
      const keep = onA.find((e) => e.title === 'Keep A');
      const take = onA.find((e) => e.title === 'Take B');
      for (const e of [keep, take]) {
        await ok(A, 'PATCH', `/api/collections/posts/${e._id}`, { title: `${e.title} (edited on A)` });
        await ok(B, 'PATCH', `/api/collections/posts/${onB.find((x) => x.syncId === e.syncId)._id}`, { title: `${e.title} (edited on B)` });
      }
      const keepItem = `posts/${keep.syncId}`;
      const takeItem = `posts/${take.syncId}`;

      // Push plan: B plans (target = B, source = A's package); every conflict says both sides.
      const p = await plan('push');
      const conflictOf = (pl: any, item: string) => pl.warnings.find((w: any) => w.item === item)?.conflict;
      const c = conflictOf(p, keepItem);
      expect(c, JSON.stringify(p.warnings)).to.deep.include({ collection: 'posts', syncId: keep.syncId, resolution: 'target' });
      expect(c.source.title).to.equal('Keep A (edited on A)');
      expect(c.target.title).to.equal('Keep A (edited on B)');
      expect(c.changedFields).to.deep.equal(['title']);
      expect(Number.isNaN(Date.parse(c.source.updatedAt)), c.source.updatedAt).to.equal(false);
      expect(Number.isNaN(Date.parse(c.target.updatedAt)), c.target.updatedAt).to.equal(false);
      expect(conflictOf(p, takeItem).target.title).to.equal('Take B (edited on B)');
      // Pull plan: A plans (target = A, source = B's package).
      const pp = await plan('pull');
      expect(conflictOf(pp, keepItem)).to.deep.include({ resolution: 'target' });
      expect(conflictOf(pp, keepItem).target.title).to.equal('Keep A (edited on A)');
      expect(conflictOf(pp, keepItem).source.title).to.equal('Keep A (edited on B)');

      // Keep A's version of one (the push's source wins), B's of the other (B keeps it, then A takes it with a pull).
      const chosen = await plan('push', { resolutions: { [keepItem]: 'source', [takeItem]: 'target' } });
      expect(conflictOf(chosen, keepItem).resolution).to.equal('source');
      expect(conflictOf(chosen, takeItem).resolution).to.equal('target');
      expect(chosen.summary.updated).to.equal(1);
      expect((await apply('push', { planId: chosen.planId, confirmed: false })).body.data.outcome).to.equal('success');
      const back = await plan('pull', { resolutions: { [takeItem]: 'source' } });
      expect(back.summary.updated, JSON.stringify(back)).to.equal(1);
      expect((await apply('pull', { planId: back.planId, confirmed: false })).body.data.outcome).to.equal('success');
      const title = async (api: Api, syncId: string) => (await entries(api, 'posts')).find((e) => e.syncId === syncId).title;
      expect(await title(A, keep.syncId)).to.equal('Keep A (edited on A)');
      expect(await title(B, keep.syncId)).to.equal('Keep A (edited on A)');
      expect(await title(A, take.syncId)).to.equal('Take B (edited on B)');
      expect(await title(B, take.syncId)).to.equal('Take B (edited on B)');
      // Both sides agree now: neither direction has a conflict on them.
      for (const direction of ['push', 'pull'] as const) {
        const again = await plan(direction);
        expect(
          again.warnings.filter((w: any) => w.item === keepItem || w.item === takeItem),
          direction,
        ).to.deep.equal([]);
      }
    });

    it('resolutions that are not `<collection>/<syncId>` -> source|target are 400 VALIDATION_ERROR, and nothing is planned', async function () {
      for (const resolutions of [{ nope: 'source' }, { 'posts/x': 'mine' }, 'source']) {
        const res = await A.call('POST', '/api/content-sync/plan', { channelId, direction: 'push', resolutions });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(res.body.issues)).to.contain('resolutions');
      }
    });

    it('a mirror push deletes on B only with confirmed: true', async function () {
      const victim = (await entries(A, 'posts')).find((e) => e.title === 'Third');
      await ok(A, 'DELETE', `/api/collections/posts/${victim._id}`);
      const p = await plan('push', { mode: 'mirror' });
      expect(p.mode).to.equal('mirror');
      expect(p.risk).to.equal('destructive');
      expect(p.requiresConfirmation).to.equal(true);
      expect(p.summary.deleted, JSON.stringify(p)).to.equal(1);
      const refused = await apply('push', { planId: p.planId, confirmed: false });
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('CONFIRMATION_REQUIRED');
      expect((await entries(B, 'posts')).some((e) => e.syncId === victim.syncId)).to.equal(true);
      const done = await apply('push', { planId: p.planId, confirmed: true });
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      expect((await entries(B, 'posts')).some((e) => e.syncId === victim.syncId)).to.equal(false);
      const jobs = await ok(A, 'GET', '/api/content-sync/jobs');
      expect(jobs.jobs).to.be.an('array');
    });

    it('a dropped connection mid-transfer resumes, both ways', async function () {
      await ok(A, 'POST', '/api/collections/posts', { title: 'Through the proxy', status: 'published' });
      proxy.cutNext('PUT', /\/remote\/uploads\//, { at: 'request' }, 1);
      const p = await plan('push', {}, proxiedChannelId);
      expect(proxy.cuts, proxy.seen.join('\n')).to.equal(1);
      expect(p.summary.created).to.equal(1);
      expect((await apply('push', { planId: p.planId, confirmed: false })).body.data.outcome).to.equal('success');

      await ok(B, 'POST', '/api/collections/posts', { title: 'Back through the proxy', status: 'published' });
      proxy.cutNext('GET', /\/remote\/packages\//, { at: 'response', afterBytes: 300 });
      const pull = await plan('pull', {}, proxiedChannelId);
      expect(proxy.cuts, proxy.seen.join('\n')).to.equal(2);
      expect(pull.summary.created).to.equal(1);
      expect((await apply('pull', { planId: pull.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(A, 'posts')).some((e) => e.title === 'Back through the proxy')).to.equal(true);
      // The downloaded package was removed on B (it no longer counts toward B's open transfers).
      const removed = proxy.seen.find((line) => /^DELETE \/api\/content-sync\/remote\/packages\//.test(line));
      expect(removed, proxy.seen.join('\n')).to.not.equal(undefined);
      const gone = await fetch(`${b.url}${removed!.slice('DELETE '.length)}`, { headers: { authorization: `Bearer ${key}` } });
      expect(gone.status).to.equal(404);
    });

    it("a remote that changed after the push was planned answers PLAN_STALE: our outcome is rollback with the remote's code", async function () {
      await ok(A, 'POST', '/api/collections/posts', { title: 'Stale push', status: 'published' });
      const p = await plan('push');
      expect(p.summary.created).to.equal(1);
      const bPost = (await entries(B, 'posts'))[0];
      await ok(B, 'PATCH', `/api/collections/posts/${bPost._id}`, { title: `${bPost.title} (edited on B)` });
      const done = await apply('push', { planId: p.planId, confirmed: false });
      expect(done.status).to.equal(200);
      expect(done.body.data.outcome).to.equal('rollback');
      expect(done.body.data.error.code).to.equal('SYNC_REMOTE_REFUSED');
      expect(done.body.data.error.message).to.contain('PLAN_STALE').and.not.contain('sck_');
      expect((await entries(B, 'posts')).some((e) => e.title === 'Stale push')).to.equal(false);
      // Planned again, it goes through.
      const again = await plan('push');
      expect((await apply('push', { planId: again.planId, confirmed: false })).body.data.outcome).to.equal('success');
      expect((await entries(B, 'posts')).some((e) => e.title === 'Stale push')).to.equal(true);
    });

    it('at 500 entities a push runs as a job here, and the remote applies it as a job too', async function () {
      for (let i = 0; i < 5; i++)
        await ok(A, 'POST', '/api/collections/authors/batch', {
          entries: Array.from({ length: 100 }, (_, n) => ({ name: `Bulk ${i * 100 + n}`, status: 'published' })),
        });
      const p = await plan('push', { collections: ['authors'] });
      expect(p.summary.created).to.equal(500);
      const queued = await apply('push', { planId: p.planId, confirmed: false });
      expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
      const jobId = queued.body.data.jobId;
      let job: any;
      for (let i = 0; i < 600; i++) {
        job = (await ok(A, 'GET', `/api/content-sync/jobs?jobId=${jobId}`)).jobs[0];
        if (job.status === 'completed' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job, JSON.stringify(job)).to.include({ status: 'completed', outcome: 'success', domain: 'content-sync-push' });
      expect(job.summary.created).to.equal(500);
      const remoteJobs = await b.as('admin', 'GET', '/api/content-import/jobs');
      expect(
        remoteJobs.body.data.jobs.some((j: { outcome?: string }) => j.outcome === 'success'),
        'a job ran on B',
      ).to.equal(true);
      const total = (await ok(B, 'GET', '/api/collections/authors?limit=1')).total;
      expect(total).to.equal((await ok(A, 'GET', '/api/collections/authors?limit=1')).total);
      const again = await plan('push', { collections: ['authors'] });
      expect(again.summary).to.include({ created: 0, updated: 0 });
      const all = await ok(A, 'GET', '/api/content-sync/jobs');
      expect(all.jobs.map((j: { jobId: string }) => j.jobId)).to.include(jobId);
    });

    it('with includeMedia a push carries the media files: the entry on B points to a media record of B', async function () {
      const PHOTOS = {
        name: 'photos',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'image', type: 'media' },
        ],
      };
      await Promise.all([ok(A, 'POST', '/api/collections', PHOTOS), ok(B, 'POST', '/api/collections', PHOTOS)]);
      const uploaded = await uploadFile(a, await imageBytes(40, 30), 'pic.png', { identity: 'admin' });
      const media = ((await uploaded.json()) as any).data;
      expect(uploaded.status, JSON.stringify(media)).to.be.oneOf([200, 201]);
      const mediaId = media._id ?? media.id;
      await ok(A, 'POST', '/api/collections/photos', { title: 'A picture', image: mediaId, status: 'published' });
      const p = await plan('push', { collections: ['photos'], includeMedia: true });
      expect(p.summary.created, JSON.stringify(p)).to.be.at.least(1);
      const done = await apply('push', { planId: p.planId, confirmed: false });
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      const photo = (await entries(B, 'photos')).find((e) => e.title === 'A picture');
      expect(photo?.image, JSON.stringify(photo)).to.be.a('string');
      expect((await B.call('GET', `/api/media/${photo.image}`)).status).to.equal(200);
    });

    it("an image inserted in rich text (the editor's Image button) travels with its entry: it answers 200 on B, a repeated push changes nothing", async function () {
      const NOTES = {
        name: 'notes',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'body', type: 'richtext' },
        ],
      };
      await Promise.all([ok(A, 'POST', '/api/collections', NOTES), ok(B, 'POST', '/api/collections', NOTES)]);
      const png = await imageBytes(36, 20);
      const uploaded = await uploadFile(a, png, 'inline picture.png', { identity: 'admin' });
      const media = ((await uploaded.json()) as any).data;
      expect(uploaded.status, JSON.stringify(media)).to.be.oneOf([200, 201]);
      // What the editor's Image button stores: an <img> whose src is the media item's url, with its alt text.
      const html = `<p>Before</p><img src="${media.url}" alt="A small picture"><p>After <a href="${media.url}">the file</a></p>`;
      await ok(A, 'POST', '/api/collections/notes', { title: 'With a picture', body: html, status: 'published' });
      expect((await fetch(`${b.url}${media.url}`)).status, 'not on B before the push').to.equal(404);

      const p = await plan('push', { collections: ['notes'], includeMedia: true });
      expect(p.operations.find((o: { type: string }) => o.type === 'media')?.count, JSON.stringify(p.operations)).to.equal(1);
      const done = await apply('push', { planId: p.planId, confirmed: false });
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');

      const note = (await entries(B, 'notes')).find((e) => e.title === 'With a picture');
      const srcs = [...String(note?.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(srcs, String(note?.body)).to.have.length(2);
      expect(srcs[0]).to.equal(srcs[1]);
      expect(srcs[0]).to.match(/^\/files\//);
      const image = await fetch(`${b.url}${srcs[0]}`);
      expect(image.status, `${srcs[0]} on B`).to.equal(200);
      expect(Buffer.from(await image.arrayBuffer()).equals(png)).to.equal(true);
      // Only the URL changed: the text and the alt text are as stored on A.
      const onA = (await entries(A, 'notes')).find((e) => e.title === 'With a picture');
      expect(String(note?.body).replaceAll(srcs[0]!, media.url)).to.equal(onA?.body);

      const again = await plan('push', { collections: ['notes'], includeMedia: true });
      expect(again.summary, JSON.stringify(again)).to.include({ created: 0, updated: 0 });
    });

    it("the channel's key is nowhere in clear: not in A's tables (channels, plans, audit entries), nor in its logs", async function () {
      const db = a.kernel.sequelize;
      const tables =
        db.getDialect() === 'sqlite'
          ? (await db.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'", { type: QueryTypes.SELECT })).map(
              (r) => r.name,
            )
          : (await db.query<Record<string, string>>('SHOW TABLES', { type: QueryTypes.SELECT })).map((r) => Object.values(r)[0]!);
      expect(tables).to.include.members(['cms_content_sync_channels', 'cms_data_plans']);
      const secret = key.slice(4);
      for (const table of tables) {
        const rows = await db.query(`SELECT * FROM ${db.getQueryInterface().quoteIdentifier(table)}`, { type: QueryTypes.SELECT });
        expect(JSON.stringify(rows), table).to.not.contain(secret);
      }
      const audit = await db.query<{ operation: string }>("SELECT operation FROM cms_audit_log WHERE domain = 'content-sync'", {
        type: QueryTypes.SELECT,
      });
      expect(audit.map((r) => r.operation)).to.include.members(['apply', 'channel-create']);
      const plans = await db.query('SELECT COUNT(*) AS n FROM cms_data_plans', { type: QueryTypes.SELECT });
      expect(Number((plans[0] as { n: number }).n)).to.be.greaterThan(5);
      expect(a.logs.length).to.be.greaterThan(0);
      expect(a.logs.join('\n')).to.not.contain(secret);
      expect(b.output()).to.not.contain(secret);
    });
  });
}
