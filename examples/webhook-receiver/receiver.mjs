// A webhook receiver for the CMS in plain Node (node:http, node:crypto; no framework, no dependencies).
// It checks X-CMS-Signature over the raw body with a constant-time compare, refuses stale timestamps (replays),
// drops repeats by X-CMS-Delivery (retries and redeliveries keep the id), answers 204 at once and then prints the
// event. With EVENTS_FILE it appends each new event to that file (JSON lines) before answering, and reads the ids
// already there at start, so a restart still drops repeats. See README.md; test/integration/webhook-receiver-example.test.ts
// runs it against a kernel.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** How far a delivery's `t` may be from our clock, in seconds (a replayed old delivery is refused). */
export const TOLERANCE_SECONDS = 300;

/** True when `header` (X-CMS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">) signs `rawBody`. */
export function verifySignature(secret, header, rawBody, nowSeconds = Date.now() / 1000) {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((p) => p.trim().split('=', 2)),
  );
  const t = Number(parts.t);
  if (!/^\d+$/.test(parts.t ?? '') || Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return false; // stale: a replay
  const expected = Buffer.from(createHmac('sha256', secret).update(`${parts.t}.`).update(rawBody).digest('hex'));
  const given = Buffer.from(String(parts.v1 ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected); // constant time
}

/** The largest body read (the CMS sends entries as JSON; a bigger body is refused with 413). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Delivery ids kept in memory to drop repeats; the oldest are forgotten first. */
export const MAX_SEEN = 100000;

/** The delivery ids already stored in `eventsFile` (one JSON object a line), oldest first. */
function storedIds(eventsFile) {
  if (!eventsFile || !existsSync(eventsFile)) return [];
  const lines = readFileSync(eventsFile, 'utf8').split('\n').filter(Boolean);
  return lines.slice(-MAX_SEEN).map((line) => JSON.parse(line).delivery);
}

/**
 * The receiver: an http.Server (not listening yet). `secret` is the webhook's `whsec_...` secret, `eventsFile`
 * an optional JSON-lines file, `onEvent(event)` what is done with each new event after the answer (default: print).
 */
export function createReceiver({ secret, eventsFile, onEvent = printEvent }) {
  if (!secret) throw new Error('The webhook secret is required (CMS_WEBHOOK_SECRET)');
  const seen = new Set(storedIds(eventsFile));
  const answer = (res, status, text = '') => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);

  return createServer((req, res) => {
    if (req.method !== 'POST') return answer(res, 405, 'POST only\n');
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        answer(res, 413, 'Too large\n');
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks); // the raw bytes: parse JSON only after the signature is checked
      if (!verifySignature(secret, req.headers['x-cms-signature'], raw)) return answer(res, 401, 'Bad signature\n');
      const delivery = String(req.headers['x-cms-delivery'] ?? '');
      if (!delivery) return answer(res, 400, 'No X-CMS-Delivery\n');
      if (seen.has(delivery)) return answer(res, 200, 'Already received\n'); // a retry or redelivery: 2xx, no work
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(res, 400, 'Not JSON\n');
      }
      const event = { delivery, event: body.event, createdAt: body.createdAt, tenantId: body.tenantId, data: body.data };
      if (eventsFile) appendFileSync(eventsFile, JSON.stringify(event) + '\n'); // stored before the 2xx
      seen.add(delivery);
      if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value);
      answer(res, 204); // answer well within the CMS's 10 s; the work happens after
      setImmediate(() => onEvent(event));
    });
  });
}

/** One line per event: the event, the collection and entry id when there are any, the delivery id. */
export function printEvent({ delivery, event, data }) {
  const about = [data?.collection, data?.entry?._id].filter(Boolean).join(' ');
  console.log(`${event}${about ? ` ${about}` : ''} (delivery ${delivery})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT ?? 4000);
  const host = process.env.HOST ?? '127.0.0.1';
  let server;
  try {
    server = createReceiver({ secret: process.env.CMS_WEBHOOK_SECRET, eventsFile: process.env.EVENTS_FILE });
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  server.listen(port, host, () => console.log(`Listening on http://${host}:${server.address().port}/`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
  process.on('SIGINT', () => server.close(() => process.exit(0)));
}
