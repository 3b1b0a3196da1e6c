import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { as, dataOf, planPackageImport } from '../helpers/content.js';
import { buildPackage, checksumOf, mediaRef, ref, tarEntry, tarGz, type TestField } from '../helpers/content-package.js';
import { type TestResponse, useIdentityKernel } from '../helpers/kernel.js';
import { imageBytes, sha256 } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';

const TEXT: TestField[] = [
  { name: 'title', type: 'text' },
  { name: 'views', type: 'number' },
];

for (const variant of DB_VARIANTS) {
  describe(`content import: validate, plan, apply (${variant.name})`, function () {
    this.timeout(120000);
    const admin = () => as(t, 'admin');

    const upload = async (bytes: Buffer, identity = 'admin'): Promise<TestResponse> => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'content.svelty-package');
      return t.request('/api/content-import/validate', { method: 'POST', body: form, identity });
    };
    const validated = async (bytes: Buffer) => {
      const data = await dataOf(await upload(bytes));
      expect(data.valid, JSON.stringify(data.problems)).to.equal(true);
      return data.uploadId as string;
    };
    const plan = async (body: Record<string, unknown>, identity = 'admin') =>
      dataOf(await t.request('/api/content-import/plan', { method: 'POST', identity, json: body }));
    const apply = async (p: { planId: string; planHash: string }, confirmed?: boolean) => {
      const res = await admin().post('/api/content-import/apply', {
        planId: p.planId,
        planHash: p.planHash,
        ...(confirmed ? { confirmed } : {}),
      });
      return { status: res.status, body: await res.json() };
    };
    const importPackage = async (bytes: Buffer, body: Record<string, unknown> = {}) => {
      const uploadId = await validated(bytes);
      const p = await plan({ uploadId, ...body });
      expect(p.blockedReasons, JSON.stringify(p)).to.deep.equal([]);
      const a = await apply(p, p.requiresConfirmation);
      expect(a.status, JSON.stringify(a.body)).to.equal(200);
      expect(a.body.data.outcome, JSON.stringify(a.body)).to.equal('success');
      expect(a.body.data.verify, JSON.stringify(a.body.data.verify)).to.deep.equal({ ok: true, discrepancies: [] });
      return { plan: p, result: a.body.data };
    };
    const collection = async (name: string, fields: TestField[]) => {
      const r = await admin().post('/api/collections', { name, fields });
      expect(r.status, await r.text()).to.equal(201);
    };
    const create = async (name: string, body: Record<string, unknown>) => dataOf(await admin().post(`/api/collections/${name}`, body), 201);
    const items = async (name: string): Promise<any[]> => {
      const data = await dataOf(await admin().get(`/api/collections/${name}?limit=100&sort=slug`));
      return data.items;
    };
    const bySlug = async (name: string) => Object.fromEntries((await items(name)).map((e) => [e.slug, e]));

    const t = useIdentityKernel(
      variant,
      {},
      {
        config: {
          plugins: {
            options: { 'content-packages': { importMaxEntries: 60, importMaxExtractedBytes: 8 * 1024 * 1024, importMaxRatio: 200 } },
          },
        },
      },
    );

    it('needs content:import: a viewer gets 403 on validate and plan', async () => {
      const bytes = await buildPackage({ collections: [{ name: 'perm', fields: TEXT, entries: [] }] });
      expect((await upload(bytes, 'viewer')).status).to.equal(403);
      expect(
        (await t.request('/api/content-import/plan', { method: 'POST', identity: 'viewer', json: { uploadId: randomUUID() } })).status,
      ).to.equal(403);
      expect((await t.request('/api/content-import/jobs', { identity: 'viewer' })).status).to.equal(200);
    });

    it('modes: add creates, merge updates what changed and skips what is equal, mirror deletes the rest (confirmation required)', async () => {
      await collection('modes', TEXT);
      const a = { syncId: randomUUID(), slug: 'a', fields: { title: 'A', views: 1 } };
      const b = { syncId: randomUUID(), slug: 'b', fields: { title: 'B', views: 2 } };
      const events: string[] = [];
      const bus = t.kernel.container.resolve<any>('events');
      const stop = [
        bus.subscribe('on:create', (e: any) => void (e.payload.collection === 'modes' && events.push(`create ${e.payload.entry.slug}`))),
        bus.subscribe('on:update', (e: any) => void (e.payload.collection === 'modes' && events.push(`update ${e.payload.entry.slug}`))),
        bus.subscribe('on:delete', (e: any) => void (e.payload.collection === 'modes' && events.push(`delete ${e.payload.entry.slug}`))),
        bus.subscribe('on:publish', (e: any) => void (e.payload.collection === 'modes' && events.push(`publish ${e.payload.entry.slug}`))),
      ];
      const first = await importPackage(await buildPackage({ collections: [{ name: 'modes', fields: TEXT, entries: [a, b] }] }), {
        mode: 'add',
      });
      expect(first.result.summary).to.include({ created: 2, updated: 0, deleted: 0 });
      let now = await bySlug('modes');
      expect(now.a).to.include({ title: 'A', views: 1, syncId: a.syncId, status: 'published' });
      const localOnly = await create('modes', { slug: 'local', title: 'only here' });

      // add never updates: a changed entry is skipped with a warning
      const changed = { ...a, fields: { title: 'A2', views: 1 } };
      const pkg2 = await buildPackage({ collections: [{ name: 'modes', fields: TEXT, entries: [changed, b] }] });
      const addPlan = await plan({ uploadId: await validated(pkg2), mode: 'add' });
      expect(addPlan.summary).to.include({ created: 0, updated: 0, skipped: 2 });
      expect(addPlan.warnings.map((w: any) => w.message).join()).to.match(/mode add never updates/);

      const merged = await importPackage(pkg2, { mode: 'merge' });
      expect(merged.plan.summary).to.include({ created: 0, updated: 1, skipped: 1, deleted: 0 });
      now = await bySlug('modes');
      expect(now.a).to.include({ title: 'A2', version: 2 });
      expect(now.local._id).to.equal(localOnly._id);
      const revisions = await dataOf(await admin().get(`/api/collections/modes/${now.a._id}/revisions`));
      expect(JSON.stringify(revisions)).to.include('import');

      const uploadId = await validated(pkg2);
      const mirror = await plan({ uploadId, mode: 'mirror' });
      expect(mirror).to.include({ risk: 'destructive', requiresConfirmation: true });
      expect(mirror.summary).to.include({ deleted: 1 });
      const refused = await apply(mirror);
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('CONFIRMATION_REQUIRED');
      expect(Object.keys(await bySlug('modes')).sort()).to.deep.equal(['a', 'b', 'local']);
      const done = await apply(mirror, true);
      expect(done.status).to.equal(200);
      expect(done.body.data.outcome).to.equal('success');
      expect(Object.keys(await bySlug('modes')).sort()).to.deep.equal(['a', 'b']);
      // entry events after each commit: 2 creates (created published: on:publish too), the update of a, the mirror
      // delete (the API create of 'local' too)
      await until(async () => (events.includes('delete local') ? true : undefined), 'the delete event');
      for (const off of stop) off();
      expect(events.filter((e) => e !== 'create local').sort()).to.deep.equal([
        'create a',
        'create b',
        'delete local',
        'publish a',
        'publish b',
        'update a',
      ]);
    });

    it('duplicate strategies: skip, update, copy (de-duplicated slug), fail (blocked)', async () => {
      await collection('dups', TEXT);
      const here = await create('dups', { slug: 'same', title: 'here', views: 1, status: 'published' });
      const incoming = { slug: 'same', fields: { title: 'from package', views: 9 } };
      const pkg = await buildPackage({ collections: [{ name: 'dups', fields: TEXT, entries: [incoming] }] });
      const skip = await plan({ uploadId: await validated(pkg), duplicateStrategy: 'skip' });
      expect(skip.summary).to.include({ created: 0, updated: 0, skipped: 1 });
      const fail = await plan({ uploadId: await validated(pkg), duplicateStrategy: 'fail' });
      expect(fail.blockedReasons.join()).to.match(/duplicate of entry/);
      const blocked = await apply(fail);
      expect(blocked.status).to.equal(400);
      expect(blocked.body.error).to.equal('PLAN_BLOCKED');
      await importPackage(pkg, { duplicateStrategy: 'copy' });
      let now = await bySlug('dups');
      expect(now.same).to.include({ _id: here._id, title: 'here' });
      expect(now['same-2']).to.include({ title: 'from package', views: 9 });
      expect(now['same-2'].syncId).to.not.equal(here.syncId);
      await importPackage(pkg, { duplicateStrategy: 'update' });
      now = await bySlug('dups');
      expect(now.same).to.include({ _id: here._id, title: 'from package', views: 9 });
    });

    it('identity: syncId beats the slug, external ids (earlier import from the same source), natural key of a unique field', async () => {
      await collection('ids', [...TEXT, { name: 'code', type: 'text', unique: true }]);
      const fields: TestField[] = [...TEXT, { name: 'code', type: 'text', unique: true }];
      const x = await create('ids', { slug: 'x', title: 'X', code: 'cx' });
      const y = await create('ids', { slug: 'y', title: 'Y', code: 'cy' });
      // syncId of x, slug of y: x is updated (its slug y is taken by y: de-duplicated), y untouched
      const r1 = await importPackage(
        await buildPackage({
          collections: [
            { name: 'ids', fields, entries: [{ syncId: x.syncId, slug: 'y', fields: { title: 'X by syncId', views: null, code: 'cx' } }] },
          ],
        }),
      );
      expect(r1.result.summary).to.include({ updated: 1, created: 0 });
      expect(r1.plan.warnings.map((w: any) => w.message).join()).to.include("slug 'y' is taken here");
      const afterSync = await bySlug('ids');
      expect(afterSync['y-2']).to.include({ _id: x._id, title: 'X by syncId' });
      expect(afterSync.y).to.include({ _id: y._id, title: 'Y' });
      // natural key: a unique field's value
      await importPackage(
        await buildPackage({
          collections: [
            { name: 'ids', fields, entries: [{ slug: 'other-slug', fields: { title: 'Y by code', views: null, code: 'cy' } }] },
          ],
        }),
      );
      const now = await bySlug('ids');
      expect(now['other-slug']).to.include({ _id: y._id, title: 'Y by code' });
      // external id: an entry imported before from the same source installation (sourceId), then renamed here
      const sourceId = randomUUID();
      await importPackage(
        await buildPackage({
          installationId: 'inst-ext',
          collections: [{ name: 'ids', fields, entries: [{ sourceId, slug: 'z', fields: { title: 'Z', views: null, code: 'cz' } }] }],
        }),
      );
      const z = (await bySlug('ids')).z;
      await dataOf(await admin().patch(`/api/collections/ids/${z._id}`, { slug: 'z-renamed', code: 'cz-here' }));
      const r3 = await importPackage(
        await buildPackage({
          installationId: 'inst-ext',
          collections: [
            { name: 'ids', fields, entries: [{ sourceId, slug: 'z-new', fields: { title: 'Z again', views: null, code: 'cz2' } }] },
          ],
        }),
      );
      expect(r3.result.summary).to.include({ updated: 1, created: 0 });
      expect((await bySlug('ids'))['z-new']).to.include({ _id: z._id, title: 'Z again' });
      // external id: the importers' link of a target entry
      const w = await create('ids', { slug: 'w', title: 'W', code: 'cw' });
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      await sequelize.query(
        "INSERT INTO import_links (tenant_id, format, entity, external_id, collection, entry_id, checksum, updated_at) VALUES ('default', 'wordpress', 'post', '42', 'ids', ?, 'x', 0)",
        { replacements: [w._id] },
      );
      const r4 = await importPackage(
        await buildPackage({
          collections: [
            {
              name: 'ids',
              fields,
              entries: [
                {
                  slug: 'w-wp',
                  externalIds: [{ format: 'wordpress', entity: 'post', id: '42' }],
                  fields: { title: 'W from WP', views: null, code: 'cw2' },
                },
              ],
            },
          ],
        }),
      );
      expect(r4.result.summary).to.include({ updated: 1, created: 0 });
      expect((await bySlug('ids'))['w-wp']).to.include({ _id: w._id, title: 'W from WP' });
    });

    it('several candidates: a warning with the item and a blocked plan, until a mapping resolves it', async () => {
      const fields: TestField[] = [...TEXT, { name: 'code', type: 'text', unique: true }];
      await collection('amb', fields);
      const a = await create('amb', { slug: 'a', title: 'A', code: 'ca' });
      const b = await create('amb', { slug: 'b', title: 'B', code: 'cb' });
      const syncId = randomUUID();
      const pkg = await buildPackage({
        collections: [{ name: 'amb', fields, entries: [{ syncId, slug: 'a', fields: { title: 'merged', views: null, code: 'cb' } }] }],
      });
      const uploadId = await validated(pkg);
      const p = await plan({ uploadId });
      const item = `amb/${syncId}`;
      const w = p.warnings.find((x: any) => x.item === item);
      expect(w, JSON.stringify(p.warnings)).to.not.equal(undefined);
      expect(w.message).to.include(a._id).and.include(b._id);
      expect(p.blockedReasons.join()).to.include(item);
      const mapped = await plan({ uploadId, mappings: { [item]: b._id } });
      expect(mapped.blockedReasons).to.deep.equal([]);
      expect((await apply(mapped)).body.data.outcome).to.equal('success');
      const now = await bySlug('amb');
      expect(now.a).to.include({ _id: a._id, title: 'A' });
      expect(Object.values(now).find((e: any) => e._id === b._id)).to.include({ title: 'merged' });
    });

    it('conflicts: changed here and in the package since the base checksum -> skipped with a warning, or the package wins', async () => {
      await collection('conf', TEXT);
      const syncId = randomUUID();
      const base = { syncId, slug: 'c', fields: { title: 'base', views: 0 } };
      await importPackage(
        await buildPackage({ installationId: 'inst-conf', collections: [{ name: 'conf', fields: TEXT, entries: [base] }] }),
      );
      const here = (await bySlug('conf')).c;
      await dataOf(await admin().patch(`/api/collections/conf/${here._id}`, { title: 'changed here' }));
      const theirs = {
        ...base,
        fields: { title: 'changed there', views: 0 },
        baseChecksum: checksumOf({ slug: 'c', status: 'published', fields: base.fields }),
      };
      const pkg = await buildPackage({ installationId: 'inst-conf', collections: [{ name: 'conf', fields: TEXT, entries: [theirs] }] });
      const uploadId = await validated(pkg);
      const p = await plan({ uploadId });
      expect(p.warnings.find((w: any) => w.item === `conf/${syncId}`)?.message).to.match(/conflict/);
      expect(p.summary).to.include({ updated: 0, skipped: 1 });
      await apply(p);
      expect((await bySlug('conf')).c.title).to.equal('changed here');
      const wins = await plan({ uploadId, conflictStrategy: 'source' });
      expect(wins.summary).to.include({ updated: 1 });
      expect((await apply(wins)).body.data.outcome).to.equal('success');
      expect((await bySlug('conf')).c.title).to.equal('changed there');
      // without baseChecksum: the base is the ledger's agreed checksum for the source installation (recorded by that apply)
      await dataOf(await admin().patch(`/api/collections/conf/${here._id}`, { title: 'changed here again' }));
      const third = await buildPackage({
        installationId: 'inst-conf',
        collections: [{ name: 'conf', fields: TEXT, entries: [{ ...base, fields: { title: 'changed there again', views: 0 } }] }],
      });
      const p3 = await plan({ uploadId: await validated(third) });
      expect(p3.warnings.find((w: any) => w.item === `conf/${syncId}`)?.message).to.match(/conflict/);
      // from another installation there is no agreed base: an ordinary update
      const fromElsewhere = await buildPackage({
        installationId: 'inst-other',
        collections: [{ name: 'conf', fields: TEXT, entries: [{ ...base, fields: { title: 'changed there again', views: 0 } }] }],
      });
      const p4 = await plan({ uploadId: await validated(fromElsewhere) });
      expect(p4.warnings).to.deep.equal([]);
      expect(p4.summary).to.include({ updated: 1 });
      // without a base (no ledger entry from another installation) it is an ordinary update
    });

    it('relations point to the target ids; a collection missing here is created; media are carried over and served', async () => {
      await collection('authors', TEXT);
      const existing = await create('authors', { slug: 'ann', title: 'Ann' });
      const png = await imageBytes(8, 8);
      const newAuthor = randomUUID();
      const pkg = await buildPackage({
        collections: [
          {
            name: 'authors',
            fields: TEXT,
            entries: [
              { syncId: existing.syncId, slug: 'ann', status: 'draft', fields: { title: 'Ann', views: null } },
              { syncId: newAuthor, slug: 'bob', fields: { title: 'Bob', views: null } },
            ],
          },
          {
            name: 'articles',
            singular: 'article',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'author', type: 'relation', collection: 'authors' },
              { name: 'cover', type: 'media' },
            ],
            entries: [
              { slug: 'one', fields: { title: 'One', author: ref('authors', existing.syncId), cover: mediaRef('m1') } },
              { slug: 'two', fields: { title: 'Two', author: ref('authors', newAuthor), cover: mediaRef('m2') } },
            ],
          },
        ],
        media: [
          { id: 'm1', filename: 'cover.png', mimeType: 'image/png', bytes: png },
          { id: 'm2', filename: 'gone.png', mimeType: 'image/png', bytes: Buffer.from('not here'), withFile: false },
        ],
      });
      const uploadId = await validated(pkg);
      const p = await plan({ uploadId });
      expect(p.operations.map((o: any) => `${o.action} ${o.type} ${o.target}`)).to.include.members([
        'create collection articles',
        'create media media files',
      ]);
      expect(p.warnings.map((w: any) => w.message).join()).to.match(/media m2 is neither here nor in the package/);
      const a = await apply(p);
      expect(a.body.data.outcome, JSON.stringify(a.body)).to.equal('success');
      expect(a.body.data.verify.ok, JSON.stringify(a.body.data.verify)).to.equal(true);
      const authors = await bySlug('authors');
      const articles = await bySlug('articles');
      expect(articles.one.author).to.equal(existing._id);
      expect(articles.two.author).to.equal(authors.bob._id);
      expect(articles.two.cover).to.equal(null);
      const media = await dataOf(await admin().get(`/api/media/${articles.one.cover}`));
      expect(media.checksum).to.equal(sha256(png));
      const file = await t.request(media.url, { identity: 'admin' });
      expect(file.status).to.equal(200);
      expect(sha256(Buffer.from(await file.arrayBuffer()))).to.equal(sha256(png));
      // importing again: the media record is matched by its SHA-256, nothing new
      const again = await plan({ uploadId: await validated(pkg) });
      expect(again.operations.map((o: any) => o.type)).to.not.include('media');
      expect(again.summary).to.include({ created: 0, updated: 0 });
    });

    it('a failing row rolls everything back: no entries, the created collection and media removed', async () => {
      const fields: TestField[] = [
        { name: 'title', type: 'text' },
        { name: 'code', type: 'text', unique: true },
        { name: 'pic', type: 'media' },
      ];
      const png = await imageBytes(9, 9);
      const pkg = await buildPackage({
        collections: [
          {
            name: 'broken',
            singular: 'broken_item',
            fields,
            entries: [
              { slug: 'one', fields: { title: '1', code: 'same', pic: mediaRef('p') } },
              { slug: 'two', fields: { title: '2', code: 'same', pic: null } },
            ],
          },
        ],
        media: [{ id: 'p', filename: 'p.png', mimeType: 'image/png', bytes: png }],
      });
      const p = await plan({ uploadId: await validated(pkg) });
      expect(p.blockedReasons).to.deep.equal([]);
      const a = await apply(p);
      expect(a.status).to.equal(200);
      expect(a.body.data.outcome).to.equal('rollback');
      expect(a.body.data.summary).to.include({ created: 0, updated: 0 });
      expect((await admin().get('/api/collections/broken')).status).to.equal(404);
      const media = await dataOf(await admin().get('/api/media?limit=100'));
      expect(media.items.map((m: any) => m.checksum)).to.not.include(sha256(png));
    });

    it('500 entities or more: the apply is a background job that completes', async () => {
      await collection('bulk', TEXT);
      const entries = Array.from({ length: 520 }, (_, i) => ({ slug: `e${i}`, fields: { title: `Entry ${i}`, views: i } }));
      const p = await plan({ uploadId: await validated(await buildPackage({ collections: [{ name: 'bulk', fields: TEXT, entries }] })) });
      expect(p.summary).to.include({ created: 520 });
      // the plan holds one operation per chunk of at most 500 entities (the decisions are in staging files)
      expect(p.operations.filter((o: any) => o.type === 'entry').map((o: any) => o.count)).to.deep.equal([500, 20]);
      const stored = await t.kernel.container
        .resolve<any>('dataOps')
        .getPlan(p.planId, { kind: 'user', userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' });
      expect(JSON.stringify(stored.operationsFull).length).to.be.below(4000);
      const a = await apply(p);
      expect(a.status, JSON.stringify(a.body)).to.equal(202);
      const jobId = a.body.data.jobId;
      const job = await until(
        async () => {
          const j = (await dataOf(await admin().get(`/api/content-import/jobs?jobId=${jobId}`))).jobs[0];
          return j.status === 'completed' || j.status === 'failed' ? j : undefined;
        },
        'the import job',
        60000,
      );
      expect(job).to.include({ status: 'completed', outcome: 'success' });
      const list = await dataOf(await admin().get('/api/collections/bulk?limit=1'));
      expect(list.total).to.equal(520);
    });

    it('hostile archives are refused with codes and leave nothing on disk', async () => {
      const cases: Array<[Buffer, number, string]> = [
        [tarGz(tarEntry('../evil.txt', 'x')), 400, 'CONTENT_IMPORT_UNSAFE_PATH'],
        [tarGz(tarEntry('/etc/evil.txt', 'x')), 400, 'CONTENT_IMPORT_UNSAFE_PATH'],
        [tarGz(tarEntry('manifest.json', '', '2', '/etc/passwd')), 400, 'CONTENT_IMPORT_LINK'],
        [tarGz(tarEntry('fifo', '', '6')), 400, 'CONTENT_IMPORT_SPECIAL_FILE'],
        [tarGz(...Array.from({ length: 61 }, (_, i) => tarEntry(`f${i}.txt`, 'x'))), 413, 'CONTENT_IMPORT_LIMIT:importMaxEntries'],
        [tarGz(tarEntry('big.bin', randomBytes(9 * 1024 * 1024))), 413, 'CONTENT_IMPORT_LIMIT:importMaxExtractedBytes'],
        [tarGz(tarEntry('bomb.bin', Buffer.alloc(4 * 1024 * 1024))), 413, 'CONTENT_IMPORT_LIMIT:importMaxRatio'],
        [Buffer.from('not a gzip'), 400, 'CONTENT_IMPORT_ARCHIVE_INVALID'],
        [gzipSync(Buffer.from('not a tar at all')), 400, 'CONTENT_IMPORT_ARCHIVE_INVALID'],
      ];
      const before = existsSync(join(t.dataDir, 'packages', 'imports')) ? readdirSync(join(t.dataDir, 'packages', 'imports')).length : 0;
      for (const [bytes, status, code] of cases) {
        const r = await upload(bytes);
        const body = await r.json();
        expect(r.status, JSON.stringify(body)).to.equal(status);
        expect(body.limit ? `${body.error}:${body.limit}` : body.error).to.equal(code);
      }
      expect(readdirSync(join(t.dataDir, 'packages', 'imports')).length).to.equal(before);
      expect(existsSync(join(t.dataDir, 'evil.txt'))).to.equal(false);
    });

    it('contentPackages.receive(archivePath) takes a file (moved into the upload folder) and validates it like an upload', async () => {
      const path = join(t.dataDir, 'received.svelty-package');
      writeFileSync(
        path,
        await buildPackage({ collections: [{ name: 'recv', fields: TEXT, entries: [{ slug: 'r', fields: { title: 'R', views: 1 } }] }] }),
      );
      const service = t.kernel.container.resolve<any>('contentPackages');
      const v = await service.receive(path, { kind: 'user', userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' });
      expect(v).to.include({ valid: true });
      expect(v.problems).to.deep.equal([]);
      expect(v.manifest.collections.map((c: any) => c.name)).to.deep.equal(['recv']);
      expect(existsSync(path)).to.equal(false);
      const p = await plan({ uploadId: v.uploadId });
      expect(p.operations.map((o: any) => `${o.action} ${o.type} ${o.target}`)).to.deep.equal([
        'create collection recv',
        'create entry recv',
      ]);
      // creating a collection needs collections:manage (an editor's plan is blocked)
      const p2 = join(t.dataDir, 'received2.svelty-package');
      writeFileSync(p2, await buildPackage({ collections: [{ name: 'recv2', fields: TEXT, entries: [] }] }));
      const v2 = await service.receive(p2, {
        kind: 'user',
        userId: 'user-editor',
        role: 'editor',
        permissions: ['content:import'],
        tenantId: 'default',
      });
      const byEditor = await dataOf(await as(t, 'editor').post('/api/content-import/plan', { uploadId: v2.uploadId }));
      expect(byEditor.blockedReasons.join()).to.match(/collections:manage/);
      // another tenant does not see the upload
      const other = await as(t, 'admin', 'other').post('/api/content-import/plan', { uploadId: v.uploadId });
      expect(other.status).to.equal(404);
      expect((await other.json()).error).to.equal('CONTENT_IMPORT_UPLOAD_NOT_FOUND');
    });

    it('a damaged file or an unknown format version is valid: false with problems naming the cause; its plan is blocked', async () => {
      const pkg = await buildPackage({
        collections: [{ name: 'dmg', fields: TEXT, entries: [{ slug: 'a', fields: { title: 'A', views: 1 } }] }],
        tamper: { path: 'content/dmg.ndjson', bytes: Buffer.from('{"tampered":true}\n') },
      });
      const data = await dataOf(await upload(pkg));
      expect(data.valid).to.equal(false);
      expect(data.problems.join()).to.include('content/dmg.ndjson');
      const p = await plan({ uploadId: data.uploadId });
      expect(p.blockedReasons.length).to.be.greaterThan(0);
      const v2 = await dataOf(await upload(await buildPackage({ version: 2, collections: [] })));
      expect(v2.valid).to.equal(false);
      expect(v2.problems.join()).to.match(/version 2/);
      // a field of another type than here is a problem too
      await collection('typed', TEXT);
      const typed = await dataOf(
        await upload(await buildPackage({ collections: [{ name: 'typed', fields: [{ name: 'views', type: 'text' }], entries: [] }] })),
      );
      expect(typed.valid).to.equal(false);
      expect(typed.problems.join()).to.match(/views/);
    });

    it('round trip: a package the exporter wrote (relations, media) imports into another tenant; importing it again changes nothing', async () => {
      await collection('rtauthors', TEXT);
      const rtFields = [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'relation', collection: 'rtauthors' },
        { name: 'cover', type: 'media' },
      ];
      const r = await admin().post('/api/collections', { name: 'rtposts', singular: 'rtpost', fields: rtFields });
      expect(r.status, await r.text()).to.equal(201);
      const png = await imageBytes(7, 7);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png)]), 'rt.png');
      const media = await dataOf(await t.request('/api/media/upload', { method: 'POST', body: form, identity: 'admin' }), 201);
      const mediaId = media._id ?? media.items?.[0]?._id ?? media[0]?._id;
      const author = await create('rtauthors', { slug: 'ada', title: 'Ada', views: 3, status: 'published' });
      await create('rtposts', { slug: 'p1', title: 'P1', author: author._id, cover: mediaId, status: 'published' });
      const exportPlan = await dataOf(
        await admin().post('/api/content-export/plan', { collections: ['rtauthors', 'rtposts'], includeMedia: true }),
      );
      const run = await admin().post('/api/content-export/run', { planId: exportPlan.planId, planHash: exportPlan.planHash });
      const runData = (await run.json()).data;
      expect(run.status, JSON.stringify(runData)).to.equal(200);
      const dl = await t.request(runData.downloadUrl, { identity: 'admin' });
      expect(dl.status).to.equal(200);
      const bytes = Buffer.from(await dl.arrayBuffer());

      const other = as(t, 'admin', 'other');
      const up = async () => {
        const { plan, validated } = await planPackageImport(t, bytes, 'other');
        expect(validated.manifest.collections.map((c: any) => c.name).sort()).to.deep.equal(['rtauthors', 'rtposts']);
        return plan;
      };
      const p = await up();
      expect(p.blockedReasons).to.deep.equal([]);
      expect(p.summary).to.include({ created: 3 });
      const a = await other.post('/api/content-import/apply', { planId: p.planId });
      const ad = (await a.json()).data;
      expect(ad.outcome, JSON.stringify(ad)).to.equal('success');
      expect(ad.verify.ok).to.equal(true);
      const posts = (await dataOf(await other.get('/api/collections/rtposts'))).items;
      const authors = (await dataOf(await other.get('/api/collections/rtauthors'))).items;
      expect(authors).to.have.length(1);
      expect(authors[0]).to.include({ slug: 'ada', title: 'Ada', views: 3, syncId: author.syncId });
      expect(authors[0]._id).to.not.equal(author._id);
      expect(posts[0]).to.include({ slug: 'p1', title: 'P1', author: authors[0]._id });
      expect(posts[0].cover).to.not.equal(mediaId);
      const copied = await dataOf(await other.get(`/api/media/${posts[0].cover}`));
      expect(copied.checksum).to.equal(sha256(png));
      const again = await up();
      expect(again.summary).to.include({ created: 0, updated: 0, deleted: 0, skipped: 2 });
    });
  });
}
