import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Context } from 'koa';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';

export interface ReceivedMultipart {
  /** The client's file name (untrusted: only for display and extension hints). */
  filename: string;
  size: number;
  /** The short text fields sent beside the file. */
  fields: Record<string, string>;
}

/** Room for the multipart envelope around the file when Content-Length is compared with the limit. */
const ENVELOPE_BYTES = 64 * 1024;

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

/** Closes a half-written file and removes it. */
export async function closeAndRemove(out: WriteStream | null, path: string): Promise<void> {
  if (out && !out.closed) {
    await new Promise<void>((resolve) => {
      out.once('close', () => resolve());
      out.destroy();
    });
  }
  await rm(path, { force: true });
}

/**
 * Streams a multipart upload to `target` (a new file; never held in memory): exactly one file in the field
 * `file` plus up to 8 short text fields. Refuses: not multipart (415), no file, two files, another file field,
 * oversized or too many fields, a malformed body (400), more bytes than `maxBytes` (413 naming `limitLabel`, as
 * soon as the limit is passed, or at once from Content-Length). The target is removed on every refusal and when
 * the client aborts. Used by every upload route (media, importers).
 */
export async function receiveMultipartFile(ctx: Context, target: string, maxBytes: number, limitLabel: string): Promise<ReceivedMultipart> {
  const req = ctx.req;
  if (!ctx.is('multipart/form-data'))
    throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data (the file in the field "file")');
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > maxBytes + ENVELOPE_BYTES) {
    ctx.set('Connection', 'close');
    throw new PayloadTooLargeError(limitLabel);
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

  return new Promise<ReceivedMultipart>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let out: WriteStream | null = null;
    let written: Promise<number> | null = null;
    let filename = '';
    let settled = false;

    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      if (!req.complete && !req.destroyed) discardRest(req, maxBytes);
      closeAndRemove(out, target).finally(() => reject(err));
    };

    parser.on('file', (name, stream, info) => {
      if (settled) return void stream.resume();
      if (name !== 'file') {
        stream.resume();
        return fail(new ValidationError(`Unexpected file field '${name}': send the file in the field 'file'`));
      }
      filename = info.filename ?? '';
      const file = createWriteStream(target, { flags: 'wx', mode: 0o600 });
      out = file;
      stream.on('limit', () => fail(new PayloadTooLargeError(limitLabel)));
      written = pipeline(stream, file).then(() => file.bytesWritten);
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
      written.then(
        (size) => {
          if (settled) return;
          settled = true;
          resolve({ filename, size, fields });
        },
        () => undefined,
      );
    });
    req.on('error', (err) => fail(new ValidationError(`Upload interrupted: ${err.message}`)));
    req.on('close', () => {
      if (!req.complete) fail(new ValidationError('Upload aborted by the client'));
    });
    req.pipe(parser);
  });
}
