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
/** FIN + text opcode: the first byte of an unfragmented, uncompressed text frame. */
const TEXT_FRAME = 0x81;

/** `parts` as one unmasked WebSocket text frame (RFC 6455 5.2: what ws's Sender writes for a server's message), header included. */
export function textFrame(parts: readonly Buffer[]): Buffer {
  let length = 0;
  for (const p of parts) length += p.length;
  const header = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = TEXT_FRAME;
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUIntBE(length, 4, 6);
  }
  let at = header;
  for (const p of parts) at += p.copy(frame, at);
  return frame;
}

/**
 * A graphql-transport-ws subscriber's sink: the `next` message graphql-ws would send, built from the
 * group's one JSON text with this subscriber's id, on the same socket (so it stays in order with the
 * library's own messages). A client that stops reading misses events once its socket holds `maxQueued`
 * of them unsent, as a slow subscriber's queue drops them.
 *
 * `raw` is the TCP socket under `socket` (the one the upgrade came on). While the connection has no
 * extension (the server never negotiates permessage-deflate), ws's Sender writes every message to it at
 * once, as a header and the payload in one writev; here the whole frame is one buffer in one write, made
 * once per event for every subscriber of the group using the same id (SharedResult.frame). Without `raw`
 * (or with an extension), the message goes through ws.send.
 */
export function nextMessageSink(socket: WebSocket, raw: Duplex | null, id: string, maxQueued: number): Sink {
  const prefix = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  const direct = raw !== null && socket.extensions === '';
  return (result: SharedResult) => {
    if (socket.readyState !== socket.OPEN) return;
    if (direct) {
      if (raw.destroyed || !raw.writable) return;
      const frame = result.frame(id, () => textFrame([prefix, result.json, CLOSE_BRACE]));
      if (raw.writableLength > maxQueued * frame.length) return;
      raw.write(frame);
      return;
    }
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
