/**
 * GraphQL subscribers case of `npm run bench` (called from bench/run.ts, or alone with
 * `node dist/bench/graphql-subscribers.js`): the kernel runs in a child process; the bench opens
 * BENCH_SUBSCRIBERS (default 10,000) graphql-transport-ws connections to it, spread over
 * BENCH_SUBSCRIBER_THREADS (default 4) client worker threads (bench/subscriber-client.ts), each
 * subscribing to `postAdded { _id title status }` with a website token, then creates
 * BENCH_SUBSCRIBER_EVENTS (default 10) posts through REST, one at a time (the next once every subscriber
 * has the previous one or 15 s passed, then 200 ms of quiet), and measures for every subscriber the delay
 * from the create request's send time to the receipt of its event: p50, p99 and max, delivered against
 * expected, the server's CPU time per event and its RSS (from /proc). The same run first measures 1,000
 * subscribers, the baseline of the ratio. Every step is bounded in time.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DIST_ROOT } from '../kernel/version.js';
import { signIn, startChild, stop } from './harness.js';
import { benchKernelEnv } from './seed-posts.js';
import type { SubscriberClientData } from './subscriber-client.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10000);
const BASELINE = Math.min(1000, SUBSCRIBERS);
const THREADS = Math.max(1, Number(process.env.BENCH_SUBSCRIBER_THREADS ?? 4));
const EVENTS = Math.max(1, Number(process.env.BENCH_SUBSCRIBER_EVENTS ?? 10));
const CONNECT_MS = 180_000;
const EVENT_MS = 15_000;
const QUERY = 'subscription { postAdded { _id title status } }';
const MiB = 1024 * 1024;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The child's RSS (bytes) and CPU time (ms, user + system, and system alone) from /proc. */
function usage(pid: number): { rss: number; cpuMs: number; sysMs: number } {
  try {
    const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in ticks of 10 ms.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { rss, cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, sysMs: Number(fields[12]) * 10 };
  } catch {
    return { rss: 0, cpuMs: 0, sysMs: 0 };
  }
}

async function subscriptionsOf(url: string): Promise<number> {
  const res = await fetch(`${url}/api/system/health`);
  const body = (await res.json()) as { data?: { checks?: { graphql?: { subscriptions?: number } } } };
  return body.data?.checks?.graphql?.subscriptions ?? -1;
}

async function until(what: string, ms: number, check: () => boolean | Promise<boolean>, every = 100): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      console.log(`  (gave up waiting for ${what} after ${ms / 1000} s)`);
      return false;
    }
    await sleep(every);
  }
  return true;
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a').padStart(6);

export interface SubscriberFigures {
  subscribers: number;
  connected: number;
  connectSeconds: number;
  delivered: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  createP50: number;
  cpuMsPerEvent: number;
  /** Of which in the kernel (system time: on loopback, a socket write also does the receiving side's TCP work). */
  sysMsPerEvent: number;
  rssBefore: number;
  rssPeak: number;
  /** When the events were sent and delivered (epoch ms): the window of a CPU profile to read. */
  window: [number, number];
}

/** One round: `count` subscribers, EVENTS posts created, the delays. */
async function round(kernel: { url: string; pid: number }, cookie: string, token: string, count: number): Promise<SubscriberFigures> {
  const prefix = `subs-${count}-${Date.now()}-`;
  const counters = new SharedArrayBuffer(4 * (2 + EVENTS));
  const counts = new Int32Array(counters);
  const wsUrl = `${kernel.url.replace(/^http/, 'ws')}/api/graphql`;
  const threads = Math.min(THREADS, count);
  const workers = Array.from({ length: threads }, (_, i) => {
    const share = Math.floor(count / threads) + (i < count % threads ? 1 : 0);
    const data: SubscriberClientData = { url: wsUrl, token, count: share, query: QUERY, titlePrefix: prefix, events: EVENTS, counters };
    return new Worker(join(DIST_ROOT, 'bench', 'subscriber-client.js'), { workerData: data });
  });
  const replies = workers.map((w) => {
    const queue: Array<(m: any) => void> = [];
    w.on('message', (m) => queue.shift()?.(m));
    w.on('error', (err) => console.log(`  client thread failed: ${err.message}`));
    return () => new Promise<any>((resolve) => queue.push(resolve));
  });
  try {
    const startedAt = Date.now();
    const connectedMsgs = replies.map((next) => next());
    await until('the connections', CONNECT_MS, () => counts[0]! + counts[1]! >= count, 200);
    await Promise.race([Promise.all(connectedMsgs), sleep(5000)]);
    const connected = counts[0]!;
    // Subscribed on the server (the client does not hear back for a subscribe that worked).
    await until('the server to count the subscriptions', 60_000, async () => (await subscriptionsOf(kernel.url)) >= connected, 250);
    const connectSeconds = (Date.now() - startedAt) / 1000;
    await sleep(500);

    const sentAt: number[] = [];
    const createMs: number[] = [];
    const firstSent = now();
    const before = usage(kernel.pid);
    let rssPeak = before.rss;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, usage(kernel.pid).rss)), 50);
    for (let e = 0; e < EVENTS; e++) {
      sentAt[e] = now();
      const res = await fetch(`${kernel.url}/api/collections/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ title: `${prefix}${e}`, status: 'published' }),
      });
      createMs.push(now() - sentAt[e]!);
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      await until(`event ${e} at every subscriber`, EVENT_MS, () => counts[2 + e]! >= connected, 10);
      await sleep(200);
    }
    clearInterval(sampler);
    const after = usage(kernel.pid);
    const window: [number, number] = [firstSent, now()];

    const delays: number[] = [];
    for (const [i, w] of workers.entries()) {
      const reply = replies[i]!();
      w.postMessage('report');
      const { times } = (await Promise.race([reply, sleep(30_000).then(() => ({ times: new Float64Array(0) }))])) as {
        times: Float64Array;
      };
      for (let k = 0; k < times.length; k++) if (times[k]) delays.push(times[k]! - sentAt[k % EVENTS]!);
    }
    delays.sort((a, b) => a - b);
    createMs.sort((a, b) => a - b);
    return {
      subscribers: count,
      connected,
      connectSeconds,
      delivered: delays.length,
      expected: connected * EVENTS,
      p50: pct(delays, 50),
      p99: pct(delays, 99),
      max: delays[delays.length - 1] ?? NaN,
      createP50: pct(createMs, 50),
      // Less the 200 ms pauses, which cost nothing; the wait for every receipt is counted (the server is delivering then).
      cpuMsPerEvent: (after.cpuMs - before.cpuMs) / EVENTS,
      sysMsPerEvent: (after.sysMs - before.sysMs) / EVENTS,
      rssBefore: before.rss,
      rssPeak,
      window,
    };
  } finally {
    await Promise.all(
      workers.map(async (w, i) => {
        const closed = replies[i]!();
        w.postMessage('close');
        await Promise.race([closed, sleep(5000)]);
        await w.terminate();
      }),
    );
    await until('the subscriptions to end', 30_000, async () => (await subscriptionsOf(kernel.url)) === 0, 250);
  }
}

function print(f: SubscriberFigures): void {
  console.log(
    `${String(f.subscribers).padStart(6)} subscribers  connected ${f.connected} in ${f.connectSeconds.toFixed(1)} s   delivered ${f.delivered}/${f.expected}` +
      `   delay p50 ${ms(f.p50)} ms  p99 ${ms(f.p99)} ms  max ${ms(f.max)} ms   (create answered p50 ${f.createP50.toFixed(0)} ms)` +
      `   server CPU ${f.cpuMsPerEvent.toFixed(0)} ms/event (system ${f.sysMsPerEvent.toFixed(0)}), RSS ${Math.round(f.rssBefore / MiB)} -> peak ${Math.round(f.rssPeak / MiB)} MiB`,
  );
}

export async function runGraphqlSubscribersBench(): Promise<{ baseline: SubscriberFigures; full: SubscriberFigures }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-subs-'));
  console.log(
    `\n## GraphQL subscribers: postAdded over graphql-transport-ws (website token), ${EVENTS} posts created through REST, ${THREADS} client threads`,
  );
  const spawnedAt = now();
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], benchKernelEnv(dataDir), dataDir);
  try {
    const cookie = await signIn(kernel.url);
    const tokenRes = await fetch(`${kernel.url}/api/website-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'subscribers bench' }),
    });
    if (tokenRes.status !== 201) throw new Error(`website token: ${tokenRes.status} ${await tokenRes.text()}`);
    const token = ((await tokenRes.json()) as { data: { token: string } }).data.token;
    const target = { url: kernel.url, pid: kernel.child.pid! };
    const baseline = await round(target, cookie, token, BASELINE);
    print(baseline);
    const full = SUBSCRIBERS === BASELINE ? baseline : await round(target, cookie, token, SUBSCRIBERS);
    if (full !== baseline) print(full);
    if (/--cpu-prof/.test(process.env.BENCH_CHILD_NODE_ARGS ?? '')) {
      const since = (f: SubscriberFigures) => f.window.map((t) => ((t - spawnedAt) / 1000).toFixed(1)).join('-');
      console.log(
        `profile windows (CPU_TOP_WINDOWS for cpu-top.js): ${BASELINE} subscribers ${since(baseline)}, ${SUBSCRIBERS} ${since(full)}`,
      );
    }
    console.log(
      `ratio ${SUBSCRIBERS}/${BASELINE} subscribers: delay p99 ${(full.p99 / baseline.p99).toFixed(2)}, server CPU per event ${(full.cpuMsPerEvent / Math.max(1, baseline.cpuMsPerEvent)).toFixed(2)}`,
    );
    return { baseline, full };
  } finally {
    await stop(kernel.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runGraphqlSubscribersBench();
