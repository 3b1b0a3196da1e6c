import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Context } from 'koa';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../kernel/errors.js';

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

/** Room for the multipart envelope around the file when Content-Length is compared with the limit. */
const ENVELOPE_BYTES = 64 * 1024;

export const limitLabel = (maxBytes: number) => `${+(maxBytes / 1048576).toFixed(2)} MB (MEDIA_MAX_UPLOAD_MB)`;

export const tempFileName = (tmpDir: string) => join(tmpDir, `media-upload-${randomUUID()}`);

/**
 * After a refusal, reads and discards what the client still sends (bounded), so it gets to read the
 * answer instead of a reset connection; past the bound the connection is dropped.
 */
function discardRest(req: IncomingMessage, maxBytes: number): void {
  const cap = Math.min(Math.max(maxBytes, 16 * 1048576), 256 * 1048576);
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > cap) req.destroy();
  });
  req.resume();
}

async function closeAndRemove(out: WriteStream | null, path: string): Promise<void> {
  if (out && !out.closed) {
    await new Promise<void>((resolve) => {
      out.once('close', () => resolve());
      out.destroy();
    });
  }
  await rm(path, { force: true });
}

/**
 * Streams the multipart body of an upload to a temporary file, never holding the file in memory:
 * exactly one file in the field `file` plus short text fields. Refuses: not multipart (415), no file,
 * two files, another file field, oversized or too many fields, a malformed body (400), more bytes than
 * the limit (413, as soon as the limit is passed, or at once from Content-Length). The temporary file
 * is removed on every refusal and when the client aborts.
 */
export async function receiveUpload(ctx: Context, tmpDir: string, maxBytes: number): Promise<ReceivedUpload> {
  const req = ctx.req;
  if (!ctx.is('multipart/form-data')) throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data (the file in the field "file")');
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > maxBytes + ENVELOPE_BYTES) {
    ctx.set('Connection', 'close');
    throw new PayloadTooLargeError(limitLabel(maxBytes));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      // busboy reports the limit on reaching it: one byte more than allowed is the first too many.
      limits: { files: 1, fileSize: maxBytes + 1, fields: 8, fieldSize: 1024, parts: 12, headerPairs: 32 },
    });
  } catch (err) {
    throw new ValidationError(`Malformed multipart request: ${(err as Error).message}`);
  }
  await mkdir(tmpDir, { recursive: true });
  const tempPath = tempFileName(tmpDir);

  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let out: WriteStream | null = null;
    let written: Promise<number> | null = null;
    let originalName = '';
    let settled = false;

    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      if (!req.complete && !req.destroyed) discardRest(req, maxBytes);
      closeAndRemove(out, tempPath).finally(() => reject(err));
    };

    parser.on('file', (name, stream, info) => {
      if (settled) return void stream.resume();
      if (name !== 'file') {
        stream.resume();
        return fail(new ValidationError(`Unexpected file field '${name}': send the file in the field 'file'`));
      }
      originalName = info.filename ?? '';
      const target = createWriteStream(tempPath, { flags: 'wx', mode: 0o600 });
      out = target;
      stream.on('limit', () => fail(new PayloadTooLargeError(limitLabel(maxBytes))));
      written = pipeline(stream, target).then(() => target.bytesWritten);
      written.catch((err: Error) => fail(settled ? err : new ValidationError(`Upload interrupted: ${err.message}`)));
    });
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) return fail(new ValidationError(`Field '${name.slice(0, 64)}' is too long`));
      fields[name] = value;
    });
    parser.on('filesLimit', () => fail(new ValidationError("Send exactly one file, in the field 'file'")));
    parser.on('fieldsLimit', () => fail(new ValidationError('Too many form fields')));
    parser.on('partsLimit', () => fail(new ValidationError('Too many form parts')));
    parser.on('error', (err: Error) => fail(new ValidationError(`Malformed multipart body: ${err.message}`)));
    parser.on('close', () => {
      if (settled) return;
      if (!written) return fail(new ValidationError("No file: send one in the multipart field 'file'"));
      written.then((size) => {
        if (settled) return;
        settled = true;
        resolve({ file: { tempPath, originalName, size }, fields });
      }, () => undefined);
    });
    req.on('error', (err) => fail(new ValidationError(`Upload interrupted: ${err.message}`)));
    req.on('close', () => {
      if (!req.complete) fail(new ValidationError('Upload aborted by the client'));
    });
    req.pipe(parser);
  });
}

/** For the in-process SDK: a Buffer or stream to a temporary file, with the same size limit (413). */
export async function writeTempFile(source: Readable | Buffer, tmpDir: string, maxBytes: number): Promise<{ tempPath: string; size: number }> {
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
