import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'koa';
import { PayloadTooLargeError, closeAndRemove, receiveMultipartFile } from '../../kernel/sdk.js';

export interface ReceivedFile {
  /** A temporary file under <data>/tmp; the caller removes it in every outcome. */
  tempPath: string;
  originalName: string;
  size: number;
}

export interface ReceivedUpload {
  file: ReceivedFile;
  fields: Record<string, string>;
}

export const limitLabel = (maxBytes: number) => `${+(maxBytes / 1048576).toFixed(2)} MB (MEDIA_MAX_UPLOAD_MB)`;

export const tempFileName = (tmpDir: string) => join(tmpDir, `media-upload-${randomUUID()}`);

/**
 * Streams the multipart body of an upload to a temporary file under tmpDir (the kernel's multipart rules:
 * one file in `file`, short fields, 415/400/413 refusals, the file removed on every refusal).
 */
export async function receiveUpload(ctx: Context, tmpDir: string, maxBytes: number): Promise<ReceivedUpload> {
  await mkdir(tmpDir, { recursive: true });
  const tempPath = tempFileName(tmpDir);
  const { filename, size, fields } = await receiveMultipartFile(ctx, tempPath, maxBytes, limitLabel(maxBytes));
  return { file: { tempPath, originalName: filename, size }, fields };
}

/** For the in-process SDK: a Buffer or stream to a temporary file, with the same size limit (413). */
export async function writeTempFile(
  source: Readable | Buffer,
  tmpDir: string,
  maxBytes: number,
): Promise<{ tempPath: string; size: number }> {
  await mkdir(tmpDir, { recursive: true });
  const tempPath = tempFileName(tmpDir);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > maxBytes ? new PayloadTooLargeError(limitLabel(maxBytes)) : null, chunk);
    },
  });
  const out = createWriteStream(tempPath, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(Buffer.isBuffer(source) ? Readable.from([source]) : source, counter, out);
  } catch (err) {
    await closeAndRemove(out, tempPath);
    throw err;
  }
  return { tempPath, size };
}
