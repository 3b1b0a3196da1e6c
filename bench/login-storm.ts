/**
 * Case 3 of `npm run bench` (also `node dist/bench/login-storm.js` alone): GET /api/health while a storm of
 * real sign-ins (POST /api/user/login of the setup admin, bcrypt at the default 12 rounds, 8 connections) runs
 * against the same kernel, against health alone in the same run. Two kernels in child processes: one with the
 * pool's default priority (CMS_POOL_NICE_INCREMENT 10: worker threads below the event loop), one with the
 * threads at the event loop's priority (0), loaded alternately (BENCH_ROUNDS, default 2) so both see the same
 * machine. Every load is bounded by BENCH_SECONDS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DIST_ROOT } from '../kernel/version.js';
import { SECONDS, line, load, ratio, startChild, stop, type Figures } from './harness.js';
import { benchKernelEnv } from './seed-posts.js';

const STORM_CONNECTIONS = 8;

async function storm(url: string): Promise<Figures & { ok: number; completed: number }> {
  const r = await autocannon({
    url: `${url}/api/user/login`,
    method: 'POST',
    connections: STORM_CONNECTIONS,
    duration: SECONDS,
    // A sign-in queues behind the others' hashing (several seconds on a loaded machine): not a timeout.
    timeout: 60,
    headers: { 'content-type': 'application/json', 'user-agent': 'login-storm-bench' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }),
  });
  return {
    rps: Math.round(r.requests.average * 10) / 10,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r['4xx'] + r['5xx'],
    mbps: 0,
    ok: r['2xx'],
    completed: r.requests.total,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runLoginStormBench(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  console.log(
    `## 3. GET /api/health while sign-ins hash: POST /api/user/login (bcrypt 12 rounds, ${STORM_CONNECTIONS} connections), against health alone`,
  );
  const variants = [
    { label: 'pool threads at nice +10 (default)', nice: '10' },
    { label: 'pool threads at nice 0 (contrast)', nice: '0' },
  ];
  const dirs = variants.map(() => mkdtempSync(join(tmpdir(), 'cms-bench-storm-')));
  const kernels = await Promise.all(
    variants.map((v, i) =>
      startChild(
        [join(DIST_ROOT, 'kernel', 'cli.js'), 'start'],
        { ...benchKernelEnv(dirs[i]!), CMS_POOL_NICE_INCREMENT: v.nice },
        dirs[i]!,
      ),
    ),
  );
  try {
    for (const k of kernels) await load(`${k.url}/api/health`, { connections: 10 }); // warm-up, not reported
    const results = variants.map(() => ({
      alone: [] as Figures[],
      during: [] as Figures[],
      storms: [] as (Figures & { ok: number; completed: number })[],
    }));
    for (let round = 0; round < rounds; round++) {
      for (const [i, k] of kernels.entries()) {
        results[i]!.alone.push(await load(`${k.url}/api/health`));
        const [health, logins] = await Promise.all([load(`${k.url}/api/health`), storm(k.url)]);
        results[i]!.during.push(health);
        results[i]!.storms.push(logins);
      }
    }
    for (const [i, v] of variants.entries()) {
      const r = results[i]!;
      const pick = (fs: Figures[]) => ({ rps: median(fs.map((f) => f.rps)), p99: median(fs.map((f) => f.p99)), errors: 0, mbps: 0 });
      const alone = pick(r.alone);
      const during = pick(r.during);
      const logins = pick(r.storms);
      const signedIn = r.storms.reduce((n, s) => n + s.ok, 0);
      const answered = r.storms.reduce((n, s) => n + s.completed, 0);
      const failed = r.storms.reduce((n, s) => n + s.errors, 0) + r.during.reduce((n, f) => n + f.errors, 0);
      line(`health alone, ${v.label}`, alone);
      line(
        `health during the storm`,
        during,
        `   (sign-ins ${logins.rps}/s, ${signedIn} of ${answered} answered 200, p99 ${logins.p99} ms, errors ${failed})`,
      );
      console.log(
        `ratio health during the storm / alone (${v.label}): throughput ${ratio(during.rps, alone.rps)}, p99 ${ratio(during.p99, alone.p99)}`,
      );
    }
  } finally {
    await Promise.all(kernels.map((k) => stop(k.child)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runLoginStormBench().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
