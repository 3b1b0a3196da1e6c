/**
 * A worker thread of bench/graphql-subscribers.ts: opens `count` graphql-transport-ws connections (a
 * minimal client of the protocol over `ws`: connection_init with the token, one `subscribe`, pong to
 * pings), at most CONCURRENT connecting at once, and records when each subscriber receives each event.
 * Events are recognised by their title (`<prefix><index>`); receipt times are epoch milliseconds
 * (performance.timeOrigin + now, comparable across threads). Counts per event go to a shared Int32Array
 * so the main thread sees progress without messages; the receipt times are posted once, on 'report'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

export interface SubscriberClientData {
  url: string;
  token: string;
  count: number;
  query: string;
  titlePrefix: string;
  events: number;
  /** Int32Array over a SharedArrayBuffer: [0] connected and subscribed, [1] failed, [2 + i] deliveries of event i. */
  counters: SharedArrayBuffer;
}

const CONCURRENT = 32;
const data = workerData as SubscriberClientData;
const counters = new Int32Array(data.counters);
/** Receipt time of event e at subscriber s: times[s * events + e] (0: not received). */
const times = new Float64Array(data.count * data.events);
const sockets: WebSocket[] = [];
const now = () => performance.timeOrigin + performance.now();

function open(index: number): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(data.url, 'graphql-transport-ws', { perMessageDeflate: false });
    sockets.push(ws);
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      Atomics.add(counters, ok ? 0 : 1, 1);
      resolve();
    };
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${data.token}` } })));
    ws.on('message', (raw: Buffer) => {
      const at = now();
      const message = JSON.parse(raw.toString()) as { type: string; payload?: { data?: Record<string, { title?: string }> } };
      switch (message.type) {
        case 'connection_ack':
          ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: data.query } }));
          done(true);
          return;
        case 'ping':
          ws.send('{"type":"pong"}');
          return;
        case 'next': {
          const title = Object.values(message.payload?.data ?? {})[0]?.title ?? '';
          if (!title.startsWith(data.titlePrefix)) return;
          const e = Number(title.slice(data.titlePrefix.length));
          if (!(e >= 0 && e < data.events) || times[index * data.events + e]) return;
          times[index * data.events + e] = at;
          Atomics.add(counters, 2 + e, 1);
          return;
        }
        default:
          return; // error / complete: the subscriber simply receives nothing more (counted as missing)
      }
    });
    ws.on('error', () => done(false));
    ws.on('close', () => done(false));
  });
}

async function connectAll(): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENT, data.count) }, async () => {
      while (next < data.count) await open(next++);
    }),
  );
}

parentPort!.on('message', (msg: string) => {
  if (msg === 'report') {
    parentPort!.postMessage({ times }, [times.buffer]);
    return;
  }
  if (msg === 'close') {
    for (const ws of sockets) ws.terminate();
    parentPort!.postMessage({ closed: true });
  }
});

await connectAll();
parentPort!.postMessage({ connected: true });
