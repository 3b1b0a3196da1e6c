/**
 * The loopback receiver of the webhooks case (bench/webhooks.ts), in its own process: the receiving system is
 * outside the CMS, so its CPU time is not the kernel's. Prints "listening on http://..." like the other bench
 * children. Each delivery (POST) is answered 200; its delay is the arrival time less the body's `createdAt`, once per
 * X-CMS-Delivery id (a repeat is counted). `GET /stats` answers `{ arrived, repeats, delays }` (delays sorted, ms),
 * `GET /count` the same without the delays.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const delays = new Map<string, number>();
let repeats = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/stats' || req.url === '/count')) {
    const sorted = req.url === '/stats' ? [...delays.values()].sort((a, b) => a - b) : undefined;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ arrived: delays.size, repeats, delays: sorted }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const arrived = Date.now();
    const id = String(req.headers['x-cms-delivery'] ?? '');
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
      if (delays.has(id)) repeats++;
      else delays.set(id, arrived - Date.parse(body.createdAt));
    } catch {
      // not a delivery
    }
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
// The kernel's agent keeps its connections open: exit without waiting for them.
process.once('SIGTERM', () => process.exit(0));
