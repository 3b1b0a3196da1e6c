import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageDriver } from '../../plugins/media/public.js';
import { startTestKernel, type TestKernel } from './kernel.js';
import { startCdnServer, type CdnServer } from './storage-cdn-server.js';
import { S3RVER_CREDENTIALS, startS3rver } from './storage-s3rver.js';

/**
 * What the storage driver tests share (test/contracts/storage-driver.contract.test.ts and
 * test/integration/storage-drivers.test.ts): the four shipped drivers, s3rver with a bucket, a
 * signature-checking image CDN, and a kernel whose remote drivers point at them.
 */
// The refusal checks and MiB live with the storage driver contract runner (testing/), which plugin authors import too.
export { expectRefused, MiB, refusal, type Refusal } from '../../testing/storage-driver.js';
export const BUCKET = 'cms-media';
export const CDN = { cloudName: 'demo-cloud', apiKey: '417293562815', apiSecret: 'cdn-secret-9f8e7d' };
export const DRIVERS = ['local', 'object_store', 'object_store_edge', 'image_cdn'] as const;
export type DriverId = (typeof DRIVERS)[number];

export interface StorageRig {
  t: TestKernel;
  s3: Awaited<ReturnType<typeof startS3rver>>;
  cdn: CdnServer;
  /** An S3 client with s3rver's account, to look into the bucket. */
  admin: S3Client;
  driver(id: DriverId): StorageDriver;
}

/**
 * Mocha hooks in the calling describe(): starts s3rver (with the bucket), the CDN and a kernel before
 * the suite, stops them after. The returned object is filled in by the before hook.
 */
export function useStorageRig(): StorageRig {
  const rig = {} as StorageRig;
  rig.driver = (id) => rig.t.kernel.registries.storageDrivers.get(id) as StorageDriver;
  before(async () => {
    rig.s3 = await startS3rver();
    rig.cdn = await startCdnServer(CDN);
    rig.admin = new S3Client({
      region: 'us-east-1',
      endpoint: rig.s3.endpoint,
      forcePathStyle: true,
      credentials: { ...S3RVER_CREDENTIALS },
    });
    await rig.admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    rig.t = await startTestKernel({
      config: {
        plugins: {
          options: {
            'storage-s3': { bucket: BUCKET, endpoint: rig.s3.endpoint, region: 'us-east-1', forcePathStyle: true, ...S3RVER_CREDENTIALS },
            'storage-image-cdn': { ...CDN, uploadUrl: rig.cdn.url, publicUrl: `${rig.cdn.url}/${CDN.cloudName}`, chunkSizeMb: 8 },
          },
        },
      },
    });
  });
  after(async () => {
    await rig.t?.close();
    rig.admin?.destroy();
    await rig.s3?.close();
    await rig.cdn?.close();
  });
  return rig;
}
