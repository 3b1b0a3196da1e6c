import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its headers and raw body. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP receiver (node:http on 127.0.0.1) for webhook deliveries; answers the queued statuses, then `fallback`. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses answered to the next requests, in order. */
  answers: number[];
  fallback: number;
  /** Resolves when at least `n` requests arrived (rejects after `withinMs`). */
  waitFor(n: number, withinMs?: number): Promise<Received[]>;
  close(): Promise<void>;
  /** Stops listening (connections are refused) until up(). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    answers: [],
    fallback: 200,
    async waitFor(n, withinMs = 15000) {
      const until = Date.now() + withinMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`the receiver got ${received.length} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
    down: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
  let port = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = receiver.answers.shift() ?? receiver.fallback;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${port}/hook`;
  return receiver;
}

/** A receiver's check of X-CMS-Signature (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`), as the README shows. */
export function signatureValid(secret: string, header: string | undefined, body: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex'));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
