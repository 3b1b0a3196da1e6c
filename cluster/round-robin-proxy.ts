import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';

export interface ProxyUpstream {
  url: string;
  /** Last readiness answer (GET readinessPath): only ready upstreams get traffic while any is. */
  ready: boolean;
}

export interface ProxyStats {
  /** Requests answered through an upstream (any status). */
  proxied: number;
  /** Tries moved to another upstream after a connection error. */
  retries: number;
  /** Requests the proxy itself answered 502 (no upstream could take them). */
  failed: number;
  /** WebSocket upgrades forwarded. */
  upgrades: number;
}

export interface RoundRobinProxy {
  url: string;
  port: number;
  upstreams: ProxyUpstream[];
  stats: ProxyStats;
  /** Replaces the upstream list (URLs); readiness is checked again at once. */
  setUpstreams(urls: string[]): void;
  /** Checks every upstream's readiness now (the interval does it too). */
  checkNow(): Promise<void>;
  close(): Promise<void>;
}

export interface ProxyOptions {
  upstreams: string[];
  /** 0 picks a free port. */
  port?: number;
  /** Readiness probe path on each upstream. */
  readinessPath?: string;
  /** How often readiness is polled (ms). */
  checkIntervalMs?: number;
  /** Request bodies up to this size are buffered so a try refused by one upstream can go to the next. */
  retryBodyLimit?: number;
  /** Keep connections to upstreams open between requests (off: each request opens one, so no request races an upstream's close). */
  upstreamKeepAlive?: boolean;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Errors raised before the upstream could have received the request: safe to try another one for any method. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'EADDRNOTAVAIL']);
/** Errors where the upstream may have received the request: retried only for idempotent methods. */
const MAYBE_SENT = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * The cluster harness's reverse proxy (http-proxy-3): round robin over upstreams, no stickiness,
 * WebSocket upgrades proxied too. It polls each upstream's readiness probe and sends traffic only to
 * ready ones (as a load balancer with active health checks does), and tries the next upstream when a
 * connection is refused (any method; the body is buffered) or reset (idempotent methods only), so a
 * rolling restart loses no request. X-Forwarded-For/-Proto/-Host are set (instances trust one hop).
 */
export async function startRoundRobinProxy(options: ProxyOptions): Promise<RoundRobinProxy> {
  const readinessPath = options.readinessPath ?? '/api/health/ready';
  const retryBodyLimit = options.retryBodyLimit ?? 8 * 1024 * 1024;
  const agent = new Agent({ keepAlive: options.upstreamKeepAlive ?? false, maxSockets: 256 });
  const proxy = createProxyServer({ xfwd: true, agent, ws: true });
  // Errors without a callback (a WebSocket after the upgrade) must not crash the process.
  proxy.on('error', () => undefined);
  const upstreams: ProxyUpstream[] = options.upstreams.map((url) => ({ url, ready: false }));
  const stats: ProxyStats = { proxied: 0, retries: 0, failed: 0, upgrades: 0 };
  let next = 0;

  /** Upstreams in the order to try: ready ones round robin, then the others (one may be ready unnoticed). */
  const order = (): ProxyUpstream[] => {
    const list = [...upstreams];
    const start = next++ % Math.max(1, list.length);
    const rotated = [...list.slice(start), ...list.slice(0, start)];
    return [...rotated.filter((u) => u.ready), ...rotated.filter((u) => !u.ready)];
  };

  const check = async (u: ProxyUpstream) => {
    try {
      const res = await fetch(`${u.url}${readinessPath}`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      u.ready = res.status === 200;
    } catch {
      u.ready = false;
    }
  };
  const checkNow = async () => {
    await Promise.all(upstreams.map(check));
  };
  const timer = setInterval(() => void checkNow(), options.checkIntervalMs ?? 200);
  timer.unref();
  await checkNow();

  const readBody = async (req: IncomingMessage): Promise<Buffer | null> => {
    const length = Number(req.headers['content-length'] ?? 0);
    const chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? ''));
    if (chunked || length > retryBodyLimit) return null; // streamed once, no retry
    if (!length) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  const fail = (res: ServerResponse, message: string) => {
    stats.failed++;
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'application/json', 'x-api-version': '1' });
    res.end(JSON.stringify({ success: false, error: 'BAD_GATEWAY', message }));
  };

  const server: Server = createServer(async (req, res) => {
    let body: Buffer | null;
    try {
      body = await readBody(req);
    } catch {
      return void res.destroy();
    }
    const candidates = order();
    if (!candidates.length) return fail(res, 'No upstream is configured');
    const attempt = (i: number) => {
      const target = candidates[i]!;
      proxy.web(req, res, { target: target.url, ...(body ? { buffer: Readable.from([body]) } : {}) }, (err) => {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        const retryable =
          body !== null && !res.headersSent && (NOT_SENT.has(code) || (MAYBE_SENT.has(code) && IDEMPOTENT.has(req.method ?? '')));
        if (NOT_SENT.has(code)) target.ready = false;
        if (retryable && i + 1 < candidates.length) {
          stats.retries++;
          return attempt(i + 1);
        }
        fail(res, `Upstream ${target.url} failed: ${code || (err as Error).message}`);
      });
    };
    res.once('finish', () => stats.proxied++);
    attempt(0);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = order()[0];
    if (!target) return void socket.destroy();
    stats.upgrades++;
    proxy.ws(req, socket, head, { target: target.url }, () => socket.destroy());
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    upstreams,
    stats,
    setUpstreams(urls) {
      upstreams.splice(0, upstreams.length, ...urls.map((url) => ({ url, ready: false })));
      void checkNow();
    },
    checkNow,
    async close() {
      clearInterval(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      proxy.close();
      agent.destroy();
    },
  };
}
