import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, requireVariant } from '../helpers/services.js';
import type { CdnServer } from '../helpers/storage-cdn-server.js';
import { S3RVER_CREDENTIALS } from '../helpers/storage-s3rver.js';
import { BUCKET, CDN, expectRefused, refusal, useStorageRig, type DriverId, type StorageRig } from '../helpers/storage-rig.js';
import { readAll } from '../helpers/storage-streams.js';
import { until } from '../helpers/until.js';

/**
 * What each storage driver does beyond the contract every driver passes
 * (test/contracts/storage-driver.contract.test.ts), misconfigured stores, and where the drivers take
 * their configuration from.
 */
describe('storage drivers: beyond the contract', function () {
  this.timeout(120000);
  const rig = useStorageRig();
  let t: TestKernel;
  let s3: StorageRig['s3'];
  let cdn: CdnServer;
  const driver = (id: DriverId) => rig.driver(id);
  before(() => ({ t, s3, cdn } = rig));

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
        const attempts = [
          `${dir}/out-dir/secret.txt`,
          `${dir}/out-dir/new/planted.txt`,
          `${dir}/out-file.txt`,
          `${dir}/in-file.txt`,
          `${dir}-alias/real.txt`,
        ];
        for (const path of attempts) {
          for (const op of [
            () => local().get(path),
            () => local().head(path),
            () => local().openRead!(path),
            () => local().delete(path),
            () => local().put(path, Buffer.from('planted')),
          ]) {
            await expectRefused(op, 'INVALID_PATH', 400);
          }
        }
        expect(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'the outside file is untouched').to.equal('outside secret');
        expect(readdirSync(outside), 'nothing planted outside').to.deep.equal(['secret.txt']);
        expect((await readAll(await local().get(`${dir}/real.txt`))).toString()).to.equal('inside');
        expect((await readAll((await local().openRead!(`${dir}/real.txt`))!.stream())).toString()).to.equal('inside');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it('opens a file for serving once: the validators of head(), the bytes or a range, null when missing', async function () {
      const path = `open-${randomUUID().slice(0, 8)}/doc.txt`;
      await local().put(path, Buffer.from('0123456789'));
      const head = (await local().head(path))!;
      const opened = (await local().openRead!(path))!;
      expect({ size: opened.size, etag: opened.etag, modifiedAt: opened.modifiedAt.getTime() }).to.deep.equal({
        size: head.size,
        etag: head.etag,
        modifiedAt: head.modifiedAt?.getTime(),
      });
      expect((await readAll(opened.stream({ start: 2, end: 4 }))).toString()).to.equal('234');
      opened.close(); // a no-op once the stream owns the descriptor
      const unused = (await local().openRead!(path))!;
      unused.close();
      expect(() => unused.stream(), 'a closed file gives no stream').to.throw();
      expect(await local().openRead!(`${path}.missing`)).to.equal(null);
      expect(await local().openRead!(path.split('/')[0]!), 'a folder is no file').to.equal(null);
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
      const folder = media(path.split('/')[0]!);
      await until(async () => readdirSync(folder).find((name) => name.endsWith('.part')), 'the write under way');
      expect((await readAll(await local().get(path))).toString(), 'mid-write').to.equal('old version');
      release();
      await writing;
      expect((await readAll(await local().get(path))).toString()).to.equal('new version');

      async function* broken() {
        yield Buffer.from('half');
        throw new Error('client went away');
      }
      // The temporary file is gone when the write reports its failure, even when the source fails before the
      // file has finished opening (this used to leave one behind now and then).
      for (let i = 0; i < 200; i++) {
        expect((await refusal(() => local().put(path, Readable.from(broken())))).message).to.equal('client went away');
        expect(readdirSync(folder), 'no temporary file left').to.deep.equal(['doc.txt']);
      }
      expect((await readAll(await local().get(path))).toString()).to.equal('new version');
    });
  });

  describe('remote driver specifics', function () {
    it('object stores mark active content (SVG, HTML) as an attachment', async function () {
      const path = `attach-${randomUUID().slice(0, 8)}/drawing.svg`;
      await driver('object_store').put(path, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), {
        mimeType: 'image/svg+xml',
      });
      const res = await fetch(driver('object_store').publicUrl(path));
      expect(res.headers.get('content-type')).to.equal('image/svg+xml');
      expect(res.headers.get('content-disposition')).to.equal('attachment');
      expect((await driver('object_store').head(path))?.mimeType).to.equal('image/svg+xml');
    });

    it('the CDN driver cuts the range itself when the CDN sends the whole file', async function () {
      const path = `range-${randomUUID().slice(0, 8)}/clip.mp4`;
      const bytes = randomBytes(300 * 1024);
      await driver('image_cdn').put(path, bytes, { mimeType: 'video/mp4' });
      cdn.honourRanges = false;
      try {
        expect(
          (await readAll(await driver('image_cdn').get(path, { start: 70000, end: 200000 }))).equals(bytes.subarray(70000, 200001)),
        ).to.equal(true);
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
              'storage-s3': {
                bucket: BUCKET,
                endpoint: s3.endpoint,
                forcePathStyle: true,
                accessKeyId: 'NOT-A-KEY',
                secretAccessKey: 'not-the-s3-secret',
              },
              'storage-image-cdn': {
                ...CDN,
                apiSecret: 'not-the-cdn-secret',
                uploadUrl: cdn.url,
                publicUrl: `${cdn.url}/${CDN.cloudName}`,
              },
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
        expect(err.message)
          .to.match(/HTTP 401: Invalid Signature/)
          .and.include('MEDIA_CDN_API_SECRET')
          .and.not.include('not-the-cdn-secret');
        await expectRefused(() => d.delete('refused/a.png'), 'REMOTE_REFUSED');
        await expectRefused(() => d.check!(), 'REMOTE_REFUSED');
        expect(cdn.stats.refused - refusedBefore, 'the CDN checked and refused the signatures').to.equal(3);
      } finally {
        await wrong.close();
      }
    });

    it('a missing bucket, an unreachable store and missing settings give clear errors; addressing follows the driver', async function () {
      const other = await startTestKernel({
        config: {
          plugins: {
            options: { 'storage-s3': { bucket: 'missing-bucket', endpoint: s3.endpoint, folder: '/assets/', ...S3RVER_CREDENTIALS } },
          },
        },
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
        config: {
          plugins: {
            options: { 'storage-s3': { bucket: BUCKET, endpoint: 'http://127.0.0.1:9', forcePathStyle: true, ...S3RVER_CREDENTIALS } },
          },
        },
      });
      try {
        const err = await expectRefused(
          () => unreachable.kernel.registries.storageDrivers.get('object_store')!.head('a/b.txt'),
          'REMOTE_FAILED',
        );
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
        expect(err.message).to.equal(
          `Media storage '${id}' is not configured: set MEDIA_CLOUD_BUCKET, MEDIA_ACCESS_KEY_ID, MEDIA_SECRET_ACCESS_KEY`,
        );
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
    const boot = (options: Record<string, Record<string, unknown>> = {}) =>
      refusal(() => startTestKernel({ dataDir, config: { plugins: { options } } }));
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
          const settings = first.kernel.container.resolve<{
            seedDefaults(): Promise<number>;
            set(key: string, value: unknown): Promise<void>;
          }>('settings');
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
          expect(drivers.get('image_cdn')!.publicUrl('default/x.png')).to.equal(
            'https://cdn.example.com/assets/image/upload/library/default/x.png',
          );
          // The access key came from the settings; the bucket and the secret are still missing.
          const err = await expectRefused(() => drivers.get('object_store')!.head('default/x.png'), 'NOT_CONFIGURED');
          expect(err.message).to.equal("Media storage 'object_store' is not configured: set MEDIA_CLOUD_BUCKET, MEDIA_SECRET_ACCESS_KEY");
        } finally {
          await t.close();
        }
      });

      it('plugin options win over System Settings, and the environment over both', async function () {
        const t = await boot({
          'storage-local': { folder: 'from-options' },
          'storage-s3': { folder: 'opt', publicUrl: 'https://options.example.com' },
        });
        try {
          await t.kernel.registries.storageDrivers.get('local')!.put('default/y.txt', Buffer.from('from options'));
          expect(readFileSync(join(dataDir, 'from-options', 'default', 'y.txt'), 'utf8')).to.equal('from options');
          expect(t.kernel.registries.storageDrivers.get('object_store')!.publicUrl('y.png')).to.equal(
            'https://options.example.com/opt/y.png',
          );
        } finally {
          await t.close();
        }
        process.env.MEDIA_FOLDER = 'from-env';
        process.env.MEDIA_CLOUD_PUBLIC_URL = 'https://env.example.com';
        try {
          const e = await boot({
            'storage-local': { folder: 'from-options' },
            'storage-s3': { folder: 'opt', publicUrl: 'https://options.example.com' },
          });
          try {
            await e.kernel.registries.storageDrivers.get('local')!.put('default/z.txt', Buffer.from('from env'));
            expect(readFileSync(join(dataDir, 'from-env', 'default', 'z.txt'), 'utf8')).to.equal('from env');
            expect(existsSync(join(dataDir, 'from-env-trash'))).to.equal(true);
            expect(e.kernel.registries.storageDrivers.get('object_store')!.publicUrl('z.png')).to.equal(
              'https://env.example.com/from-env/z.png',
            );
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
