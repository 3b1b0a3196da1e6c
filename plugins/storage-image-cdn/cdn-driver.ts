import { randomBytes } from 'node:crypto';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { StorageDriver } from '../media/public.js';
import { cdnAsset, deliveryPath } from './cdn-asset.js';
import type { CdnConfig } from './cdn-options.js';
import { cdnSignature } from './cdn-signature.js';
import { rangeSlice } from '../../lib/storage/range-slice.js';
import { StorageError } from '../../lib/storage/storage-error.js';

/** An upload request (one chunk) may take this long to answer. */
const UPLOAD_TIMEOUT_MS = 10 * 60 * 1000;

type Account = CdnConfig & { cloudName: string; apiKey: string; apiSecret: string; publicUrl: string };

/**
 * The `image_cdn` driver: a Cloudinary-style image CDN. Uploads go through the signed upload API
 * (`<upload url>/v1_1/<cloud>/<image|video|raw>/upload`, in chunks above chunkSizeMb), deletes through
 * the signed destroy API, reads and heads through the public delivery address. Streamed bodies are
 * spooled to a temporary file under the data folder first (the CDN needs the length), never held in memory.
 */
export class ImageCdnDriver implements StorageDriver {
  readonly id = 'image_cdn';
  readonly kind = 'remote' as const;
  #config: CdnConfig | null = null;

  configure(config: CdnConfig): void {
    this.#config = config;
  }

  get configured(): boolean {
    return this.missing().length === 0;
  }

  private missing(): string[] {
    const c = this.#config;
    if (!c) return ['boot'];
    return [
      ...(c.cloudName ? [] : ['MEDIA_CDN_CLOUD_NAME']),
      ...(c.apiKey ? [] : ['MEDIA_CDN_API_KEY']),
      ...(c.apiSecret ? [] : ['MEDIA_CDN_API_SECRET']),
    ];
  }

  private account(): Account {
    const missing = this.missing();
    if (missing.length) {
      throw new StorageError(
        'NOT_CONFIGURED',
        `Media storage 'image_cdn' is not configured: ${missing.includes('boot') ? 'the plugin has not booted' : `set ${missing.join(', ')}`}`,
      );
    }
    return this.#config as Account;
  }

  /** The form of a signed API call: the parameters, api_key and the signature (and the file, if any). */
  private signedForm(a: Account, params: Record<string, string>, file?: { blob: Blob; filename: string }): FormData {
    const form = new FormData();
    if (file) form.append('file', file.blob, file.filename);
    for (const [k, v] of Object.entries(params)) form.append(k, v);
    form.append('api_key', a.apiKey);
    form.append('signature', cdnSignature(params, a.apiSecret));
    return form;
  }

  /** fetch with a limit on the time to the response headers (not on reading the body). */
  private async send(url: string, init: RequestInit, what: string, timeoutMs: number): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return await fetch(url, { ...init, signal: controller.signal });
    } catch (err) {
      const reason = controller.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
      throw new StorageError('REMOTE_FAILED', `Cannot reach the image CDN at ${new URL(url).host} to ${what} (${reason})`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A failed answer as a StorageError; the CDN's message is kept, with any credential scrubbed out. */
  private async failure(res: Response, what: string): Promise<StorageError> {
    const text = await res.text().catch(() => '');
    let detail = '';
    try {
      const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
      if (typeof message === 'string') detail = message;
    } catch {
      // not JSON: no detail
    }
    const a = this.#config;
    for (const secret of [a?.apiSecret, a?.apiKey]) if (secret) detail = detail.split(secret).join('[redacted]');
    const summary = `The image CDN refused to ${what} (HTTP ${res.status}${detail ? `: ${detail.slice(0, 300)}` : ''})`;
    if (res.status === 401 || res.status === 403)
      return new StorageError('REMOTE_REFUSED', `${summary}; check MEDIA_CDN_API_KEY and MEDIA_CDN_API_SECRET`);
    if (res.status === 404) return new StorageError('NOT_FOUND', 'No such file in storage');
    return new StorageError('REMOTE_FAILED', summary);
  }

  private async api(a: Account, url: string, init: RequestInit, what: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const res = await this.send(url, init, what, timeoutMs);
    if (!res.ok) throw await this.failure(res, what);
    try {
      return (await res.json()) as Record<string, unknown>;
    } catch (err) {
      throw new StorageError(
        'REMOTE_FAILED',
        `The image CDN at ${new URL(a.uploadUrl).host} answered ${what} with something that is not JSON`,
        { cause: err },
      );
    }
  }

  private apiUrl(a: Account, resourceType: string, action: 'upload' | 'destroy'): string {
    return `${a.uploadUrl}/v1_1/${encodeURIComponent(a.cloudName)}/${resourceType}/${action}`;
  }

  async put(path: string, body: Readable | Buffer, meta: { mimeType?: string } = {}): Promise<{ size: number; etag?: string }> {
    const a = this.account();
    const asset = cdnAsset(a.prefix, path);
    let temp: string | null = null;
    try {
      let blob: Blob;
      if (Buffer.isBuffer(body)) {
        blob = new Blob([body], { type: meta.mimeType ?? '' });
      } else {
        await mkdir(a.tempDir, { recursive: true });
        temp = join(a.tempDir, `image-cdn-${randomBytes(9).toString('base64url')}.part`);
        await pipeline(body, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        blob = (await openAsBlob(temp, { type: meta.mimeType ?? '' })) as Blob;
      }
      const params = { invalidate: 'true', public_id: asset.publicId, timestamp: String(Math.floor(Date.now() / 1000)) };
      const url = this.apiUrl(a, asset.resourceType, 'upload');
      let result: Record<string, unknown> = {};
      if (blob.size <= a.chunkSize) {
        result = await this.api(
          a,
          url,
          { method: 'POST', body: this.signedForm(a, params, { blob, filename: asset.filename }) },
          'store a file',
          UPLOAD_TIMEOUT_MS,
        );
      } else {
        // The CDN's chunked upload: the same signed parameters with each chunk, one upload id, Content-Range.
        const uploadId = randomBytes(16).toString('hex');
        for (let start = 0; start < blob.size; start += a.chunkSize) {
          const end = Math.min(start + a.chunkSize, blob.size) - 1;
          result = await this.api(
            a,
            url,
            {
              method: 'POST',
              headers: { 'X-Unique-Upload-Id': uploadId, 'Content-Range': `bytes ${start}-${end}/${blob.size}` },
              body: this.signedForm(a, params, { blob: blob.slice(start, end + 1), filename: asset.filename }),
            },
            'store a file',
            UPLOAD_TIMEOUT_MS,
          );
        }
      }
      const etag = typeof result.etag === 'string' && result.etag ? `"${result.etag}"` : undefined;
      return { size: typeof result.bytes === 'number' ? result.bytes : blob.size, etag };
    } finally {
      if (temp) await rm(temp, { force: true });
    }
  }

  async get(path: string, range?: { start: number; end: number }): Promise<Readable> {
    const a = this.account();
    if (range && (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start)) {
      throw new StorageError('INVALID_RANGE', `Byte range ${range.start}-${range.end} is not valid`);
    }
    const headers: Record<string, string> = range ? { Range: `bytes=${range.start}-${range.end}` } : {};
    const res = await this.send(this.deliveryUrl(a, path), { headers }, 'read a file', a.requestTimeoutMs);
    if (res.status === 416) {
      await res.body?.cancel();
      throw new StorageError('INVALID_RANGE', 'The byte range is outside the file');
    }
    if (!res.ok || !res.body) throw await this.failure(res, 'read a file');
    const source = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    if (!range || res.status === 206) return source;
    // The server sent the whole file: cut the range out of it, and stop the download after it.
    const slice = rangeSlice(range.start, range.end, () => source.destroy());
    source.on('error', (err) => slice.destroy(err));
    return source.pipe(slice);
  }

  async head(path: string): Promise<{ size: number; etag?: string; mimeType?: string; modifiedAt?: Date } | null> {
    const a = this.account();
    const res = await this.send(this.deliveryUrl(a, path), { method: 'HEAD' }, 'look up a file', a.requestTimeoutMs);
    if (res.status === 404) return null;
    if (!res.ok) throw await this.failure(res, 'look up a file');
    const modified = res.headers.get('last-modified');
    return {
      size: Number(res.headers.get('content-length') ?? 0),
      etag: res.headers.get('etag') ?? undefined,
      mimeType: res.headers.get('content-type') ?? undefined,
      modifiedAt: modified ? new Date(modified) : undefined,
    };
  }

  /** The signed destroy API; deleting an asset that is not there succeeds. */
  async delete(path: string): Promise<void> {
    const a = this.account();
    const asset = cdnAsset(a.prefix, path);
    await this.destroy(a, asset.resourceType, asset.publicId);
  }

  private async destroy(a: Account, resourceType: string, publicId: string): Promise<string> {
    const params = { invalidate: 'true', public_id: publicId, timestamp: String(Math.floor(Date.now() / 1000)) };
    try {
      const result = await this.api(
        a,
        this.apiUrl(a, resourceType, 'destroy'),
        { method: 'POST', body: this.signedForm(a, params) },
        'delete a file',
        a.requestTimeoutMs,
      );
      return String(result.result ?? '');
    } catch (err) {
      if (err instanceof StorageError && err.reason === 'NOT_FOUND') return 'not found';
      throw err;
    }
  }

  private deliveryUrl(a: Account, path: string): string {
    return `${a.publicUrl}/${deliveryPath(cdnAsset(a.prefix, path))}`;
  }

  publicUrl(path: string): string {
    const c = this.#config;
    if (!c?.publicUrl)
      throw new StorageError(
        'NOT_CONFIGURED',
        "Media storage 'image_cdn' is not configured: set MEDIA_CDN_CLOUD_NAME or MEDIA_CLOUD_PUBLIC_URL",
      );
    return `${c.publicUrl}/${deliveryPath(cdnAsset(c.prefix, path))}`;
  }

  /** A signed destroy of an id no upload can have: proves the address and the signature without the admin API. */
  async check(): Promise<void> {
    const a = this.account();
    await this.destroy(a, 'image', a.prefix ? `${a.prefix}/.storage-check` : '.storage-check');
  }
}
