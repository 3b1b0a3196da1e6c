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
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200 || ctx.body == null) return;
  let bytes: string | Buffer;
  if (typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body)) bytes = ctx.body;
  else if (typeof (ctx.body as any).pipe === 'function') return;
  else {
    bytes = JSON.stringify(ctx.body);
    ctx.type = 'application/json';
    ctx.body = bytes;
  }
  if (!ctx.response.get('ETag')) {
    ctx.set('ETag', typeof bytes === 'string' ? tagOf(bytes) : `"${hasher.h64Raw(bytes).toString(16).padStart(16, '0')}"`);
  }
  if (matchesIfNoneMatch(ctx.get('if-none-match'), ctx.response.get('ETag'))) {
    ctx.status = 304;
    ctx.body = null;
  }
}
