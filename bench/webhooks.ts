/**
 * Webhooks case of `npm run bench` (group `webhooks`, case 21; or `node dist/bench/webhooks.js` after a build):
 * entry writes (POST /api/collections/hooked, 10 connections, SQLite) with one enabled webhook subscribed to
 * every event against the same kernel in the same run with that webhook disabled (no delivery is enqueued),
 * alternated twice so drift on a busy machine falls on both sides. After each webhook round the webhook stays
 * enabled until every delivery written so far has arrived at a loopback receiver (bench/webhook-receiver.ts, a child
 * process: an outside system, its CPU time not the kernel's), so
 * the next round starts without a backlog; each must arrive once per X-CMS-Delivery id, and the delay from
 * enqueue (the body's createdAt) to arrival is reported (p50, p99, max). Bounded: BENCH_SECONDS (default 8 s)
 * per round (five rounds with the warm-up), and at most 120 s waiting for the deliveries after each webhook round.
 * The kernel runs in this process with CMS_OUTBOUND_ALLOW_PRIVATE (the receiver is on loopback).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../kernel/config.js';
import { createKernel } from '../kernel/index.js';
import { createLogger } from '../kernel/logger.js';
import { DIST_ROOT } from '../kernel/version.js';
import { SECONDS, line, ratio, signIn, startChild, stop, type Figures } from './harness.js';
import { benchKernelEnv } from './seed-posts.js';

const CONNECTIONS = 10;
const WAIT_MS = 120_000;

/** The loopback receiver (bench/webhook-receiver.ts) in a child process: an outside system, its CPU time not counted here. */
async function receiver() {
  const { child, url } = await startChild([join(DIST_ROOT, 'bench', 'webhook-receiver.js')], {}, tmpdir());
  const stats = async (what: 'count' | 'stats') =>
    (await (await fetch(`${url}/${what}`)).json()) as { arrived: number; repeats: number; delays?: number[] };
  return {
    url: `${url}/hook`,
    arrived: async () => (await stats('count')).arrived,
    stats: () => stats('stats'),
    close: () => stop(child),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export async function runWebhooksBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-webhooks-'));
  const env = { ...benchKernelEnv(dataDir), LOG_LEVEL: 'error', CMS_OUTBOUND_ALLOW_PRIVATE: 'true' };
  const config = loadConfig({ ignoreFile: true, env, overrides: { env: 'production' } });
  const kernel = createKernel({ config, env, logger: createLogger('error') });
  const hook = await receiver();
  try {
    await kernel.start();
    const cookie = await signIn(kernel.url);
    const call = async (method: string, path: string, json?: unknown) => {
      const res = await fetch(`${kernel.url}${path}`, {
        method,
        headers: { cookie, 'content-type': 'application/json' },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: any }).data;
    };
    await call('POST', '/api/collections', { name: 'hooked', fields: [{ name: 'title', type: 'text' }] });
    const events = [
      'on:create',
      'on:update',
      'on:delete',
      'on:publish',
      'on:status_change',
      'on:stage_change',
      'on:media_upload',
      'on:user_create',
      'on:collection_create',
      'on:collection_update',
      'on:collection_delete',
    ];
    const webhook = await call('POST', '/api/webhooks', { name: 'bench', url: hook.url, events, enabled: false });
    /** A round of writes; `cpuMs`: this process's CPU time (kernel and load generator) during it. */
    const writes = async (seconds = SECONDS): Promise<Figures & { written: number; cpuMs: number }> => {
      const cpu = process.cpuUsage();
      const r = await autocannon({
        url: `${kernel.url}/api/collections/hooked`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'A post written under load', status: 'published' }),
      });
      const used = process.cpuUsage(cpu);
      return {
        rps: Math.round(r.requests.average),
        p99: r.latency.p99,
        errors: r.errors + r['4xx'] + r['5xx'],
        mbps: 0,
        written: r['2xx'],
        cpuMs: (used.user + used.system) / 1000,
      };
    };
    const enable = (enabled: boolean) => call('PATCH', `/api/webhooks/${webhook._id}`, { enabled });
    const enqueued = async () => {
      const [row] = await kernel.sequelize.query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM cms_webhook_deliveries WHERE webhook_id = ?',
        { replacements: [webhook._id], type: QueryTypes.SELECT },
      );
      return Number(row?.n ?? 0);
    };
    let waited = 0;
    /**
     * A webhook round, then the wait (webhook still enabled, no writes) until every delivery row written so far
     * has arrived: a disabled webhook's deliveries are not sent, so disabling it with a backlog would count the
     * next baseline round in the delay. Each write publishes on:create and on:publish (created published).
     */
    const hookRound = async () => {
      await enable(true);
      const figures = await writes();
      // The round's deliveries still being sent when its writes stopped are its CPU time too.
      const cpu = process.cpuUsage();
      await new Promise((r) => setTimeout(r, 500)); // writes still in flight when autocannon stopped
      const expected = await enqueued();
      const until = Date.now() + WAIT_MS;
      const started = Date.now();
      while ((await hook.arrived()) < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      waited = Math.max(waited, Date.now() - started);
      const drain = process.cpuUsage(cpu);
      await enable(false);
      return { ...figures, cpuMs: figures.cpuMs + (drain.user + drain.system) / 1000 };
    };

    console.log(`\n## 21. Entry writes (SQLite, ${CONNECTIONS} connections): one webhook subscribed to every event against none`);
    await writes(Math.max(1, Math.round(SECONDS / 4))); // warm-up, not reported
    const baseline = await writes();
    const withHook = await hookRound();
    const baselineAgain = await writes();
    const withHookAgain = await hookRound();
    const expected = await enqueued();
    await new Promise((r) => setTimeout(r, 1000)); // repeats, if any, arrive meanwhile

    line('entry writes, no webhook (baseline)', baseline);
    line('entry writes, one webhook', withHook);
    line('entry writes, no webhook (second round)', baselineAgain);
    line('entry writes, one webhook (second round)', withHookAgain);
    const on = (withHook.rps + withHookAgain.rps) / 2;
    const off = (baseline.rps + baselineAgain.rps) / 2;
    console.log(
      `ratio webhook/baseline (means of both rounds): throughput ${ratio(on, off)}, p99 ${ratio((withHook.p99 + withHookAgain.p99) / 2, (baseline.p99 + baselineAgain.p99) / 2)}`,
    );
    // CPU time per write answered: steadier than writes/s on a shared machine (other processes take wall time, not this).
    const perWrite = (...rounds: Array<{ cpuMs: number; written: number }>) =>
      rounds.reduce((n, r) => n + r.cpuMs, 0) /
      Math.max(
        1,
        rounds.reduce((n, r) => n + r.written, 0),
      );
    const cpuOff = perWrite(baseline, baselineAgain);
    const cpuOn = perWrite(withHook, withHookAgain);
    console.log(
      `CPU time of this process (kernel and load generator; the receiver runs in its own) per write: ${cpuOff.toFixed(2)} ms without, ${cpuOn.toFixed(2)} ms with the webhook (its deliveries sent included); ratio baseline/webhook ${ratio(cpuOff, cpuOn)}`,
    );
    const received = await hook.stats();
    const sorted = received.delays ?? [];
    console.log(
      `deliveries: ${received.arrived} of ${expected} enqueued arrived (${withHook.written + withHookAgain.written} writes answered 201 in the webhook rounds) (${Math.max(0, expected - received.arrived)} missing, ${received.repeats} repeats by X-CMS-Delivery)`,
    );
    console.log(
      `enqueue-to-delivery delay: p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1) ?? 0} ms (the backlog left when a round's writes stopped drained in ${waited} ms at most)`,
    );
  } finally {
    await Promise.allSettled([kernel.close(), hook.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runWebhooksBench();
