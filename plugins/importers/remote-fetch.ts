import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { guardedLookup, isInternalAddress } from '../../kernel/sdk.js';

export interface RemoteFetchOptions {
  /** Largest file fetched (bytes); a longer body is cut off and refused. */
  maxBytes: number;
  timeoutMs: number;
  /** Loopback, private, link-local and other internal addresses are refused unless this is on (tests, intranets). */
  allowPrivate: boolean;
  maxRedirects?: number;
}

/** The kernel's one outbound guard (kernel/outbound.ts); re-exported for the importer's tests. */
export { isInternalAddress };

function get(url: URL, options: RemoteFetchOptions): Promise<IncomingMessage> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !options.allowPrivate && isInternalAddress(literal))
    return Promise.reject(new Error(`${literal} is an internal address; remote fetches are refused there`));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        lookup: guardedLookup(options.allowPrivate),
        timeout: options.timeoutMs,
        headers: { 'user-agent': 'cms-importer/1.0', accept: '*/*' },
      },
      resolve,
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Downloads an attachment the import only knows by URL into `target` (http and https only, internal
 * addresses refused by name and by resolved address, at most 3 redirects each checked the same way,
 * status 200 only, at most maxBytes). Throws with a message fit for an import warning; `target` is
 * removed on failure.
 */
export async function fetchRemoteFile(
  rawUrl: string,
  target: string,
  options: RemoteFetchOptions,
): Promise<{ size: number; mimeType: string | null }> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error('not a URL');
  }
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${url.protocol} URLs are not fetched`);
    if (url.username || url.password) throw new Error('URLs with credentials are not fetched');
    const res = await get(url, options);
    if ([301, 302, 303, 307, 308].includes(res.statusCode ?? 0) && res.headers.location) {
      res.resume();
      if (hop >= (options.maxRedirects ?? 3)) throw new Error('too many redirects');
      url = new URL(res.headers.location, url);
      continue;
    }
    if (res.statusCode !== 200) {
      res.resume();
      throw new Error(`the server answered ${res.statusCode}`);
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      res.destroy();
      throw new Error(`larger than ${options.maxBytes} bytes`);
    }
    let size = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        done(size > options.maxBytes ? new Error(`larger than ${options.maxBytes} bytes`) : null, chunk);
      },
    });
    try {
      await pipeline(res, cap, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    } catch (err) {
      await rm(target, { force: true });
      throw err;
    }
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    return { size, mimeType: type || null };
  }
}
