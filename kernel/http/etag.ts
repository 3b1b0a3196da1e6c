import type { Context, Next } from 'koa';
import xxhash from 'xxhash-wasm';

const hasher = await xxhash();

/** A strong entity tag from text, the same form as the middleware's: xxHash64 in hex, quoted. */
export const tagOf = (text: string): string => `"${hasher.h64ToString(text)}"`;

/**
 * RFC 9110 weak comparison of If-None-Match with the response's ETag. (Koa's ctx.fresh also refuses
 * when the request says Cache-Control: no-cache, which fetch() adds to every conditional request; an
 * origin server answering a conditional request is exactly the revalidation no-cache asks for.)
 */
export function matchesIfNoneMatch(header: string, tag: string): boolean {
  if (!header || !tag) return false;
  if (header.trim() === '*') return true;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => bare(t) === bare(tag));
}

/**
 * Every GET 200 gets an ETag from a fast non-cryptographic hash (xxHash64) of the body; a matching
 * If-None-Match answers 304 with no body. Streams are left alone (their drivers set ETags). A route
 * that set its own ETag (e.g. a cached list with its stored tag) is not hashed again; the comparison
 * still applies.
 */
export async function etag(ctx: Context, next: Next): Promise<void> {
  await next();
  applyEtag(ctx);
}

/** The ETag middleware's work after the handler (the kernel's compiled stage calls it directly). */
export function applyEtag(ctx: Context): void {
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200 || ctx.body == null) return;
  const body = ctx.body as unknown;
  let bytes: string | Buffer;
  if (typeof body === 'string' || Buffer.isBuffer(body)) bytes = body;
  else if (typeof (body as { pipe?: unknown }).pipe === 'function') return;
  else {
    bytes = JSON.stringify(body);
    ctx.type = 'application/json';
    ctx.body = bytes;
  }
  let tag = ctx.response.get('ETag');
  if (!tag) {
    tag = typeof bytes === 'string' ? tagOf(bytes) : `"${hasher.h64Raw(bytes).toString(16).padStart(16, '0')}"`;
    ctx.set('ETag', tag);
  }
  const condition = ctx.get('if-none-match');
  if (condition && matchesIfNoneMatch(condition, tag)) {
    ctx.status = 304;
    ctx.body = null;
  }
}
