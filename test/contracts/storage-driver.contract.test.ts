import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TestKernel } from '../helpers/kernel.js';
import type { CdnServer } from '../helpers/storage-cdn-server.js';
import { BUCKET, CDN, DRIVERS, expectRefused, MiB, useStorageRig, type DriverId, type StorageRig } from '../helpers/storage-rig.js';
import { randomStream, readAll, sha256Of } from '../helpers/storage-streams.js';

/**
 * The storage driver contract: what every registered media storage driver must do (local, S3 and the
 * S3-compatible edge store against s3rver, the image CDN against a server that checks signatures).
 * What a single driver does beyond it, and configuration, are in test/integration/storage-drivers.test.ts.
 */

/** Paths no driver may accept: traversal (plain and percent-encoded), absolute, backslashes, NUL, empty and dot segments. */
const BAD_PATHS = [
  '../escape.txt',
  'a/../../escape.txt',
  '..',
  'default/..',
  '/etc/passwd',
  '/tmp/escape.txt',
  'C:/Windows/escape.txt',
  'a\\..\\..\\escape.txt',
  '..\\escape.txt',
  '%2e%2e/escape.txt',
  '%2E%2E%2Fescape.txt',
  'a/%2e%2e%2f%2e%2e%2fescape.txt',
  'a%2fb.txt',
  '..%5cescape.txt',
  'a/b\u0000.txt',
  'escape.txt\u0000.png',
  '\u0000',
  '',
  'a//b.txt',
  'a/./b.txt',
  './a.txt',
  'a/b/',
  '.hidden',
  'a/.x.part',
  '\u202e../escape.txt',
  'a/\u202egnp.exe',
];

describe('storage drivers: one contract for every driver', function () {
  this.timeout(120000);
  const rig = useStorageRig();
  let t: TestKernel;
  let s3: StorageRig['s3'];
  let cdn: CdnServer;
  let admin: S3Client;
  const driver = (id: DriverId) => rig.driver(id);
  before(() => ({ t, s3, cdn, admin } = rig));

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
        expect(put.etag)
          .to.be.a('string')
          .and.match(/^"[^"]+"$/);
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
        const again = await d.put(path, Readable.from([replacement.subarray(0, 100), replacement.subarray(100)]), {
          mimeType: 'text/plain',
        });
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
          expect(
            readdirSync(folder).filter((f) => f.startsWith('.')),
            'no temporary file left',
          ).to.deep.equal([]);
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
          for (const op of [
            () => d.put(path, Buffer.from('x')),
            () => d.get(path),
            () => d.head(path),
            () => d.delete(path),
            () => d.publicUrl(path),
          ]) {
            const err = await expectRefused(op, 'INVALID_PATH', 400);
            expect(err.message, what).to.match(/^Invalid storage path/);
          }
        }
        if (id === 'local') {
          for (const outside of ['escape.txt', 'media/escape.txt', 'b.txt', 'media-trash/escape.txt'])
            expect(existsSync(join(t.dataDir, outside)), outside).to.equal(false);
          expect(existsSync(join(t.dataDir, '..', 'escape.txt'))).to.equal(false);
        }
        if (id === 'image_cdn')
          expect(cdn.stats.uploads + cdn.stats.refused + cdn.stats.destroys, 'no request reached the CDN').to.equal(uploadsBefore);
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
        for (const [i, b] of bodies.entries())
          expect((await readAll(await d.get(`${root}/many-${i}.bin`))).equals(b), `many-${i}`).to.equal(true);
        // Replacing one path is atomic where the driver makes it so (local: rename; the CDN: one asset per
        // upload). For object stores it is the store's promise; s3rver writes objects in place, so not here.
        if (id === 'local' || id === 'image_cdn') {
          const contenders = bodies.slice(0, 4);
          await Promise.all(contenders.map((b) => d.put(`${root}/same.bin`, Readable.from([b]))));
          const final = await readAll(await d.get(`${root}/same.bin`));
          expect(
            contenders.some((b) => b.equals(final)),
            'the file is exactly one of the bodies',
          ).to.equal(true);
        }
        await Promise.all([...bodies.map((_, i) => d.delete(`${root}/many-${i}.bin`)), d.delete(`${root}/same.bin`)]);
      });
    });
  }

  // After every driver's suite: all the calls above reached the CDN signed as it expects.
  describe('image_cdn signatures', function () {
    it('the CDN driver signs every call so that the CDN accepts it', function () {
      expect(cdn.stats.uploads).to.be.greaterThan(10);
      expect(cdn.stats.refused, 'requests refused for their signature').to.equal(0);
    });
  });
});
