/**
 * The edges of a GraphQL WebSocket connection: refusing an upgrade, which cookies and token an upgrade
 * counts, the maintenance gate, and the `next` messages a subscriber's sink sends (graphql-sockets.ts
 * holds the connections themselves).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { AppError, type Identity } from '../../kernel/sdk.js';
import type { MaintenanceGate } from '../maintenance/public.js';
import type { SharedResult, Sink } from './subscription-fanout.js';

const CLOSE_BRACE = Buffer.from('}');

/**
 * A graphql-transport-ws subscriber's sink: the `next` message graphql-ws would send, built from the
 * group's one JSON text with this subscriber's id, through the same socket (so it stays in order with
 * the library's own messages). A client that stops reading misses events once its socket holds
 * `maxQueued` of them unsent, as a slow subscriber's queue drops them.
 */
export function nextMessageSink(socket: WebSocket, id: string, maxQueued: number): Sink {
  const prefix = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  return (result: SharedResult) => {
    if (socket.readyState !== socket.OPEN) return;
    const json = result.json;
    const size = prefix.length + json.length + 1;
    if (socket.bufferedAmount > maxQueued * size) return;
    socket.send(Buffer.concat([prefix, json, CLOSE_BRACE], size), { binary: false });
  };
}

/** A WebSocket close reason is at most 123 bytes. */
export const closeReason = (text: string) => Buffer.from(text).subarray(0, 120).toString();

export function refuse(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const text = `${message}\n`;
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** Maintenance mode refuses upgrades as it refuses HTTP requests (the maintenance plugin's gate, when enabled). */
export function maintenanceRefusal(gate: MaintenanceGate | undefined, identity: Identity): AppError | null {
  try {
    gate?.assertOpen(identity, 'graphql websocket');
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

/**
 * The session cookie counts only for upgrades from this server's own origin, or without an Origin
 * (not a browser): another site's page must not open a subscription with the visitor's cookie
 * (cross-site WebSocket hijacking). A cross-origin client authenticates with a token instead.
 */
export function withoutForeignCookies(req: IncomingMessage, trustProxy: boolean): IncomingMessage {
  const origin = req.headers.origin;
  if (!origin || !req.headers.cookie) return req;
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // not a URL: foreign
  }
  const own = [
    req.headers.host,
    trustProxy
      ? String(req.headers['x-forwarded-host'] ?? '')
          .split(',')[0]!
          .trim()
      : undefined,
  ];
  if (host && own.includes(host)) return req;
  const headers = { ...req.headers };
  delete headers.cookie;
  return Object.assign(Object.create(req) as IncomingMessage, { headers });
}

/** connectionParams.authorization | Authorization ("Bearer <token>" or the bare token) | token. */
export function authorizationFrom(params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const p = params as Record<string, unknown>;
  const raw = [p.authorization, p.Authorization, p.token].find((v) => typeof v === 'string' && v.trim());
  if (typeof raw !== 'string') return undefined;
  return /^Bearer\s/i.test(raw.trim()) ? raw.trim() : `Bearer ${raw.trim()}`;
}
