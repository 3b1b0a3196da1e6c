import busboy from 'busboy';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tempDir } from './kernel.js';

interface Asset {
  file: string;
  format: string;
  bytes: number;
  md5: string;
  mimeType: string;
  createdAt: Date;
}

export interface CdnServer {
  url: string;
  /** Completed uploads, chunk requests (X-Unique-Upload-Id), and requests refused for their signature. */
  stats: { uploads: number; chunks: number; refused: number; destroys: number };
  /** false: deliveries ignore Range and send the whole file with 200 (as some CDN edges do). */
  honourRanges: boolean;
  assets: Map<string, Asset>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/**
 * The documented signature, written here independently of the driver: every parameter except file,
 * api_key, resource_type and cloud_name (and empty ones) sorted by name, `name=value` joined by `&`,
 * the API secret appended, SHA-1 in hex.
 */
function expectedSignature(params: Record<string, string>, secret: string): { toSign: string; signature: string } {
  const toSign = Object.entries(params)
    .filter(([k, v]) => !['file', 'api_key', 'resource_type', 'cloud_name', 'signature'].includes(k) && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return {
    toSign,
    signature: createHash('sha1')
      .update(toSign + secret)
      .digest('hex'),
  };
}

/** Reads a multipart form: fields, and the file part written to `fileTarget` (its md5, size and type). */
async function readForm(
  req: IncomingMessage,
  fileTarget: string,
): Promise<{ fields: Record<string, string>; file?: { filename: string; mimeType: string; md5: string; bytes: number } }> {
  const fields: Record<string, string> = {};
  let file: { filename: string; mimeType: string; md5: string; bytes: number } | undefined;
  const writes: Promise<void>[] = [];
  await new Promise<void>((resolve, reject) => {
    const bb = busboy({ headers: req.headers, limits: { fileSize: 200 * 1024 * 1024 } });
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (_name, stream, info) => {
      const hash = createHash('md5');
      let bytes = 0;
      const counting = new Transform({
        transform(chunk: Buffer, _e, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      writes.push(
        pipeline(stream, counting, createWriteStream(fileTarget)).then(() => {
          file = { filename: info.filename ?? 'file', mimeType: info.mimeType, md5: hash.digest('hex'), bytes };
        }),
      );
    });
    bb.on('close', resolve);
    bb.on('error', reject);
    req.pipe(bb);
  });
  await Promise.all(writes);
  return { fields, file };
}

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  txt: 'text/plain',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  bin: 'application/octet-stream',
};

/**
 * A local stand-in for a Cloudinary-style image CDN on 127.0.0.1: the signed upload API (whole and
 * chunked), the signed destroy API, and delivery (GET/HEAD with ETag and Range). Wrong api_key,
 * stale timestamps and wrong signatures are refused as the CDN documents (401 / 400).
 */
export async function startCdnServer(account: { cloudName: string; apiKey: string; apiSecret: string }): Promise<CdnServer> {
  const dir = tempDir('cms-cdn-');
  const assets = new Map<string, Asset>();
  const partial = new Map<string, { file: string; received: number }>();
  const stats = { uploads: 0, chunks: 0, refused: 0, destroys: 0 };
  const state = { honourRanges: true };

  function verify(fields: Record<string, string>, res: ServerResponse): boolean {
    if (fields.api_key !== account.apiKey) {
      stats.refused++;
      json(res, 401, { error: { message: `Invalid api_key ${fields.api_key ?? ''}` } });
      return false;
    }
    const timestamp = Number(fields.timestamp);
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 3600) {
      json(res, 400, { error: { message: 'Stale request - reported time is more than 1 hour from now' } });
      return false;
    }
    const { toSign, signature } = expectedSignature(fields, account.apiSecret);
    if (fields.signature !== signature) {
      stats.refused++;
      json(res, 401, { error: { message: `Invalid Signature ${fields.signature ?? ''}. String to sign - '${toSign}'.` } });
      return false;
    }
    return true;
  }

  async function upload(req: IncomingMessage, res: ServerResponse, type: string) {
    const part = join(dir, `part-${randomUUID()}`);
    const { fields, file } = await readForm(req, part);
    if (!file || !fields.public_id) return json(res, 400, { error: { message: 'Missing required parameter - file or public_id' } });
    if (!verify(fields, res)) return rm(part, { force: true });
    let target = part;
    let md5 = file.md5;
    const uploadId = req.headers['x-unique-upload-id'];
    if (typeof uploadId === 'string') {
      stats.chunks++;
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
      if (!m) return json(res, 400, { error: { message: 'Invalid Content-Range' } });
      const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const sofar = partial.get(uploadId) ?? { file: join(dir, `chunked-${randomUUID()}`), received: 0 };
      if (start !== sofar.received || end - start + 1 !== file.bytes) return json(res, 400, { error: { message: 'Chunk out of order' } });
      await appendFile(sofar.file, await readFile(part));
      await rm(part, { force: true });
      sofar.received = end + 1;
      partial.set(uploadId, sofar);
      if (sofar.received < total) return json(res, 200, { done: false, bytes: sofar.received });
      partial.delete(uploadId);
      target = sofar.file;
      const hash = createHash('md5');
      await pipeline(createReadStream(target), hash);
      md5 = hash.digest('hex');
    }
    const format = /\.([A-Za-z0-9]+)$/.exec(file.filename)?.[1]?.toLowerCase() ?? '';
    const bytes = statSync(target).size;
    const old = assets.get(`${type}/${fields.public_id}`);
    if (old) await rm(old.file, { force: true });
    const mimeType =
      file.mimeType && file.mimeType !== 'application/octet-stream' ? file.mimeType : (MIME[format] ?? 'application/octet-stream');
    assets.set(`${type}/${fields.public_id}`, { file: target, format, bytes, md5, mimeType, createdAt: new Date() });
    stats.uploads++;
    json(res, 200, {
      public_id: fields.public_id,
      version: Math.floor(Date.now() / 1000),
      resource_type: type,
      format,
      bytes,
      etag: md5,
      secure_url: `/${account.cloudName}/${type}/upload/${fields.public_id}${type === 'raw' ? '' : `.${format}`}`,
    });
  }

  async function destroy(req: IncomingMessage, res: ServerResponse, type: string) {
    const { fields } = await readForm(req, join(dir, `unused-${randomUUID()}`));
    if (!verify(fields, res)) return;
    stats.destroys++;
    const asset = assets.get(`${type}/${fields.public_id}`);
    if (!asset) return json(res, 200, { result: 'not found' });
    assets.delete(`${type}/${fields.public_id}`);
    await rm(asset.file, { force: true });
    json(res, 200, { result: 'ok' });
  }

  function deliver(req: IncomingMessage, res: ServerResponse, type: string, rest: string) {
    const decoded = rest.split('/').map(decodeURIComponent).join('/');
    let publicId = decoded;
    let format = '';
    if (type !== 'raw') {
      const dot = decoded.lastIndexOf('.');
      publicId = decoded.slice(0, dot);
      format = decoded.slice(dot + 1);
    }
    const asset = assets.get(`${type}/${publicId}`);
    if (!asset || (type !== 'raw' && asset.format !== format)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end(req.method === 'HEAD' ? undefined : 'Resource not found');
    }
    const headers: Record<string, string | number> = {
      etag: `"${asset.md5}"`,
      'content-type': asset.mimeType,
      'last-modified': asset.createdAt.toUTCString(),
      'accept-ranges': 'bytes',
    };
    const range = /^bytes=(\d+)-(\d+)?$/.exec(String(req.headers.range ?? ''));
    if (range && state.honourRanges) {
      const start = Number(range[1]);
      const end = Math.min(range[2] === undefined ? asset.bytes - 1 : Number(range[2]), asset.bytes - 1);
      if (start >= asset.bytes || end < start) {
        res.writeHead(416, { 'content-range': `bytes */${asset.bytes}` });
        return res.end();
      }
      res.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${asset.bytes}` });
      if (req.method === 'HEAD') return res.end();
      return createReadStream(asset.file, { start, end }).pipe(res);
    }
    res.writeHead(200, { ...headers, 'content-length': asset.bytes });
    if (req.method === 'HEAD') return res.end();
    createReadStream(asset.file).pipe(res);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://cdn.test');
    const api = /^\/v1_1\/([^/]+)\/(image|video|raw)\/(upload|destroy)$/.exec(url.pathname);
    const delivery = /^\/([^/]+)\/(image|video|raw)\/upload\/(.+)$/.exec(url.pathname);
    const handle = async () => {
      if (api && req.method === 'POST') {
        if (api[1] !== account.cloudName) return json(res, 404, { error: { message: 'Invalid cloud_name' } });
        return api[3] === 'upload' ? upload(req, res, api[2]!) : destroy(req, res, api[2]!);
      }
      if (delivery && (req.method === 'GET' || req.method === 'HEAD') && delivery[1] === account.cloudName)
        return deliver(req, res, delivery[2]!, delivery[3]!);
      json(res, 404, { error: { message: 'Not found' } });
    };
    handle().catch((err) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(err) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    assets,
    get honourRanges() {
      return state.honourRanges;
    },
    set honourRanges(value: boolean) {
      state.honourRanges = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
