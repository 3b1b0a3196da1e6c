import { expect } from 'chai';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, useIdentityKernel, useTestKernel } from '../helpers/kernel.js';
import { imageBytes, sha256, uploadFile } from '../helpers/media-upload.js';
import { S3RVER_CREDENTIALS, startS3rver } from '../helpers/storage-s3rver.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const BUCKET = 'cms-media-test';

/**
 * The upload-and-serve path on the object_store driver against a real S3 protocol server (s3rver on
 * loopback): the bytes land in the bucket under the MEDIA_FOLDER prefix, /files/ redirects (307 with
 * the ETag) or answers 304, private media and share downloads stream through, delete is direct.
 */
for (const variant of DB_VARIANTS) {
  describe(`media on S3-compatible storage (${variant.name})`, function () {
    this.timeout(60000);
    let s3: Awaited<ReturnType<typeof startS3rver>>;
    let client: S3Client;
    before(async function () {
      requireVariant(this, variant);
      s3 = await startS3rver();
      client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3RVER_CREDENTIALS } }); // a copy: the SDK marks the object it is given
      await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    });
    const t = useIdentityKernel(variant, {}, () => ({
      config: {
        plugins: {
          options: {
            media: { storageType: 'object_store' },
            'storage-s3': {
              bucket: BUCKET,
              endpoint: s3.endpoint,
              region: 'us-east-1',
              forcePathStyle: true,
              folder: 'assets',
              ...S3RVER_CREDENTIALS,
            },
          },
        },
      },
    }));
    // After the kernel's own after hook: the kernel closes first.
    after(async () => {
      client?.destroy();
      await s3?.close();
    });

    const key = (url: string) => `assets/${url.slice('/files/'.length)}`;

    it('uploads into the bucket (original and thumbnails) with the same record as on local storage', async function () {
      const png = await imageBytes(900, 300);
      const item = await dataOf(await uploadFile(t, png, 'cloud.png'), 201);
      expect(item).to.include({ storage: 'object_store', mimeType: 'image/png', width: 900, height: 300, checksum: sha256(png) });
      const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key(item.url) }));
      expect(Buffer.from(await object.Body!.transformToByteArray()).equals(png)).to.equal(true);
      const thumb = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key(item.thumbnails.sm.url) }));
      expect(thumb.ContentLength).to.be.greaterThan(0);
    });

    it('/files/ answers 307 to the public URL with the remote ETag, and 304 when If-None-Match equals it', async function () {
      const item = await dataOf(await uploadFile(t, Buffer.from('remote text'), 'remote.txt'), 201);
      const remote = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key(item.url) }));
      const res = await t.request(item.url, { redirect: 'manual' });
      expect(res.status).to.equal(307);
      expect(res.headers.get('location')).to.equal(`${s3.endpoint}/${BUCKET}/${key(item.url)}`);
      expect(res.headers.get('etag')).to.equal(remote.ETag);
      const followed = await fetch(res.headers.get('location')!);
      expect(await followed.text()).to.equal('remote text');
      const conditional = await t.request(item.url, { redirect: 'manual', headers: { 'if-none-match': remote.ETag! } });
      expect(conditional.status).to.equal(304);
      expect(conditional.headers.get('etag')).to.equal(remote.ETag);
      expect((await t.request(item.url, { redirect: 'manual', headers: { 'if-none-match': '"old"' } })).status).to.equal(307);
    });

    it('private media are not redirected to the public URL: they stream through after the permission check (ranges too)', async function () {
      const item = await dataOf(await uploadFile(t, Buffer.from('private cloud bytes'), 'p.txt', { fields: { private: 'true' } }), 201);
      expect((await t.request(item.url, { redirect: 'manual' })).status).to.equal(401);
      const res = await t.request(item.url, { identity: 'viewer', redirect: 'manual' });
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal('private cloud bytes');
      const part = await t.request(item.url, { identity: 'viewer', headers: { range: 'bytes=8-12' } });
      expect(part.status).to.equal(206);
      expect(await part.text()).to.equal('cloud');
    });

    it('share downloads stream from the bucket; delete is direct (no trash)', async function () {
      const item = await dataOf(await uploadFile(t, Buffer.from('to share'), 's.txt'), 201);
      const { token } = await dataOf(await as(t, 'editor').post(`/api/media/share/${item._id}`, {}));
      const dl = await t.request(`/api/media/share?id=${item._id}&token=${token}&download=1`);
      expect(await dl.text()).to.equal('to share');
      expect(await dataOf(await as(t, 'editor').delete(`/api/media/${item._id}`))).to.deep.equal({ deleted: true, trashed: false });
      let missing: unknown;
      await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key(item.url) })).catch((e: unknown) => (missing = e));
      expect((missing as { name?: string })?.name).to.equal('NotFound');
      expect(await dataOf(await as(t, 'editor').get('/api/media/trash'))).to.deep.equal({ supported: false, items: [] });
      const restore = await as(t, 'editor').post('/api/media/trash/restore', { id: item._id });
      expect(restore.status).to.equal(409);
      expect((await restore.json()).error).to.equal('MEDIA_TRASH_UNAVAILABLE');
    });
  });
}

describe('media on S3-compatible storage: the store is down', function () {
  this.timeout(60000);
  const t = useTestKernel({
    plugins: [fixturePlugin('test-identity')],
    config: {
      plugins: {
        options: {
          media: { storageType: 'object_store' },
          'storage-s3': { bucket: BUCKET, endpoint: 'http://127.0.0.1:9', forcePathStyle: true, ...S3RVER_CREDENTIALS },
        },
      },
    },
  });

  it('an upload answers 503 MEDIA_STORAGE_UNAVAILABLE without details, and nothing is recorded', async function () {
    const res = await uploadFile(t, Buffer.from('nowhere to go'), 'n.txt');
    const body = await res.json();
    expect(res.status).to.equal(503);
    expect(body).to.deep.equal({
      success: false,
      error: 'MEDIA_STORAGE_UNAVAILABLE',
      message: 'Media storage is unavailable; try again later',
    });
    expect((await dataOf(await t.request('/api/media', { identity: 'editor' }))).total).to.equal(0);
  });
});
