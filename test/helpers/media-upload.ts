import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { TestKernel, TestResponse } from './kernel.js';

/** Test media: real images made with sharp, multipart bodies (in memory or streamed), hashes. */

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A real PNG (or JPEG) of the given size: a gradient, so it is not trivially compressible. */
export async function imageBytes(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = (x + y) % 256;
    }
  }
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 80 }).toBuffer();
}

export interface UploadOptions {
  identity?: string;
  tenant?: string;
  fields?: Record<string, string>;
  headers?: Record<string, string>;
  /** Extra file parts (field name -> [filename, bytes]). */
  extraFiles?: Array<[string, string, Buffer]>;
  /** Leave out the `file` part. */
  noFile?: boolean;
}

/** POST /api/media/upload with a FormData body (the file in `file`). */
export function uploadFile(t: TestKernel, bytes: Buffer, filename: string, options: UploadOptions = {}): Promise<TestResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(options.fields ?? {})) form.append(k, v);
  if (!options.noFile) form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  for (const [field, name, b] of options.extraFiles ?? []) form.append(field, new Blob([new Uint8Array(b)]), name);
  const headers: Record<string, string> = { ...(options.tenant ? { 'x-test-tenant': options.tenant } : {}), ...(options.headers ?? {}) };
  return t.request('/api/media/upload', { method: 'POST', identity: options.identity ?? 'editor', headers, body: form });
}

/**
 * A multipart body of `size` bytes of file content, generated chunk by chunk (never held in memory),
 * sent chunked (no Content-Length); `chunk(i)` gives the bytes of the i-th 64 KiB piece.
 */
export function streamedMultipart(
  size: number,
  filename: string,
  chunk: (offset: number, length: number) => Uint8Array = (_o, n) => Buffer.alloc(n, 0x61),
) {
  const boundary = `----cmstest${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(new Uint8Array(head));
        sent = 0;
        return;
      }
      if (sent >= size) {
        controller.enqueue(new Uint8Array(tail));
        controller.close();
        return;
      }
      const n = Math.min(64 * 1024, size - sent);
      controller.enqueue(chunk(sent, n)); // as given: a reused buffer stays one allocation
      sent += n;
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, sent: () => sent };
}

/** POST a streamed multipart body (chunked) as an identity. */
export function uploadStream(t: TestKernel, stream: ReturnType<typeof streamedMultipart>, identity = 'editor'): Promise<TestResponse> {
  return t.request('/api/media/upload', {
    method: 'POST',
    identity,
    headers: { 'content-type': stream.contentType },
    body: stream.body,
    duplex: 'half',
  } as RequestInit & { identity?: string });
}
