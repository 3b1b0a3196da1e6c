import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, sha256, streamedMultipart, uploadFile, uploadStream } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

const IDENTITY = fixturePlugin('test-identity');
const tempUploads = (t: TestKernel) => {
  const dir = join(t.dataDir, 'tmp');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('media-upload-')) : [];
};

/** The live heap + buffers right now (a full GC first, so garbage does not count). */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveBytes = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

for (const variant of DB_VARIANTS) {
  describe(`media uploads and library (${variant.name})`, function () {
    this.timeout(120000);
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [IDENTITY],
        config: { plugins: { options: { media: { maxUploadMb: 40 } } } },
      },
      { variant },
    );

    const upload = async (bytes: Buffer, name: string, fields: Record<string, string> = {}, tenant?: string) =>
      dataOf(await uploadFile(t, bytes, name, { fields, tenant }), 201);

    describe('uploads', function () {
      it('stores a PNG with its dimensions, WebP thumbnails narrower than it, the checksum of its bytes, and publishes on:media_upload', async function () {
        const png = await imageBytes(1000, 400);
        const events: any[] = [];
        const unsubscribe = t.kernel.events.subscribe('on:media_upload', (e) => void events.push(e.payload));
        const item = await upload(png, 'Holiday Photo.png');
        unsubscribe();
        expect(item).to.include({
          filename: 'Holiday Photo.png',
          mimeType: 'image/png',
          size: png.length,
          checksum: sha256(png),
          width: 1000,
          height: 400,
          folderId: null,
          private: false,
        });
        expect(item.url).to.match(/^\/files\/default\/\d{4}\/\d{2}\/[0-9a-f-]{36}-holiday-photo\.png$/);
        expect(Object.keys(item)).to.include.members(['_id', 'filename', 'mimeType', 'size', 'url', 'checksum']);
        // sm (320) and md (768) are narrower than 1000 px; lg (1536) is not made.
        expect(Object.keys(item.thumbnails)).to.have.members(['sm', 'md']);
        expect(item.thumbnails.sm).to.include({ width: 320, height: 128 });
        const thumb = await t.request(item.thumbnails.md.url);
        expect(thumb.status).to.equal(200);
        expect(thumb.headers.get('content-type')).to.equal('image/webp');
        const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
        expect(meta).to.include({ format: 'webp', width: 768, height: 307 });
        const file = await t.request(item.url);
        expect(Buffer.from(await file.arrayBuffer()).equals(png)).to.equal(true);
        await new Promise((r) => setTimeout(r, 20));
        expect(events).to.deep.equal([
          {
            tenantId: 'default',
            media: { _id: item._id, filename: item.filename, mimeType: 'image/png', size: png.length, url: item.url },
          },
        ]);
        expect(tempUploads(t), 'temporary files left').to.deep.equal([]);
      });

      it("detects a JPEG from its bytes whatever the client calls it; the name stays the client's, the stored path takes the detected extension", async function () {
        const jpeg = await imageBytes(200, 300, 'jpeg');
        const item = await upload(jpeg, 'scan.pdf');
        expect(item).to.include({ mimeType: 'image/jpeg', filename: 'scan.pdf', width: 200, height: 300 });
        expect(item.url).to.match(/-scan\.jpg$/);
        expect(item.thumbnails, 'no thumbnail is wider than the image').to.equal(undefined);
      });

      it('a file named .png holding text is stored as text/plain under its own name; JSON must parse; CSV, SVG and HTML are told apart by content', async function () {
        const text = await upload(Buffer.from('just some notes\nsecond line\n'), 'notes.png');
        expect(text).to.include({ mimeType: 'text/plain', filename: 'notes.png' });
        expect(text.width).to.equal(undefined);
        expect((await upload(Buffer.from('{"a": [1, 2, {"b": null}]}'), 'data.json')).mimeType).to.equal('application/json');
        expect((await upload(Buffer.from('{"a": [1, 2,'), 'broken.json')).mimeType).to.equal('text/plain');
        expect((await upload(Buffer.from('name,qty\napple,3\n'), 'list.csv')).mimeType).to.equal('text/csv');
        expect(
          (
            await upload(
              Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
              'logo.svg',
            )
          ).mimeType,
        ).to.equal('image/svg+xml');
        expect((await upload(Buffer.from('<!DOCTYPE html><html><body>hi</body></html>'), 'page.htm')).mimeType).to.equal('text/html');
      });

      it('binary data without a known signature is refused (415), whatever its name', async function () {
        const res = await uploadFile(t, Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10, 0x80]), 'photo.png');
        expect(res.status).to.equal(415);
        expect(await res.json()).to.include({ success: false, error: 'UNSUPPORTED_MEDIA_TYPE' });
        expect(tempUploads(t)).to.deep.equal([]);
      });

      it('refuses bodies that are not one file with clear 400s and 415s', async function () {
        const ok = Buffer.from('hello');
        const expectError = async (res: Response, status: number, code: string) => {
          const body = await res.json();
          expect(res.status, JSON.stringify(body)).to.equal(status);
          expect(body).to.include({ success: false, error: code });
        };
        await expectError(await uploadFile(t, ok, 'a.txt', { noFile: true, fields: { folderId: '' } }), 400, 'VALIDATION_ERROR');
        await expectError(await uploadFile(t, ok, 'a.txt', { extraFiles: [['file', 'b.txt', ok]] }), 400, 'VALIDATION_ERROR');
        await expectError(
          await uploadFile(t, ok, 'a.txt', { noFile: true, extraFiles: [['other', 'b.txt', ok]] }),
          400,
          'VALIDATION_ERROR',
        );
        await expectError(await uploadFile(t, ok, 'a.txt', { fields: { folderId: 'not-a-folder' } }), 400, 'VALIDATION_ERROR');
        await expectError(
          await uploadFile(t, ok, 'a.txt', { fields: { folderId: '7d9c2a8e-1f7b-4e3c-9a55-0b6c1d2e3f40' } }),
          400,
          'VALIDATION_ERROR',
        );
        await expectError(await uploadFile(t, ok, 'a.txt', { fields: { private: 'maybe' } }), 400, 'VALIDATION_ERROR');
        await expectError(
          await t.request('/api/media/upload', { method: 'POST', identity: 'editor', json: { file: 'x' } }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        await expectError(
          await t.request('/api/media/upload', {
            method: 'POST',
            identity: 'editor',
            headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
            body: 'garbage',
          }),
          400,
          'VALIDATION_ERROR',
        );
        expect(tempUploads(t)).to.deep.equal([]);
      });

      it('needs media:write', async function () {
        expect((await uploadFile(t, Buffer.from('x'), 'a.txt', { identity: 'viewer' })).status).to.equal(403);
        expect((await t.request('/api/media/upload', { method: 'POST', body: new FormData() })).status).to.equal(401);
      });

      it('streams a 30 MB upload to storage without buffering it (live memory stays flat) and stores every byte', async function () {
        const size = 30 * 1024 * 1024;
        const piece = Buffer.alloc(64 * 1024);
        for (let i = 0; i < piece.length; i++) piece[i] = 0x61 + (i % 26);
        piece[piece.length - 1] = 0x0a;
        // One reused buffer on the sending side: what grows is the server's (the kernel runs in this process).
        // The live memory is sampled when a quarter, half, three quarters and 95 % of the body have been sent
        // (a server buffering the body holds most of it by then). Not on a timer: each sample is a full GC,
        // which on the large heap of the whole test run takes long enough to starve the upload.
        const marks = [0.25, 0.5, 0.75, 0.95].map((f) => Math.floor(size * f));
        let peak = 0;
        const before = liveBytes();
        const stream = streamedMultipart(size, 'big.txt', (offset, n) => {
          while (marks.length && offset >= marks[0]!) {
            marks.shift();
            peak = Math.max(peak, liveBytes() - before);
          }
          return piece.subarray(0, n);
        });
        const res = await uploadStream(t, stream);
        expect(marks, 'every sample point was reached').to.deep.equal([]);
        const item = await dataOf(res, 201);
        expect(item).to.include({ size, mimeType: 'text/plain' });
        const expected = sha256(Buffer.concat(Array.from({ length: size / piece.length }, () => piece)));
        expect(item.checksum).to.equal(expected);
        expect(peak, `live heap + buffers grew by ${Math.round(peak / 1048576)} MB during the upload`).to.be.below(20 * 1024 * 1024);
      });
    });

    describe('library', function () {
      let ids: string[] = [];
      let folder: any;
      before(async function () {
        const tenant = 'lib';
        folder = await dataOf(await as(t, 'editor', tenant).post('/api/media/folders', { name: 'Reports' }), 201);
        const png = await imageBytes(64, 64);
        ids = [
          (await upload(png, 'alpha.png', {}, tenant))._id,
          (await upload(Buffer.from('beta text'), 'beta.txt', { folderId: folder._id }, tenant))._id,
          (await upload(Buffer.from('{"gamma": 1}'), 'gamma.json', { folderId: folder._id }, tenant))._id,
          (await upload(await imageBytes(32, 16, 'jpeg'), 'delta.jpg', { private: 'true' }, tenant))._id,
        ];
      });
      const lib = () => as(t, 'editor', 'lib');

      it("lists the tenant's media with filters, search, sort and pages (limit capped at 100)", async function () {
        const all = await dataOf(await lib().get('/api/media'));
        expect(all.total).to.equal(4);
        expect(all).to.include({ page: 1, limit: 25 });
        expect(all.items.map((i: any) => i._id)).to.deep.equal([...ids].reverse());
        const images = await dataOf(await lib().get('/api/media?type=image/'));
        expect(images.items.map((i: any) => i.filename).sort()).to.deep.equal(['alpha.png', 'delta.jpg']);
        expect((await dataOf(await lib().get('/api/media?type=application/json'))).items.map((i: any) => i.filename)).to.deep.equal([
          'gamma.json',
        ]);
        expect(
          (await dataOf(await lib().get(`/api/media?folderId=${folder._id}&sort=filename`))).items.map((i: any) => i.filename),
        ).to.deep.equal(['beta.txt', 'gamma.json']);
        expect((await dataOf(await lib().get('/api/media?folderId=root&sort=filename'))).items.map((i: any) => i.filename)).to.deep.equal([
          'alpha.png',
          'delta.jpg',
        ]);
        expect((await dataOf(await lib().get('/api/media?search=ALP'))).items.map((i: any) => i.filename)).to.deep.equal(['alpha.png']);
        expect((await dataOf(await lib().get('/api/media?search=%25'))).total, 'a % in search is a literal').to.equal(0);
        expect((await dataOf(await lib().get('/api/media?private=true'))).items.map((i: any) => i.filename)).to.deep.equal(['delta.jpg']);
        const page2 = await dataOf(await lib().get('/api/media?limit=3&page=2&sort=-size'));
        expect(page2).to.include({ total: 4, page: 2, limit: 3 });
        expect(page2.items).to.have.length(1);
        expect((await dataOf(await lib().get('/api/media?limit=500'))).limit).to.equal(100);
        expect((await lib().get('/api/media?page=0')).status).to.equal(400);
        expect((await lib().get('/api/media?sort=password')).status).to.equal(400);
      });

      it('is scoped to the tenant: another tenant sees, gets, changes and deletes nothing', async function () {
        const other = as(t, 'editor', 'other');
        expect((await dataOf(await other.get('/api/media'))).total).to.equal(0);
        for (const res of [
          await other.get(`/api/media/${ids[0]}`),
          await other.patch(`/api/media/${ids[0]}`, { filename: 'x.png' }),
          await other.delete(`/api/media/${ids[0]}`),
        ]) {
          expect(res.status).to.equal(404);
          expect((await res.json()).error).to.equal('MEDIA_NOT_FOUND');
        }
        const moved = await dataOf(await other.post('/api/media/move', { ids: [ids[0]], folderId: null }));
        expect(moved).to.deep.equal({ moved: 0, notFound: [ids[0]] });
        expect((await other.post('/api/media/move', { ids: [ids[0]], folderId: folder._id })).status, "another tenant's folder").to.equal(
          400,
        );
        expect(await dataOf(await other.get('/api/media/folders'))).to.deep.equal([]);
        expect((await dataOf(await other.get('/api/media/analytics'))).total).to.deep.equal({ count: 0, bytes: 0 });
      });

      it('gets and renames an item (the new name is kept as given); viewers read but do not write', async function () {
        const item = await dataOf(await as(t, 'viewer', 'lib').get(`/api/media/${ids[1]}`));
        expect(item).to.include({ _id: ids[1], filename: 'beta.txt', folderId: folder._id });
        expect((await t.request(item.url)).headers.get('content-disposition')).to.include('filename="beta.txt"');
        const renamed = await dataOf(await lib().patch(`/api/media/${ids[1]}`, { filename: 'Renamed report.pdf' }));
        expect(renamed).to.include({ filename: 'Renamed report.pdf', mimeType: 'text/plain', url: item.url });
        expect((await t.request(item.url)).headers.get('content-disposition'), 'the new name at once').to.include(
          'filename="Renamed report.pdf"',
        );
        expect((await as(t, 'viewer', 'lib').patch(`/api/media/${ids[1]}`, { filename: 'x' })).status).to.equal(403);
        expect((await lib().get('/api/media/not-a-uuid')).status).to.equal(400);
      });

      it('folders: create, nest, rename, refuse duplicates, cycles and deleting a non-empty folder', async function () {
        const sub = await dataOf(await lib().post('/api/media/folders', { name: 'Q1', parentId: folder._id }), 201);
        expect(sub).to.include({ name: 'Q1', parentId: folder._id, itemCount: 0 });
        const dup = await lib().post('/api/media/folders', { name: 'Q1', parentId: folder._id });
        expect(dup.status).to.equal(409);
        expect((await dup.json()).error).to.equal('FOLDER_EXISTS');
        expect((await lib().post('/api/media/folders', { name: 'Q1' })).status, 'same name under another parent').to.equal(201);
        expect((await lib().post('/api/media/folders', { name: 'a/b' })).status).to.equal(400);
        expect((await lib().patch(`/api/media/folders/${folder._id}`, { parentId: sub._id })).status, 'into its own subfolder').to.equal(
          400,
        );
        const renamed = await dataOf(await lib().patch(`/api/media/folders/${sub._id}`, { name: 'Quarter 1' }));
        expect(renamed).to.include({ name: 'Quarter 1' });
        const list = await dataOf(await lib().get('/api/media/folders'));
        expect(list.find((f: any) => f._id === folder._id)).to.include({ name: 'Reports', itemCount: 2 });
        const notEmpty = await lib().delete(`/api/media/folders/${folder._id}`);
        expect(notEmpty.status).to.equal(409);
        expect((await notEmpty.json()).error).to.equal('FOLDER_NOT_EMPTY');
        expect((await lib().delete(`/api/media/folders/${sub._id}`)).status).to.equal(200);
        const missing = await lib().delete(`/api/media/folders/${sub._id}`);
        expect(missing.status).to.equal(404);
        expect((await missing.json()).error).to.equal('FOLDER_NOT_FOUND');
      });

      it('move changes only the folder: the URL and the bytes stay', async function () {
        const before = await dataOf(await lib().get(`/api/media/${ids[0]}`));
        const moved = await dataOf(await lib().post('/api/media/move', { ids: [ids[0], ids[0]], folderId: folder._id }));
        expect(moved).to.deep.equal({ moved: 1, notFound: [] });
        const after = await dataOf(await lib().get(`/api/media/${ids[0]}`));
        expect(after).to.include({ folderId: folder._id, url: before.url, checksum: before.checksum, filename: before.filename });
        expect((await t.request(after.url)).status).to.equal(200);
        await dataOf(await lib().post('/api/media/move', { ids: [ids[0]], folderId: null }));
        expect((await lib().post('/api/media/move', { ids: [], folderId: null })).status).to.equal(400);
      });

      it('analytics: counts and bytes in total, by type, by month and by folder', async function () {
        const items = (await dataOf(await lib().get('/api/media'))).items as any[];
        const bytes = (list: any[]) => list.reduce((n, i) => n + i.size, 0);
        const a = await dataOf(await as(t, 'viewer', 'lib').get('/api/media/analytics'));
        expect(a.total).to.deep.equal({ count: 4, bytes: bytes(items) });
        const png = items.filter((i) => i.mimeType === 'image/png');
        expect(a.byType.find((r: any) => r.type === 'image/png')).to.deep.equal({ type: 'image/png', count: 1, bytes: bytes(png) });
        expect(a.byType.map((r: any) => r.count).reduce((x: number, y: number) => x + y, 0)).to.equal(4);
        expect(a.byMonth).to.deep.equal([{ month: new Date().toISOString().slice(0, 7), count: 4, bytes: bytes(items) }]);
        const inFolder = items.filter((i) => i.folderId === folder._id);
        expect(a.byFolder).to.deep.include({ folderId: folder._id, name: 'Reports', count: inFolder.length, bytes: bytes(inFolder) });
        expect(a.byFolder).to.deep.include({
          folderId: null,
          name: null,
          count: 4 - inFolder.length,
          bytes: bytes(items) - bytes(inFolder),
        });
      });

      it('delete moves the files to the local trash; restore brings the item back; purge removes it for good', async function () {
        const victim = await upload(await imageBytes(800, 100), 'trash-me.png', {}, 'lib');
        const mediaRoot = join(t.dataDir, 'media');
        const onDisk = join(mediaRoot, ...victim.url.slice('/files/'.length).split('/'));
        expect(existsSync(onDisk)).to.equal(true);
        expect((await t.request(victim.url)).status).to.equal(200);
        expect(await dataOf(await lib().delete(`/api/media/${victim._id}`))).to.deep.equal({ deleted: true, trashed: true });
        expect(existsSync(onDisk)).to.equal(false);
        expect((await t.request(victim.url)).status).to.equal(404);
        expect((await t.request(victim.thumbnails.sm.url)).status).to.equal(404);
        expect((await lib().get(`/api/media/${victim._id}`)).status).to.equal(404);
        const trash = await dataOf(await lib().get('/api/media/trash'));
        expect(trash.supported).to.equal(true);
        expect(trash.items.map((i: any) => i._id)).to.deep.equal([victim._id]);
        expect((await dataOf(await as(t, 'editor', 'other').get('/api/media/trash'))).items).to.deep.equal([]);
        const path = victim.url.slice('/files/'.length);
        expect((await as(t, 'editor', 'other').post('/api/media/trash/restore', { path })).status, 'another tenant').to.equal(404);
        expect((await lib().post('/api/media/trash/restore', { path: '../etc/passwd' })).status).to.equal(400);
        const restored = await dataOf(await lib().post('/api/media/trash/restore', { path }));
        expect(restored).to.include({ _id: victim._id, url: victim.url });
        expect(Buffer.from(await (await t.request(victim.url)).arrayBuffer()).equals(readFileSync(onDisk))).to.equal(true);
        expect((await t.request(victim.thumbnails.sm.url)).status).to.equal(200);
        await dataOf(await lib().delete(`/api/media/${victim._id}`));
        expect(await dataOf(await lib().delete('/api/media/trash'))).to.deep.equal({ purged: 1 });
        expect((await dataOf(await lib().get('/api/media/trash'))).items).to.deep.equal([]);
        expect((await lib().post('/api/media/trash/restore', { id: victim._id })).status).to.equal(404);
      });

      it('the mediaClient SDK applies the same checks, limits and detection', async function () {
        const factory = t.kernel.container.resolve<(identity?: any) => any>('mediaClient');
        const editor = factory({
          kind: 'user',
          userId: 'sdk-user',
          role: 'editor',
          permissions: ['media:read', 'media:write'],
          tenantId: 'sdk',
        });
        const item = await editor.upload('from-sdk.bin', Buffer.from('plain words'), { private: true });
        expect(item).to.include({ mimeType: 'text/plain', filename: 'from-sdk.bin', private: true, ownerId: 'sdk-user' });
        expect((await editor.list()).items.map((i: any) => i._id)).to.deep.equal([item._id]);
        const viewer = factory({ kind: 'user', userId: 'v', role: 'viewer', permissions: ['media:read'], tenantId: 'sdk' });
        expect((await viewer.get(item._id))._id).to.equal(item._id);
        let refused: any;
        await viewer.upload('x.txt', Buffer.from('x')).catch((e: unknown) => (refused = e));
        expect(refused?.status).to.equal(403);
        await editor.upload('bad.png', Buffer.from([0, 1, 2, 3, 0xff])).catch((e: unknown) => (refused = e));
        expect(refused?.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
        expect(await editor.remove(item._id)).to.deep.equal({ deleted: true, trashed: true });
      });
    });
  });
}

describe('media upload limits (configured)', function () {
  this.timeout(60000);
  const t = useTestKernel({
    plugins: [IDENTITY],
    config: { plugins: { options: { media: { maxUploadMb: 1, allowedTypes: ['image/*', 'application/pdf'] } } } },
  });

  it('an upload over the limit answers 413 as soon as the limit is passed, and no temporary file stays', async function () {
    const stream = streamedMultipart(3 * 1024 * 1024, 'too-big.png');
    const res = await uploadStream(t, stream);
    const body = await res.json();
    expect(res.status).to.equal(413);
    expect(body).to.include({ success: false, error: 'PAYLOAD_TOO_LARGE' });
    expect(body.message).to.include('1 MB');
    expect(tempUploads(t)).to.deep.equal([]);
    expect((await dataOf(await t.request('/api/media', { identity: 'editor' }))).total).to.equal(0);
    // A declared Content-Length over the limit is refused before reading.
    const declared = await uploadFile(t, Buffer.alloc(2 * 1024 * 1024, 1), 'declared.png');
    expect(declared.status).to.equal(413);
    // Exactly at the limit is fine.
    const png = await imageBytes(16, 16);
    const atLimit = Buffer.concat([png, Buffer.alloc(1024 * 1024 - png.length)]);
    expect((await uploadFile(t, atLimit, 'at-limit.png')).status).to.equal(201);
  });

  it('a type outside the allow list is refused with 415 (detected from the content, not the name)', async function () {
    const text = await uploadFile(t, Buffer.from('plain text pretending'), 'photo.png');
    expect(text.status).to.equal(415);
    const body = await text.json();
    expect(body).to.include({ error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(body.message).to.include('text/plain');
    expect((await uploadFile(t, await imageBytes(8, 8), 'real.txt')).status).to.equal(201);
    expect(tempUploads(t)).to.deep.equal([]);
  });

  it('an aborted upload leaves no temporary file', async function () {
    const controller = new AbortController();
    const stream = streamedMultipart(900 * 1024, 'aborted.png', (offset, n) => {
      if (offset > 200 * 1024) controller.abort();
      return Buffer.alloc(n, 0x62);
    });
    const outcome = await t
      .request('/api/media/upload', {
        method: 'POST',
        identity: 'editor',
        headers: { 'content-type': stream.contentType },
        body: stream.body,
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit & { identity?: string })
      .then(
        () => 'answered',
        (e: Error) => e.name,
      );
    expect(outcome).to.equal('AbortError');
    for (let i = 0; i < 50 && tempUploads(t).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(tempUploads(t)).to.deep.equal([]);
  });

  it('a missing storage driver stops the boot naming MEDIA_STORAGE_TYPE and the drivers there are', async function () {
    let err: Error | undefined;
    await startTestKernel({ config: { plugins: { options: { media: { storageType: 'floppy' } } } } }).then(
      (k) => k.close(),
      (e: Error) => (err = e),
    );
    expect(err?.message).to.include('MEDIA_STORAGE_TYPE').and.include("'floppy'").and.include("'local' (plugin storage-local)");
  });
});
