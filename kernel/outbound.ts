/**
 * Requests the server makes on a user's behalf (importer downloads, content-sync channels, webhooks):
 * the one guard against server-side request forgery. Loopback, private, link-local, unique-local,
 * CGNAT, multicast and reserved addresses are refused unless the operator switch
 * `CMS_OUTBOUND_ALLOW_PRIVATE=true` (config `outbound.allowPrivate`) allows them (tests, intranets).
 *
 * The check is made twice: when a URL is accepted (`checkOutboundUrl`: the literal address or every
 * address its name resolves to) and when a connection is opened (`guardedFetch` pins the address with
 * a `lookup` on its agent, so a name re-pointed inside after the first check, DNS rebinding, is refused
 * at connect time). Alternative IPv4 notations (`0x7f000001`, `2130706433`, `127.1`) are normalised by
 * the WHATWG URL parser before the check, so the guard sees what the socket connects to.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

/** Thrown (or given to a connection's error) when a URL or a resolved address is internal. Callers map it to their coded error. */
export class OutboundAddressError extends Error {
  override readonly name = 'OutboundAddressError';
  constructor(
    /** What is refused, for the message: the host as written, never a body. */
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host} ${reason}; requests on a user's behalf are refused there (CMS_OUTBOUND_ALLOW_PRIVATE)`);
  }
}

const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

/** Whether an address is internal (IPv4-mapped and IPv4-compatible IPv6 addresses are judged as their IPv4 address; not an address: internal). */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return INTERNAL.check(mapped, 'ipv4');
  const family = isIP(bare);
  if (family === 6) {
    // ::ffff:7f00:1 (the hex form of a mapped address) is 127.0.0.1.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
    if (hex) {
      const hi = parseInt(hex[1]!, 16);
      const lo = parseInt(hex[2]!, 16);
      return INTERNAL.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
  }
  return family === 0 ? true : INTERNAL.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}

/** A DNS lookup that drops internal addresses (unless allowed) and fails when none is left: pins what the socket connects to. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return (callback as (e: Error) => void)(err);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isInternalAddress(a.address));
      if (!allowed.length) return (callback as (e: Error) => void)(new OutboundAddressError(hostname, 'resolves to an internal address'));
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      (callback as (e: null, a: string, f: number) => void)(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

const resolveAll = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * Checks a URL before it is stored or used: http or https, and (unless allowPrivate) a host that is
 * not an internal address and whose every resolved address is public. Throws OutboundAddressError for
 * an internal one; a name that does not resolve passes (the connection fails later, guarded again).
 */
export async function checkOutboundUrl(raw: string | URL, allowPrivate: boolean): Promise<void> {
  const url = typeof raw === 'string' ? new URL(raw) : raw;
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isInternalAddress(host)) throw new OutboundAddressError(url.host, 'is an internal address');
    return;
  }
  if (/^localhost$|\.localhost$/i.test(host.replace(/\.$/, ''))) throw new OutboundAddressError(url.host, 'is a loopback name');
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return;
  }
  if (addresses.some((a) => isInternalAddress(a.address))) throw new OutboundAddressError(url.host, 'resolves to an internal address');
}

const agents = new Map<string, HttpAgent>();
/** One keep-alive agent per protocol and switch position, whose sockets are all opened through the guarded lookup. */
function agentFor(protocol: 'http:' | 'https:', allowPrivate: boolean): HttpAgent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, lookup: guardedLookup(allowPrivate) };
    agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * fetch() through the guard: the literal host is checked first, the resolved address when the socket
 * connects (a refused one fails with OutboundAddressError). Redirects are not followed (a 3xx is
 * answered as it is). An abort of `signal` rejects with the signal's reason (also while the body
 * streams). Network failures reject with Node's error (its `code`, e.g. ECONNREFUSED).
 */
export async function guardedFetch(raw: string | URL, init: GuardedRequestInit, allowPrivate: boolean): Promise<Response> {
  return guardedRequest(raw, init, allowPrivate, (incoming, status) => {
    const out = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    if (NULL_BODY.has(status)) {
      incoming.resume();
      return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers: out });
    }
    return new Response(Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>, {
      status,
      statusText: incoming.statusMessage ?? '',
      headers: out,
    });
  });
}

/**
 * As guardedFetch, for a caller that needs only the answer's status (webhook deliveries): `status` as soon as the
 * answer's head arrived, and `done`, which resolves once its body has been read and dropped or cut (by an abort of
 * `signal` too; it never rejects). No Headers, web stream or Response is made: on a delivery they cost more than
 * sending it.
 */
export async function guardedStatus(
  raw: string | URL,
  init: GuardedRequestInit,
  allowPrivate: boolean,
): Promise<{ status: number; done: Promise<void> }> {
  return guardedRequest(raw, init, allowPrivate, (incoming, status) => {
    const done = new Promise<void>((resolve) => incoming.once('close', () => resolve()));
    incoming.on('error', () => undefined);
    incoming.resume();
    return { status, done };
  });
}

/**
 * The request of guardedFetch and guardedStatus: the literal host checked, the connection opened through the guarded
 * agent, the signal's abort destroying both sides; `answer` turns a response with a status of 200-599 into the result.
 */
async function guardedRequest<T>(
  raw: string | URL,
  init: GuardedRequestInit,
  allowPrivate: boolean,
  answer: (incoming: IncomingMessage, status: number) => T,
): Promise<T> {
  const url = typeof raw === 'string' ? new URL(raw) : raw;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${url.protocol} URLs are not requested`);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) && isInternalAddress(literal)) throw new OutboundAddressError(url.host, 'is an internal address');
  const signal = init.signal;
  signal?.throwIfAborted();
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  return new Promise<T>((resolve, reject) => {
    let res: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = signal!.reason as Error;
      req.destroy(reason);
      res?.destroy(reason);
      reject(reason);
    };
    const req = request(
      url,
      { method: init.method ?? 'GET', headers, agent: agentFor(url.protocol as 'http:', allowPrivate) },
      (incoming) => {
        res = incoming;
        const status = incoming.statusCode ?? 0;
        incoming.once('close', () => signal?.removeEventListener('abort', onAbort));
        if (status < 200 || status > 599) {
          incoming.destroy();
          reject(new Error(`unexpected HTTP status ${status}`));
          return;
        }
        resolve(answer(incoming, status));
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : err);
    });
    req.end(body);
  });
}
