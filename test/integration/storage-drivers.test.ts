import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { StorageDriver } from '../../kernel/registries/index.js';
import { startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { startCdnServer, type CdnServer } from '../helpers/storage-cdn-server.js';
import { S3RVER_CREDENTIALS, startS3rver } from '../helpers/storage-s3rver.js';
import { randomStream, readAll, sha256Of } from '../helpers/storage-streams.js';

const MiB = 1024 * 1024;
const BUCKET = 'cms-media';
const CDN = { cloudName: 'demo-cloud', apiKey: '417293562815', apiSecret: 'cdn-secret-9f8e7d' };
const DRIVERS = ['local', 'object_store', 'object_store_edge', 'image_cdn'] as const;
type DriverId = (typeof DRIVERS)[number];

/** What a driver throws: each driver plugin has its own StorageError class, recognised by name and reason. */
interface Refusal {
  name: string;
  reason: string;
  status: number;
  message: string;
}
async function refusal(action: () => unknown): Promise<Refusal> {
  try {
    await action();
  } catch (err) {
    return err as Refusal;
  }
  return expect.fail('expected the driver to refuse');
}
async function expectRefused(action: () => unknown, reason: string, status?: number): Promise<Refusal> {
  const err = await refusal(action);
  expect(err.name, err.message).to.equal('StorageError');
  expect(err.reason, err.message).to.equal(reason);
  if (status !== undefined) expect(err.status).to.equal(status);
  return err;
}

/** Paths no driver may accept: traversal (plain and percent-encoded), absolute, backslashes, NUL, empty and dot segments. */
const BAD_PATHS = [
  '../escape.txt', 'a/../../escape.txt', '..', 'default/..', '/etc/passwd', '/tmp/escape.txt', 'C:/Windows/escape.txt',
  'a\\..\\..\\escape.txt', '..\\escape.txt', '%2e%2e/escape.txt', '%2E%2E%2Fescape.txt', 'a/%2e%2e%2f%2e%2e%2fescape.txt', 'a%2fb.txt', '..%5cescape.txt',
  'a/b\u0000.txt', 'escape.txt\u0000.png', '\u0000', '', 'a//b.txt', 'a/./b.txt', './a.txt', 'a/b/', '.hidden', 'a/.x.part', '\u202e../escape.txt', 'a/\u202egnp.exe',
];

describe('storage drivers: one contract for every driver', function () {
  this.timeout(120000);
  let t: TestKernel;
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let cdn: CdnServer;
  let admin: S3Client;
  const driver = (id: DriverId) => t.kernel.registries.storageDrivers.get(id) as StorageDriver;

  before(async () => {
    s3 = await startS3rver();
    cdn = await startCdnServer(CDN);
    admin = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { ...S3RVER_CREDENTIALS } });
    await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    t = await startTestKernel({
      config: {
        plugins: {
          options: {
            'storage-s3': { bucket: BUCKET, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, ...S3RVER_CREDENTIALS },
            'storage-image-cdn': { ...CDN, uploadUrl: cdn.url, publicUrl: `${cdn.url}/${CDN.cloudName}`, chunkSizeMb: 8 },
          },
        },
      },
    });
  });
  after(async () => {
    await t?.close();
    admin?.destroy();
    await s3?.close();
    await cdn?.close();
  });

  it('registers the four drivers with their kinds', function () {
    expect(t.kernel.registries.storageDrivers.keys()).to.include.members([...DRIVERS]);
    expect(DRIVERS.map((id) => driver(id).kind)).to.deep.equal(['local', 'remote', 'remote', 'remote']);
    for (const plugin of ['storage-local', 'storage-s3', 'storage-image-cdn']) {
      expect(t.kernel.loader.describe().find((r) => r.id === plugin)?.state, plugin).to.equal('booted');
    }
  });

  for (const id of DRIVERS) {
    describe(`driver ${id}`, function () {
      const base = () => `${id}-${randomUUID().slice(0, 8)}/default/2026/11`;

      it('reaches its storage (check)', async function () {
        await driver(id).check!();
      });

      it('stores, describes, reads whole and in ranges, replaces and deletes a file', async function () {
        const d = driver(id);
        const path = `${base()}/${randomUUID()}-notes.txt`;
        const bytes = randomBytes(1000);
        const put = await d.put(path, bytes, { mimeType: 'text/plain', size: bytes.length });
        expect(put.size).to.equal(1000);
        expect(put.etag).to.be.a('string').and.match(/^"[^"]+"$/);
        const head = await d.head(path);
        expect(head).to.include({ size: 1000, etag: put.etag });
        expect((await readAll(await d.get(path))).equals(bytes)).to.equal(true);
        expect((await readAll(await d.get(path, { start: 0, end: 0 }))).equals(bytes.subarray(0, 1))).to.equal(true);
        expect((await readAll(await d.get(path, { start: 100, end: 199 }))).equals(bytes.subarray(100, 200))).to.equal(true);
        // An end past the file is cut to the file, as HTTP does; a start past it is refused.
        expect((await readAll(await d.get(path, { start: 990, end: 5000 }))).equals(bytes.subarray(990))).to.equal(true);
        await expectRefused(() => d.get(path, { start: 1000, end: 1010 }), 'INVALID_RANGE');
        await expectRefused(() => d.get(path, { start: 10, end: 5 }), 'INVALID_RANGE');

        const replacement = randomBytes(300);
        const again = await d.put(path, Readable.from([replacement.subarray(0, 100), replacement.subarray(100)]), { mimeType: 'text/plain' });
        expect(again.size).to.equal(300);
        expect(again.etag).to.not.equal(put.etag);
        // Same size, written straight after: the validator still changes (a client's cached copy is stale).
        const sameSize = randomBytes(300);
        const third = await d.put(path, sameSize);
        expect(third.etag).to.not.equal(again.etag);
        expect((await d.head(path))?.etag).to.equal(third.etag);
        await d.put(path, replacement);
        expect((await readAll(await d.get(path))).equals(replacement)).to.equal(true);
        expect((await d.head(path))?.size).to.equal(300);

        await d.delete(path);
        expect(await d.head(path)).to.equal(null);
        await expectRefused(() => d.get(path), 'NOT_FOUND', 404);
        await d.delete(path); // deleting what is gone is not an error
      });

      it('answers a public URL where the file can be fetched', async function () {
        const d = driver(id);
        const path = `${base()}/photo one.png`;
        const bytes = randomBytes(2048);
        await d.put(path, bytes, { mimeType: 'image/png' });
        const url = d.publicUrl(path);
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        const expected: Record<DriverId, string> = {
          local: `/files/${encoded}`,
          object_store: `${s3.endpoint}/${BUCKET}/media/${encoded}`,
          object_store_edge: `${s3.endpoint}/${BUCKET}/media/${encoded}`,
          image_cdn: `${cdn.url}/${CDN.cloudName}/image/upload/media/${encoded.replace(/\.png$/, '')}.png`,
        };
        expect(url).to.equal(expected[id]);
        if (d.kind === 'remote') {
          const res = await fetch(url);
          expect(res.status).to.equal(200);
          expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
        }
      });

      it('streams a 20 MiB body in and out (in parts for object stores, in chunks for the CDN)', async function () {
        const d = driver(id);
        const path = `${base()}/${randomUUID()}-large.bin`;
        const chunksBefore = cdn.stats.chunks;
        const s3Before = { ...s3.stats };
        const { stream, sha256 } = randomStream(20 * MiB);
        const put = await d.put(path, stream, { mimeType: 'application/octet-stream' });
        expect(put.size).to.equal(20 * MiB);
        const head = await d.head(path);
        expect(head?.size).to.equal(20 * MiB);
        const back = await sha256Of(await d.get(path));
        expect(back).to.deep.equal({ hex: await sha256, size: 20 * MiB });
        const tail = await readAll(await d.get(path, { start: 20 * MiB - 10, end: 20 * MiB - 1 }));
        expect(tail.length).to.equal(10);
        if (id === 'object_store' || id === 'object_store_edge') {
          expect(s3.stats.multipartUploads - s3Before.multipartUploads, 'one multipart upload').to.equal(1);
          expect(s3.stats.parts - s3Before.parts, 'in 3 parts of 8 MiB').to.equal(3);
        }
        if (id === 'image_cdn') expect(cdn.stats.chunks - chunksBefore, 'chunked upload of 8 MiB').to.equal(3);
        if (id === 'local') {
          const folder = join(t.dataDir, 'media', ...path.split('/').slice(0, -1));
          expect(readdirSync(folder).filter((f) => f.startsWith('.')), 'no temporary file left').to.deep.equal([]);
        }
        await d.delete(path);
      });

      it('keeps paths with spaces and unicode', async function () {
        const d = driver(id);
        const root = base();
        const files = [`${root}/Ünïcödé folder/café 東京 ✓.png`, `${root}/notes with  spaces.txt`, `${root}/emoji 🎉/ok.pdf`];
        for (const [i, path] of files.entries()) {
          const bytes = Buffer.from(`file ${i}: ${path}`);
          await d.put(path, bytes, { mimeType: 'application/octet-stream' });
          expect((await d.head(path))?.size, path).to.equal(bytes.length);
          expect((await readAll(await d.get(path))).toString(), path).to.equal(bytes.toString());
        }
        if (id === 'local') expect(readFileSync(join(t.dataDir, 'media', ...files[0]!.split('/')), 'utf8')).to.equal(`file 0: ${files[0]}`);
        for (const path of files) await d.delete(path);
      });

      it('refuses paths it cannot confine, before touching storage', async function () {
        const d = driver(id);
        const uploadsBefore = cdn.stats.uploads + cdn.stats.refused + cdn.stats.destroys;
        for (const path of BAD_PATHS) {
          const what = JSON.stringify(path);
          for (const op of [() => d.put(path, Buffer.from('x')), () => d.get(path), () => d.head(path), () => d.delete(path), () => d.publicUrl(path)]) {
            const err = await expectRefused(op, 'INVALID_PATH', 400);
            expect(err.message, what).to.match(/^Invalid storage path/);
          }
        }
        if (id === 'local') {
          for (const outside of ['escape.txt', 'media/escape.txt', 'b.txt', 'media-trash/escape.txt']) expect(existsSync(join(t.dataDir, outside)), outside).to.equal(false);
          expect(existsSync(join(t.dataDir, '..', 'escape.txt'))).to.equal(false);
        }
        if (id === 'image_cdn') expect(cdn.stats.uploads + cdn.stats.refused + cdn.stats.destroys, 'no request reached the CDN').to.equal(uploadsBefore);
        if (id !== 'local' && id !== 'image_cdn') {
          const listed = await admin.send(new ListObjectsV2Command({ Bucket: BUCKET }));
          for (const o of listed.Contents ?? []) expect(o.Key).to.not.match(/escape|\.\.|\u0000/);
        }
      });

      it('takes concurrent puts: different paths all land, one path ends whole with one of them', async function () {
        const d = driver(id);
        const root = base();
        const bodies = Array.from({ length: 12 }, () => randomBytes(64 * 1024 + Math.floor(Math.random() * 1024)));
        await Promise.all(bodies.map((b, i) => d.put(`${root}/many-${i}.bin`, Readable.from([b.subarray(0, 1000), b.subarray(1000)]))));
        for (const [i, b] of bodies.entries()) expect((await readAll(await d.get(`${root}/many-${i}.bin`))).equals(b), `many-${i}`).to.equal(true);
        // Replacing one path is atomic where the driver makes it so (local: rename; the CDN: one asset per
        // upload). For object stores it is the store's promise; s3rver writes objects in place, so not here.
        if (id === 'local' || id === 'image_cdn') {
          const contenders = bodies.slice(0, 4);
          await Promise.all(contenders.map((b) => d.put(`${root}/same.bin`, Readable.from([b]))));
          const final = await readAll(await d.get(`${root}/same.bin`));
          expect(contenders.some((b) => b.equals(final)), 'the file is exactly one of the bodies').to.equal(true);
        }
        await Promise.all([...bodies.map((_, i) => d.delete(`${root}/many-${i}.bin`)), d.delete(`${root}/same.bin`)]);
      });
    });
  }

  describe('local driver specifics', function () {
    const local = () => driver('local');
    const media = (...p: string[]) => join(t.dataDir, 'media', ...p);
    const trash = (...p: string[]) => join(t.dataDir, 'media-trash', ...p);

    it('moves deleted files to <data>/media-trash (beside the served folder), keeping the path and the deletion time', async function () {
      const path = `trash-${randomUUID().slice(0, 8)}/default/2026/11/gone.txt`;
      await local().put(path, Buffer.from('to be deleted'));
      expect(readFileSync(media(...path.split('/')), 'utf8')).to.equal('to be deleted');
      const before = Date.now();
      await local().delete(path);
      expect(existsSync(media(...path.split('/')))).to.equal(false);
      expect(readFileSync(trash(...path.split('/')), 'utf8')).to.equal('to be deleted');
      const entry = (await local().listTrash!()).find((e) => e.path === path);
      expect(entry?.size).to.equal(13);
      expect(entry!.deletedAt.getTime()).to.be.within(before - 1000, Date.now() + 1000);
    });

    it('restores a trashed file, and refuses when a file is back at its path', async function () {
      const dir = `restore-${randomUUID().slice(0, 8)}`;
      await local().put(`${dir}/a.txt`, Buffer.from('original'));
      await local().delete(`${dir}/a.txt`);
      await local().restore!(`${dir}/a.txt`);
      expect((await readAll(await local().get(`${dir}/a.txt`))).toString()).to.equal('original');
      expect((await local().listTrash!()).some((e) => e.path === `${dir}/a.txt`)).to.equal(false);

      await local().delete(`${dir}/a.txt`);
      await local().put(`${dir}/a.txt`, Buffer.from('newer upload'));
      await expectRefused(() => local().restore!(`${dir}/a.txt`), 'ALREADY_EXISTS', 409);
      expect((await readAll(await local().get(`${dir}/a.txt`))).toString(), 'the newer file is untouched').to.equal('newer upload');
      expect(readFileSync(trash(dir, 'a.txt'), 'utf8'), 'the trashed copy stays').to.equal('original');
      await expectRefused(() => local().restore!(`${dir}/never-deleted.txt`), 'NOT_FOUND', 404);
      await expectRefused(() => local().restore!('../media/x.txt'), 'INVALID_PATH', 400);
    });

    it('purges one trashed file or all of them', async function () {
      const dir = `purge-${randomUUID().slice(0, 8)}`;
      for (const n of [1, 2, 3]) {
        await local().put(`${dir}/${n}.txt`, Buffer.from(String(n)));
        await local().delete(`${dir}/${n}.txt`);
      }
      expect(await local().purge!(`${dir}/2.txt`)).to.equal(1);
      expect(existsSync(trash(dir, '2.txt'))).to.equal(false);
      expect(await local().purge!(`${dir}/2.txt`), 'nothing left to purge').to.equal(0);
      const inTrash = (await local().listTrash!()).length;
      expect(inTrash).to.be.at.least(2);
      expect(await local().purge!()).to.equal(inTrash);
      expect(await local().listTrash!()).to.deep.equal([]);
      expect(readdirSync(trash())).to.deep.equal([]);
      expect(await local().purge!()).to.equal(0);
    });

    it('refuses paths through symbolic links, inside or outside the media folder', async function () {
      const outside = tempDir('cms-outside-');
      try {
        writeFileSync(join(outside, 'secret.txt'), 'outside secret');
        const dir = `links-${randomUUID().slice(0, 8)}`;
        await local().put(`${dir}/real.txt`, Buffer.from('inside'));
        symlinkSync(outside, media(dir, 'out-dir'));
        symlinkSync(join(outside, 'secret.txt'), media(dir, 'out-file.txt'));
        symlinkSync(media(dir, 'real.txt'), media(dir, 'in-file.txt'));
        symlinkSync(media(dir), media(`${dir}-alias`));
        const attempts = [`${dir}/out-dir/secret.txt`, `${dir}/out-dir/new/planted.txt`, `${dir}/out-file.txt`, `${dir}/in-file.txt`, `${dir}-alias/real.txt`];
        for (const path of attempts) {
          for (const op of [() => local().get(path), () => local().head(path), () => local().delete(path), () => local().put(path, Buffer.from('planted'))]) {
            await expectRefused(op, 'INVALID_PATH', 400);
          }
        }
        expect(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'the outside file is untouched').to.equal('outside secret');
        expect(readdirSync(outside), 'nothing planted outside').to.deep.equal(['secret.txt']);
        expect((await readAll(await local().get(`${dir}/real.txt`))).toString()).to.equal('inside');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('replaces files atomically: readers see the old file until the new one is complete, and a failed write leaves it', async function () {
      const path = `atomic-${randomUUID().slice(0, 8)}/doc.txt`;
      await local().put(path, Buffer.from('old version'));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      async function* slow() {
        yield Buffer.from('new ');
        await gate;
        yield Buffer.from('version');
      }
      const writing = local().put(path, Readable.from(slow()));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await readAll(await local().get(path))).toString(), 'mid-write').to.equal('old version');
      release();
      await writing;
      expect((await readAll(await local().get(path))).toString()).to.equal('new version');

      async function* broken() {
        yield Buffer.from('half');
        throw new Error('client went away');
      }
      expect((await refusal(() => local().put(path, Readable.from(broken())))).message).to.equal('client went away');
      expect((await readAll(await local().get(path))).toString()).to.equal('new version');
      expect(readdirSync(media(path.split('/')[0]!)), 'no temporary file left').to.deep.equal(['doc.txt']);
    });
  });

  describe('remote driver specifics', function () {
    it('object stores mark active content (SVG, HTML) as an attachment', async function () {
      const path = `attach-${randomUUID().slice(0, 8)}/drawing.svg`;
      await driver('object_store').put(path, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), { mimeType: 'image/svg+xml' });
      const res = await fetch(driver('object_store').publicUrl(path));
      expect(res.headers.get('content-type')).to.equal('image/svg+xml');
      expect(res.headers.get('content-disposition')).to.equal('attachment');
      expect((await driver('object_store').head(path))?.mimeType).to.equal('image/svg+xml');
    });

    it('the CDN driver signs every call so that the CDN accepts it', function () {
      expect(cdn.stats.uploads).to.be.greaterThan(10);
      expect(cdn.stats.refused, 'requests refused for their signature').to.equal(0);
    });

    it('the CDN driver cuts the range itself when the CDN sends the whole file', async function () {
      const path = `range-${randomUUID().slice(0, 8)}/clip.mp4`;
      const bytes = randomBytes(300 * 1024);
      await driver('image_cdn').put(path, bytes, { mimeType: 'video/mp4' });
      cdn.honourRanges = false;
      try {
        expect((await readAll(await driver('image_cdn').get(path, { start: 70000, end: 200000 }))).equals(bytes.subarray(70000, 200001))).to.equal(true);
      } finally {
        cdn.honourRanges = true;
      }
    });
  });

  describe('misconfigured remote storage', function () {
    it('wrong credentials are refused by the stores and surface as REMOTE_REFUSED without the secret', async function () {
      const wrong = await startTestKernel({
        config: {
          plugins: {
            options: {
              'storage-s3': { bucket: BUCKET, endpoint: s3.endpoint, forcePathStyle: true, accessKeyId: 'NOT-A-KEY', secretAccessKey: 'not-the-s3-secret' },
              'storage-image-cdn': { ...CDN, apiSecret: 'not-the-cdn-secret', uploadUrl: cdn.url, publicUrl: `${cdn.url}/${CDN.cloudName}` },
            },
          },
        },
      });
      try {
        const drivers = wrong.kernel.registries.storageDrivers;
        for (const id of ['object_store', 'object_store_edge']) {
          const d = drivers.get(id)!;
          const err = await expectRefused(() => d.put('refused/a.txt', Buffer.from('x')), 'REMOTE_REFUSED');
          expect(err.message).to.include('MEDIA_ACCESS_KEY_ID').and.include('InvalidAccessKeyId').and.not.include('not-the-s3-secret');
          await expectRefused(() => d.check!(), 'REMOTE_REFUSED');
        }
        const refusedBefore = cdn.stats.refused;
        const d = drivers.get('image_cdn')!;
        const err = await expectRefused(() => d.put('refused/a.png', Buffer.from('x')), 'REMOTE_REFUSED');
        expect(err.message).to.match(/HTTP 401: Invalid Signature/).and.include('MEDIA_CDN_API_SECRET').and.not.include('not-the-cdn-secret');
        await expectRefused(() => d.delete('refused/a.png'), 'REMOTE_REFUSED');
        await expectRefused(() => d.check!(), 'REMOTE_REFUSED');
        expect(cdn.stats.refused - refusedBefore, 'the CDN checked and refused the signatures').to.equal(3);
      } finally {
        await wrong.close();
      }
    });

    it('a missing bucket, an unreachable store and missing settings give clear errors; addressing follows the driver', async function () {
      const other = await startTestKernel({
        config: { plugins: { options: { 'storage-s3': { bucket: 'missing-bucket', endpoint: s3.endpoint, folder: '/assets/', ...S3RVER_CREDENTIALS } } } },
      });
      try {
        const drivers = other.kernel.registries.storageDrivers;
        const missing = await expectRefused(() => drivers.get('object_store_edge')!.check!(), 'REMOTE_FAILED');
        expect(missing.message).to.match(/does not exist/);
        // Without forcePathStyle, object_store addresses the bucket as a host name; the edge driver uses path style with an endpoint.
        const host = new URL(s3.endpoint).host;
        expect(drivers.get('object_store')!.publicUrl('a/b c.png')).to.equal(`http://missing-bucket.${host}/assets/a/b%20c.png`);
        expect(drivers.get('object_store_edge')!.publicUrl('a/b c.png')).to.equal(`${s3.endpoint}/missing-bucket/assets/a/b%20c.png`);
        const cdnDriver = drivers.get('image_cdn')!;
        const notConfigured = await expectRefused(() => cdnDriver.put('a/b.png', Buffer.from('x')), 'NOT_CONFIGURED', 503);
        expect(notConfigured.message).to.include('MEDIA_CDN_CLOUD_NAME').and.include('MEDIA_CDN_API_SECRET');
        await expectRefused(() => cdnDriver.check!(), 'NOT_CONFIGURED');
      } finally {
        await other.close();
      }
      const unreachable = await startTestKernel({
        config: { plugins: { options: { 'storage-s3': { bucket: BUCKET, endpoint: 'http://127.0.0.1:9', forcePathStyle: true, ...S3RVER_CREDENTIALS } } } },
      });
      try {
        const err = await expectRefused(() => unreachable.kernel.registries.storageDrivers.get('object_store')!.head('a/b.txt'), 'REMOTE_FAILED');
        expect(err.message).to.match(/Cannot reach the object store at 127\.0\.0\.1:9/);
      } finally {
        await unreachable.close();
      }
    });
  });
});

describe('storage drivers: configuration', function () {
  this.timeout(60000);

  it('without any configuration the remote drivers register and say what is missing', async function () {
    const t = await startTestKernel();
    try {
      const drivers = t.kernel.registries.storageDrivers;
      for (const id of ['object_store', 'object_store_edge']) {
        const err = await expectRefused(() => drivers.get(id)!.head('a/b.txt'), 'NOT_CONFIGURED', 503);
        expect(err.message).to.equal(`Media storage '${id}' is not configured: set MEDIA_CLOUD_BUCKET, MEDIA_ACCESS_KEY_ID, MEDIA_SECRET_ACCESS_KEY`);
        await expectRefused(() => drivers.get(id)!.check!(), 'NOT_CONFIGURED');
      }
      await expectRefused(() => drivers.get('image_cdn')!.head('a/b.png'), 'NOT_CONFIGURED', 503);
      await drivers.get('local')!.check!();
      expect(existsSync(join(t.dataDir, 'media'))).to.equal(true);
    } finally {
      await t.close();
    }
  });

  it('invalid options or environment stop the boot, naming the key', async function () {
    const dataDir = tempDir();
    const boot = (options: Record<string, Record<string, unknown>> = {}) => refusal(() => startTestKernel({ dataDir, config: { plugins: { options } } }));
    try {
      const bad = await boot({ 'storage-s3': { bucket: 'Not_A_Bucket' } });
      expect(bad.message).to.include("plugins.options['storage-s3']").and.include('bucket');
      const typo = await boot({ 'storage-local': { fodler: 'x' } });
      expect(typo.message).to.include("plugins.options['storage-local']").and.include('fodler');
      process.env.MEDIA_CDN_UPLOAD_URL = 'not a url';
      try {
        expect((await boot()).message).to.include('MEDIA_CDN_UPLOAD_URL');
      } finally {
        delete process.env.MEDIA_CDN_UPLOAD_URL;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  for (const variant of DB_VARIANTS) {
    describe(`precedence: environment, options, System Settings, defaults (${variant.name})`, function () {
      let dataDir: string;
      let dbUrl: string | undefined;
      let drop: (() => Promise<void>) | undefined;
      const boot = (options: Record<string, Record<string, unknown>> = {}) =>
        startTestKernel({ db: variant.name, dataDir, dbUrl, setup: true, config: { plugins: { options } } });

      before(async function () {
        requireVariant(this, variant);
        dataDir = tempDir();
        if (variant.name === 'mariadb') ({ url: dbUrl, drop } = await createMariaDbDatabase());
        const first = await boot();
        try {
          const settings = first.kernel.container.resolve<{ seedDefaults(): Promise<number>; set(key: string, value: unknown): Promise<void> }>('settings');
          await settings.seedDefaults();
          await settings.set('MEDIA_FOLDER', 'library');
          await settings.set('MEDIA_CLOUD_PUBLIC_URL', 'https://cdn.example.com/assets/');
          await settings.set('MEDIA_ACCESS_KEY_ID', 'from-settings');
        } finally {
          await first.close();
        }
      });
      after(async () => {
        await drop?.();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      });

      it('System Settings apply when neither the environment nor the options say otherwise', async function () {
        const t = await boot();
        try {
          const drivers = t.kernel.registries.storageDrivers;
          await drivers.get('local')!.put('default/x.txt', Buffer.from('from settings'));
          expect(readFileSync(join(dataDir, 'library', 'default', 'x.txt'), 'utf8')).to.equal('from settings');
          expect(drivers.get('object_store')!.publicUrl('default/x.png')).to.equal('https://cdn.example.com/assets/library/default/x.png');
          expect(drivers.get('image_cdn')!.publicUrl('default/x.png')).to.equal('https://cdn.example.com/assets/image/upload/library/default/x.png');
          // The access key came from the settings; the bucket and the secret are still missing.
          const err = await expectRefused(() => drivers.get('object_store')!.head('default/x.png'), 'NOT_CONFIGURED');
          expect(err.message).to.equal("Media storage 'object_store' is not configured: set MEDIA_CLOUD_BUCKET, MEDIA_SECRET_ACCESS_KEY");
        } finally {
          await t.close();
        }
      });

      it('plugin options win over System Settings, and the environment over both', async function () {
        const t = await boot({ 'storage-local': { folder: 'from-options' }, 'storage-s3': { folder: 'opt', publicUrl: 'https://options.example.com' } });
        try {
          await t.kernel.registries.storageDrivers.get('local')!.put('default/y.txt', Buffer.from('from options'));
          expect(readFileSync(join(dataDir, 'from-options', 'default', 'y.txt'), 'utf8')).to.equal('from options');
          expect(t.kernel.registries.storageDrivers.get('object_store')!.publicUrl('y.png')).to.equal('https://options.example.com/opt/y.png');
        } finally {
          await t.close();
        }
        process.env.MEDIA_FOLDER = 'from-env';
        process.env.MEDIA_CLOUD_PUBLIC_URL = 'https://env.example.com';
        try {
          const e = await boot({ 'storage-local': { folder: 'from-options' }, 'storage-s3': { folder: 'opt', publicUrl: 'https://options.example.com' } });
          try {
            await e.kernel.registries.storageDrivers.get('local')!.put('default/z.txt', Buffer.from('from env'));
            expect(readFileSync(join(dataDir, 'from-env', 'default', 'z.txt'), 'utf8')).to.equal('from env');
            expect(existsSync(join(dataDir, 'from-env-trash'))).to.equal(true);
            expect(e.kernel.registries.storageDrivers.get('object_store')!.publicUrl('z.png')).to.equal('https://env.example.com/from-env/z.png');
          } finally {
            await e.close();
          }
        } finally {
          delete process.env.MEDIA_FOLDER;
          delete process.env.MEDIA_CLOUD_PUBLIC_URL;
        }
      });
    });
  }
});
