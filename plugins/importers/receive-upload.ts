import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Context } from 'koa';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../kernel/errors.js';

export interface ReceivedImport {
  filename: string;
  size: number;
  fields: Record<string, string>;
}

const ENVELOPE_BYTES = 64 * 1024;
const label = (maxBytes: number) => `${+(maxBytes / 1048576).toFixed(2)} MiB (IMPORT_MAX_BYTES)`;

/**
 * Streams the multipart body to `target` (never held in memory): one file in the field `file` plus short
 * text fields. Refusals: not multipart 415; no file, two files, another file field, a malformed body 400;
 * over the limit 413. The target file is removed on every refusal.
 */
export async function receiveImport(ctx: Context, target: string, maxBytes: number): Promise<ReceivedImport> {
  const req = ctx.req;
  if (!ctx.is('multipart/form-data')) throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data (the file in the field "file")');
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > maxBytes + ENVELOPE_BYTES) {
    ctx.set('Connection', 'close');
    req.resume();
    throw new PayloadTooLargeError(label(maxBytes));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, fileSize: maxBytes + 1, fields: 8, fieldSize: 1024, parts: 12 } });
  } catch (err) {
    throw new ValidationError(`Malformed multipart request: ${(err as Error).message}`);
  }
  return new Promise<ReceivedImport>((resolve, reject) => {
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
      if (!req.complete && !req.destroyed) req.resume();
      const file = out;
      const closed = file && !file.closed ? new Promise<void>((r) => { file.once('close', () => r()); file.destroy(); }) : Promise.resolve();
      closed.then(() => rm(target, { force: true })).finally(() => reject(err));
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
      stream.on('limit', () => fail(new PayloadTooLargeError(label(maxBytes))));
      written = pipeline(stream, file).then(() => file.bytesWritten);
      written.catch((err: Error) => fail(new ValidationError(`Upload interrupted: ${err.message}`)));
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
        resolve({ filename, size, fields });
      }, () => undefined);
    });
    req.on('error', (err) => fail(new ValidationError(`Upload interrupted: ${err.message}`)));
    req.on('close', () => {
      if (!req.complete) fail(new ValidationError('Upload aborted by the client'));
    });
    req.pipe(parser);
  });
}
