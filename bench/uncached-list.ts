/**
 * The uncached list of bench case 2 ("list page 7, not cached"): GET /api/collections/posts?limit=20&page=7 with a
 * filter that matches every post but differs on each request (`filter={"title":{"ne":"uncached-<n>"}}`), so the
 * list cache never answers and every request reads SQLite (the count and the page), builds the entries and
 * serialises them (and stores the list, as any miss does). Bounded like every load (BENCH_SECONDS).
 */
import autocannon from 'autocannon';
import { CONNECTIONS, SECONDS, type Figures } from './harness.js';

const MiB = 1024 * 1024;
let n = 0;

export const uncachedListPath = () =>
  `/api/collections/posts?limit=20&page=7&filter=${encodeURIComponent(JSON.stringify({ title: { ne: `uncached-${process.pid}-${n++}` } }))}`;

export async function loadUncachedList(url: string, headers: Record<string, string>, connections = CONNECTIONS): Promise<Figures> {
  const r = await autocannon({
    url,
    connections,
    duration: SECONDS,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: uncachedListPath() }) }],
  });
  return {
    rps: Math.round(r.requests.average),
    p99: r.latency.p99,
    errors: r.errors + r['4xx'] + r['5xx'],
    mbps: Math.round((r.throughput.average / MiB) * 10) / 10,
  };
}
