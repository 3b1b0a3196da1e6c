import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storageDriverContract, type StorageDriverContractOptions } from '../../testing/index.js';
import type { TestKernel } from '../helpers/kernel.js';
import type { CdnServer } from '../helpers/storage-cdn-server.js';
import { BUCKET, CDN, DRIVERS, useStorageRig, type DriverId, type StorageRig } from '../helpers/storage-rig.js';

/**
 * The storage driver contract (testing/storage-driver.ts, which plugin authors run against their own
 * driver): what every registered media storage driver must do (local, S3 and the S3-compatible edge store
 * against s3rver, the image CDN against a server that checks signatures), with what each shipped driver's
 * storage shows besides. What a single driver does beyond it, and configuration, are in
 * test/integration/storage-drivers.test.ts.
 */
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

  /** Where each shipped driver's storage can be looked into: the data folder, s3rver, the CDN's counters. */
  const local: StorageDriverContractOptions['checks'] = {
    largeBody: (path) => () => {
      const folder = join(t.dataDir, 'media', ...path.split('/').slice(0, -1));
      expect(
        readdirSync(folder).filter((f) => f.startsWith('.')),
        'no temporary file left',
      ).to.deep.equal([]);
    },
    unicode: (files) => expect(readFileSync(join(t.dataDir, 'media', ...files[0]!.split('/')), 'utf8')).to.equal(`file 0: ${files[0]}`),
    refusedPaths: () => () => {
      for (const outside of ['escape.txt', 'media/escape.txt', 'b.txt', 'media-trash/escape.txt'])
        expect(existsSync(join(t.dataDir, outside)), outside).to.equal(false);
      expect(existsSync(join(t.dataDir, '..', 'escape.txt'))).to.equal(false);
    },
  };
  const objectStore: StorageDriverContractOptions['checks'] = {
    largeBody: () => {
      const s3Before = { ...s3.stats };
      return () => {
        expect(s3.stats.multipartUploads - s3Before.multipartUploads, 'one multipart upload').to.equal(1);
        expect(s3.stats.parts - s3Before.parts, 'in 3 parts of 8 MiB').to.equal(3);
      };
    },
    refusedPaths: () => async () => {
      const listed = await admin.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      for (const o of listed.Contents ?? []) expect(o.Key).to.not.match(/escape|\.\.|\u0000/);
    },
  };
  const imageCdn: StorageDriverContractOptions['checks'] = {
    largeBody: () => {
      const chunksBefore = cdn.stats.chunks;
      return () => {
        expect(cdn.stats.chunks - chunksBefore, 'chunked upload of 8 MiB').to.equal(3);
      };
    },
    refusedPaths: () => {
      const uploadsBefore = cdn.stats.uploads + cdn.stats.refused + cdn.stats.destroys;
      return () => {
        expect(cdn.stats.uploads + cdn.stats.refused + cdn.stats.destroys, 'no request reached the CDN').to.equal(uploadsBefore);
      };
    },
  };
  const shipped: Record<DriverId, Omit<StorageDriverContractOptions, 'id' | 'driver'>> = {
    local: { publicUrl: (encoded) => `/files/${encoded}`, atomicReplace: true, checks: local },
    object_store: { publicUrl: (encoded) => `${s3.endpoint}/${BUCKET}/media/${encoded}`, atomicReplace: false, checks: objectStore },
    object_store_edge: { publicUrl: (encoded) => `${s3.endpoint}/${BUCKET}/media/${encoded}`, atomicReplace: false, checks: objectStore },
    image_cdn: {
      publicUrl: (encoded) => `${cdn.url}/${CDN.cloudName}/image/upload/media/${encoded.replace(/\.png$/, '')}.png`,
      atomicReplace: true,
      checks: imageCdn,
    },
  };
  for (const id of DRIVERS) storageDriverContract({ id, driver: () => driver(id), ...shipped[id] });

  // After every driver's suite: all the calls above reached the CDN signed as it expects.
  describe('image_cdn signatures', function () {
    it('the CDN driver signs every call so that the CDN accepts it', function () {
      expect(cdn.stats.uploads).to.be.greaterThan(10);
      expect(cdn.stats.refused, 'requests refused for their signature').to.equal(0);
    });
  });
});
