import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CmsConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Registries } from '../registries/index.js';
import { capConnectionsPerIp } from './connection-cap.js';
import { normalisePath } from './rate-limit.js';

/** What the kernel's HTTP server needs besides the Koa callback. */
export interface HttpServerOptions {
  http: CmsConfig['http'];
  logger: Logger;
  registries: Registries;
  /** True once the instance serves (READY): WebSocket upgrades before that answer 503. */
  isServing: () => boolean;
}

/**
 * The kernel's HTTP server: Node's timeouts for half-sent requests, the per-address connection cap
 * and WebSocket upgrades routed to the websockets registry.
 */
export function createHttpServer(callback: RequestListener, options: HttpServerOptions): Server {
  const { headersTimeoutMs, requestTimeoutMs } = options.http;
  // Half-sent requests: headers within headersTimeoutMs, the whole request within requestTimeoutMs
  // (Node checks both every connectionsCheckingInterval; its default of 30 s would let them run over).
  const server = createServer(
    {
      headersTimeout: requestTimeoutMs > 0 ? Math.min(headersTimeoutMs, requestTimeoutMs) : headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
    callback,
  );
  server.keepAliveTimeout = 5000;
  capConnections(server, options);
  server.on('upgrade', (req, socket, head) => upgrade(req, socket, head, options));
  return server;
}

/** Listens on host:port; rejects on the first listen error (port taken, no permission). */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The per-address connection cap (http.maxConnectionsPerIp; unset: 64, or none behind a trusted proxy). */
function capConnections(server: Server, { http, logger }: HttpServerOptions): void {
  const { maxConnectionsPerIp, trustProxy, connectionCapLoopback } = http;
  const maxPerIp = maxConnectionsPerIp ?? (trustProxy ? 0 : 64);
  const warned = new Map<string, number>();
  capConnectionsPerIp(server, {
    maxPerIp,
    includeLoopback: connectionCapLoopback,
    onRefused: (address) => {
      // One line per address a minute: a flood does not flood the log too.
      const now = Date.now();
      if (now - (warned.get(address) ?? 0) < 60_000) return;
      if (warned.size >= 1000) warned.clear();
      warned.set(address, now);
      logger.warn({ address, maxPerIp }, 'connection refused: too many open connections from this address');
    },
  });
}

/**
 * WebSocket upgrades go to the endpoint registered for the path (the websockets registry), once the
 * instance is serving; otherwise the socket is answered 503 or 404 and closed.
 */
function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, { registries, logger, isServing }: HttpServerOptions): void {
  const refuse = (status: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };
  socket.on('error', () => socket.destroy());
  if (!isServing()) return refuse('503 Service Unavailable');
  let path: string;
  try {
    path = normalisePath(new URL(req.url ?? '/', 'http://localhost').pathname);
  } catch {
    return refuse('400 Bad Request');
  }
  const endpoint = registries.websockets.list().find((e) => normalisePath(e.path) === path);
  if (!endpoint) return refuse('404 Not Found');
  try {
    endpoint.handleUpgrade(req, socket, head);
  } catch (err) {
    logger.error({ err, endpoint: endpoint.id }, 'websocket upgrade failed');
    refuse('500 Internal Server Error');
  }
}

/**
 * Stops accepting, closes idle keep-alive connections at once and every connection after
 * shutdownTimeoutMs; resolves when the server has closed.
 */
export function closeHttpServer(server: Server | null, shutdownTimeoutMs: number): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
    force.unref();
    // Keep-alive connections that go idle after their in-flight response are closed at once too.
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    idle.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}
