import type { Context } from 'koa';
import { NotFoundError, matchesIfNoneMatch } from '../../kernel/sdk.js';
import type { OpenedFile } from './storage-driver.js';
import { RangeNotSatisfiableError } from './errors.js';
import type { ServedFile } from './media-service.js';
import type { MediaStorage } from './media-storage.js';
import { contentDisposition } from './safe-names.js';
import { contentTypeHeader, servedInline } from './type-policy.js';

export interface SendOptions {
  /** `auto`: inline for inline-safe types, attachment otherwise; share downloads are always attachments. */
  disposition: 'auto' | 'attachment';
  cacheControl: string;
  inlineTypes: readonly string[];
  /** Remote drivers: redirect to the public URL (public media) instead of streaming through (private media, shares). */
  redirectRemote: boolean;
}

/** Headers every file answer carries, refusals included: no sniffing, and nothing in it may run. */
export function setFileSecurityHeaders(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
}

/**
 * One `bytes=` range of a file of `size` bytes: null to answer the whole file (no header, several
 * ranges, or a header that does not parse, which RFC 9110 says to ignore); throws 416 when unsatisfiable.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | null {
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw new RangeNotSatisfiableError(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) throw new RangeNotSatisfiableError(size);
  if (end < start) return null;
  return { start, end };
}

/**
 * Answers a stored file. Remote drivers with redirectRemote: 304 when If-None-Match equals the remote
 * ETag, otherwise 307 to the public URL carrying the ETag. Otherwise the bytes stream through (never
 * buffered): ETag and Last-Modified from head(), 304 on If-None-Match (or If-Modified-Since without
 * it), one byte range (206, If-Range honoured; 416 when unsatisfiable), Content-Type from the record,
 * Content-Disposition with a safe name (attachment unless inline-safe), Accept-Ranges.
 */
export async function sendFile(ctx: Context, storage: MediaStorage, file: ServedFile, options: SendOptions): Promise<void> {
  const redirect = storage.driver.kind === 'remote' && options.redirectRemote;
  // Local drivers open the file once (validators and bytes from one descriptor); others answer head() then get().
  const opened = redirect ? undefined : await storage.openRead(file.path);
  if (opened === null) throw new NotFoundError('No file at this address');
  try {
    await answer(ctx, storage, file, options, opened);
  } finally {
    opened?.close(); // a no-op once the body stream owns the descriptor
  }
}

async function answer(
  ctx: Context,
  storage: MediaStorage,
  file: ServedFile,
  options: SendOptions,
  opened: OpenedFile | undefined,
): Promise<void> {
  const head = opened ?? (await storage.head(file.path));
  if (!head) throw new NotFoundError('No file at this address');
  const etag = head.etag ?? `W/"${head.size.toString(16)}-${(head.modifiedAt?.getTime() ?? 0).toString(16)}"`;
  ctx.set('Cache-Control', options.cacheControl);
  ctx.set('ETag', etag);
  const ifNoneMatch = ctx.get('if-none-match');
  if (storage.driver.kind === 'remote' && options.redirectRemote) {
    if (ifNoneMatch && matchesIfNoneMatch(ifNoneMatch, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.status = 307;
    ctx.set('Location', storage.publicUrl(file.path));
    return;
  }
  if (head.modifiedAt) ctx.set('Last-Modified', head.modifiedAt.toUTCString());
  const ifModifiedSince = Date.parse(ctx.get('if-modified-since'));
  const notModified = ifNoneMatch
    ? matchesIfNoneMatch(ifNoneMatch, etag)
    : Number.isFinite(ifModifiedSince) &&
      head.modifiedAt !== undefined &&
      Math.floor(head.modifiedAt.getTime() / 1000) * 1000 <= ifModifiedSince;
  if (notModified) {
    ctx.status = 304;
    return;
  }
  const size = head.size;
  const ifRange = ctx.get('if-range');
  const rangeHeader = ctx.get('range');
  const range = rangeHeader && (!ifRange || ifRange === etag) ? parseRange(rangeHeader, size) : null;
  const inline = options.disposition === 'auto' && servedInline(file.mimeType, options.inlineTypes);
  ctx.status = range ? 206 : 200;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Type', contentTypeHeader(file.mimeType));
  ctx.set('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', file.filename));
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  const length = range ? range.end - range.start + 1 : size;
  if (ctx.method === 'HEAD' || length === 0) {
    ctx.body = Buffer.alloc(0);
  } else if (opened) {
    ctx.body = opened.stream(range ?? undefined);
  } else {
    try {
      ctx.body = await storage.get(file.path, range ?? undefined);
    } catch (err) {
      for (const h of ['Content-Disposition', 'Content-Range', 'Accept-Ranges', 'ETag', 'Last-Modified']) ctx.remove(h);
      throw err;
    }
  }
  ctx.length = length;
}
