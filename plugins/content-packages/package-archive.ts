/**
 * The package archive: a gzip-compressed tar of the package folder's files at the archive's root
 * (manifest.json first, then checksums.sha256, components.json, schemas/, content/, media/), written to a `.partial`
 * name and renamed into place; and its download: streamed, one byte range (206 / 416), ETag.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'koa';
import * as tar from 'tar';
import { matchesIfNoneMatch, type WorkerPool } from '../../kernel/sdk.js';
import { rangeNotSatisfiable } from './export-errors.js';

/** The archive's top-level entries, in this order (a streaming reader meets manifest.json first). */
const ORDER = ['manifest.json', 'checksums.sha256', 'components.json', 'schemas', 'content', 'media'];

export async function sha256OfFile(pool: WorkerPool, path: string): Promise<{ sha256: string; size: number }> {
  const r = await pool.sha256File(path);
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.value;
}

/** Tars and gzips `dir` into `target` (through `target.partial`, renamed when complete); answers size and SHA-256. */
export async function writeArchive(
  dir: string,
  present: string[],
  target: string,
  pool: WorkerPool,
): Promise<{ size: number; sha256: string }> {
  const partial = `${target}.partial`;
  const entries = ORDER.filter((e) => present.includes(e));
  try {
    const pack = tar.c({ gzip: true, cwd: dir, portable: true }, entries) as unknown as AsyncIterable<Buffer>;
    await pipeline(Readable.from(pack), createWriteStream(partial));
    const hashed = await sha256OfFile(pool, partial);
    await rename(partial, target);
    return hashed;
  } catch (err) {
    await rm(partial, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * One `bytes=` range of `size` bytes: null for the whole file (no header, several ranges, or one that
 * does not parse, which RFC 9110 says to ignore); 416 when unsatisfiable.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | null {
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw rangeNotSatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) throw rangeNotSatisfiable(size);
  if (end < start) return null;
  return { start, end };
}

/**
 * Streams an archive: `application/gzip`, attachment `<fileName>`, ETag (the archive's SHA-256: a
 * package never changes), 304 on If-None-Match, `Accept-Ranges: bytes`, one range (206 with
 * Content-Range; If-Range honoured; 416 when unsatisfiable).
 */
export async function sendArchive(ctx: Context, path: string, fileName: string, sha256: string): Promise<boolean> {
  const s = await stat(path).catch(() => null);
  if (!s?.isFile()) return false;
  const etag = `"${sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.set('Last-Modified', s.mtime.toUTCString());
  if (matchesIfNoneMatch(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    return true;
  }
  const ifRange = ctx.get('if-range');
  const header = ctx.get('range');
  const range = header && (!ifRange || ifRange === etag) ? parseRange(header, s.size) : null;
  ctx.status = range ? 206 : 200;
  ctx.set('Content-Type', 'application/gzip');
  ctx.set('Content-Disposition', `attachment; filename="${fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${s.size}`);
  const length = range ? range.end - range.start + 1 : s.size;
  ctx.body = ctx.method === 'HEAD' || length === 0 ? Buffer.alloc(0) : createReadStream(path, range ?? undefined);
  ctx.length = length;
  return true;
}
