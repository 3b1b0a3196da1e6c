import { createRequire } from 'node:module';
import type { S3Client } from '@aws-sdk/client-s3';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageDriver } from '../media/public.js';
import type { S3Config } from './s3-options.js';
import { rangeSlice } from '../../lib/storage/range-slice.js';
import { s3Failure } from './s3-failure.js';
import { StorageError } from '../../lib/storage/storage-error.js';
import { storagePathSegments } from '../../lib/storage/storage-path.js';

const require = createRequire(import.meta.url);
/**
 * The AWS SDK (about 10 MB resident) loads when a driver is first configured with a bucket and
 * credentials, not at start: without S3 settings it never loads. Their CommonJS builds, synchronously.
 */
const sdk = (): typeof import('@aws-sdk/client-s3') => require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
const libStorage = (): typeof import('@aws-sdk/lib-storage') => require('@aws-sdk/lib-storage') as typeof import('@aws-sdk/lib-storage');

/** Types a browser must not render from the bucket's origin: served as attachments. */
const ACTIVE_CONTENT = /html|svg|xml|javascript|ecmascript/i;

/**
 * Some S3-compatible stores ignore a Range or widen it (answering `bytes=0-0` with the whole object):
 * cut what was asked for out of what came, from the Content-Range they report.
 */
function exactRange(body: Readable, range: { start: number; end: number }, contentRange?: string): Readable {
  const sent = /^bytes (\d+)-(\d+)\//.exec(contentRange ?? '');
  const sentStart = sent ? Number(sent[1]) : 0;
  const sentEnd = sent ? Number(sent[2]) : Infinity;
  if (sentStart === range.start && sentEnd <= range.end) return body;
  if (sentStart > range.start) {
    body.destroy();
    throw new StorageError('REMOTE_FAILED', `The object store answered bytes ${sentStart}- for a range starting at ${range.start}`);
  }
  const slice = rangeSlice(range.start - sentStart, range.end - sentStart, () => body.destroy());
  body.on('error', (err) => slice.destroy(err));
  return body.pipe(slice);
}

interface Ready {
  client: S3Client;
  bucket: string;
}

/**
 * An S3-compatible driver. `object_store`: the region from MEDIA_CLOUD_REGION (default us-east-1),
 * virtual-hosted addressing unless forcePathStyle. `object_store_edge` (edge-cached S3-compatible
 * buckets): region `auto`, path-style when an endpoint is given. Keys are `<MEDIA_FOLDER>/<path>`.
 * Without a bucket and credentials the driver is registered but every operation throws NOT_CONFIGURED.
 */
export class S3StorageDriver implements StorageDriver {
  readonly kind = 'remote' as const;
  #config: S3Config | null = null;
  #ready: Ready | null = null;
  #missing: string[] = ['boot'];

  constructor(readonly id: 'object_store' | 'object_store_edge') {}

  configure(config: S3Config): void {
    this.#ready?.client.destroy();
    this.#ready = null;
    this.#config = config;
    this.#missing = [
      ...(config.bucket ? [] : ['MEDIA_CLOUD_BUCKET']),
      ...(config.accessKeyId ? [] : ['MEDIA_ACCESS_KEY_ID']),
      ...(config.secretAccessKey ? [] : ['MEDIA_SECRET_ACCESS_KEY']),
    ];
    if (this.#missing.length) return;
    const edge = this.id === 'object_store_edge';
    const client = new (sdk().S3Client)({
      region: edge ? 'auto' : (config.region ?? 'us-east-1'),
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: edge ? Boolean(config.endpoint) : Boolean(config.forcePathStyle),
      credentials: { accessKeyId: config.accessKeyId!, secretAccessKey: config.secretAccessKey! },
      // Many S3-compatible stores do not accept the SDK's default CRC32 trailers; send checksums only where S3 requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5000, requestTimeout: 120000 },
    });
    this.#ready = { client, bucket: config.bucket! };
  }

  /** Whether the bucket and credentials are configured (check() still has to reach it). */
  get configured(): boolean {
    return this.#ready !== null;
  }

  close(): void {
    this.#ready?.client.destroy();
    this.#ready = null;
  }

  private where(): string {
    const c = this.#config;
    return c?.endpoint ? `${new URL(c.endpoint).host}/${c.bucket}` : `s3://${c?.bucket}`;
  }

  private ready(): Ready {
    if (!this.#ready) {
      throw new StorageError(
        'NOT_CONFIGURED',
        `Media storage '${this.id}' is not configured: ${this.#missing.includes('boot') ? 'the plugin has not booted' : `set ${this.#missing.join(', ')}`}`,
      );
    }
    return this.#ready;
  }

  private key(path: string): string {
    const segments = storagePathSegments(path);
    const prefix = this.#config?.prefix;
    return prefix ? `${prefix}/${segments.join('/')}` : segments.join('/');
  }

  async put(
    path: string,
    body: Readable | Buffer,
    meta: { mimeType?: string; size?: number } = {},
  ): Promise<{ size: number; etag?: string }> {
    const key = this.key(path);
    const { client, bucket } = this.ready();
    const mimeType = meta.mimeType ?? 'application/octet-stream';
    let size = 0;
    let source: Readable | Buffer = body;
    let piping: Promise<void> = Promise.resolve();
    let counter: Transform | null = null;
    if (Buffer.isBuffer(body)) {
      size = body.length;
    } else {
      counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      piping = pipeline(body, counter);
      piping.catch(() => undefined);
      source = counter;
    }
    const upload = new (libStorage().Upload)({
      client,
      params: {
        Bucket: bucket,
        Key: key,
        Body: source,
        ContentType: mimeType,
        ...(ACTIVE_CONTENT.test(mimeType) ? { ContentDisposition: 'attachment' } : {}),
      },
      partSize: this.#config!.partSize,
      queueSize: this.#config!.queueSize,
      leavePartsOnError: false,
    });
    try {
      const [result] = await Promise.all([upload.done(), piping]);
      return { size, etag: result.ETag };
    } catch (err) {
      counter?.destroy();
      if (!Buffer.isBuffer(body)) body.destroy();
      throw s3Failure(err, 'store a file', this.where());
    }
  }

  async get(path: string, range?: { start: number; end: number }): Promise<Readable> {
    const key = this.key(path);
    const { client, bucket } = this.ready();
    if (range && (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start)) {
      throw new StorageError('INVALID_RANGE', `Byte range ${range.start}-${range.end} is not valid`);
    }
    try {
      const out = await client.send(
        new (sdk().GetObjectCommand)({ Bucket: bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      if (!(out.Body instanceof Readable)) throw new StorageError('REMOTE_FAILED', 'The object store answered without a body');
      return range ? exactRange(out.Body, range, out.ContentRange) : out.Body;
    } catch (err) {
      throw s3Failure(err, 'read a file', this.where());
    }
  }

  async head(path: string): Promise<{ size: number; etag?: string; mimeType?: string; modifiedAt?: Date } | null> {
    const key = this.key(path);
    const { client, bucket } = this.ready();
    try {
      const out = await client.send(new (sdk().HeadObjectCommand)({ Bucket: bucket, Key: key }));
      return { size: out.ContentLength ?? 0, etag: out.ETag, mimeType: out.ContentType, modifiedAt: out.LastModified };
    } catch (err) {
      const failure = s3Failure(err, 'look up a file', this.where());
      if (failure.reason === 'NOT_FOUND') return null;
      throw failure;
    }
  }

  /** Deletes directly (object stores keep no trash here); deleting a missing key succeeds. */
  async delete(path: string): Promise<void> {
    const key = this.key(path);
    const { client, bucket } = this.ready();
    try {
      await client.send(new (sdk().DeleteObjectCommand)({ Bucket: bucket, Key: key }));
    } catch (err) {
      throw s3Failure(err, 'delete a file', this.where());
    }
  }

  /** MEDIA_CLOUD_PUBLIC_URL/<key>; else the endpoint and bucket (path- or virtual-hosted style); else AWS's address. */
  publicUrl(path: string): string {
    const key = this.key(path).split('/').map(encodeURIComponent).join('/');
    const c = this.#config;
    if (c?.publicUrl) return `${c.publicUrl}/${key}`;
    if (!c?.bucket) throw new StorageError('NOT_CONFIGURED', `Media storage '${this.id}' is not configured: set MEDIA_CLOUD_BUCKET`);
    if (c.endpoint) {
      const pathStyle = this.id === 'object_store_edge' || c.forcePathStyle;
      if (pathStyle) return `${c.endpoint}/${c.bucket}/${key}`;
      const url = new URL(c.endpoint);
      return `${url.protocol}//${c.bucket}.${url.host}${url.pathname.replace(/\/+$/, '')}/${key}`;
    }
    return `https://${c.bucket}.s3.${c.region ?? 'us-east-1'}.amazonaws.com/${key}`;
  }

  /** HeadBucket: the bucket exists and the credentials may use it. */
  async check(): Promise<void> {
    const { client, bucket } = this.ready();
    try {
      await client.send(new (sdk().HeadBucketCommand)({ Bucket: bucket }));
    } catch (err) {
      const failure = s3Failure(err, 'open the bucket', this.where());
      if (failure.reason === 'NOT_FOUND')
        throw new StorageError('REMOTE_FAILED', `The bucket at ${this.where()} does not exist (MEDIA_CLOUD_BUCKET)`, { cause: err });
      throw failure;
    }
  }
}
