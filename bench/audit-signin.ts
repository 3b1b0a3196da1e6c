/**
 * Audit case of `npm run bench` (called at the end of bench/run.ts main, or run alone with
 * `node dist/bench/audit-signin.js`): (14) POST /api/user/login (bcrypt 4 rounds, so hashing does not
 * hide the rest) with the audit trail on, against the same kernel in the same run with the audit
 * writer's record() replaced by a no-op: the cost auditing adds to a sign-in. Each successful sign-in
 * queues one entry (auth.sign-in.succeeded); record() writes them in chained batches off the request.
 * Bounded: BENCH_SECONDS (default 8 s) per load case, 10 connections; the kernel runs in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { AuditLog } from '../kernel/audit.js';
import { loadConfig } from '../kernel/config.js';
import { createKernel } from '../kernel/index.js';
import { createLogger } from '../kernel/logger.js';
import { SECONDS, line, ratio, type Figures } from './harness.js';

const CONNECTIONS = 10;
const EMAIL = 'audit-bench@example.com';
const PASSWORD = 'audit benchmark password';

async function signIns(url: string, seconds = SECONDS): Promise<Figures & { non2xx: number }> {
  const r = await autocannon({
    url: `${url}/api/user/login`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'user-agent': 'audit-bench' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  return {
    rps: Math.round(r.requests.average),
    p99: r.latency.p99,
    errors: r.errors + r['4xx'] + r['5xx'],
    mbps: 0,
    non2xx: r.non2xx,
  };
}

export async function runAuditSignInBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-audit-'));
  const config = loadConfig({
    ignoreFile: true,
    env: {},
    overrides: {
      env: 'production',
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logLevel: 'silent',
      db: { type: 'sqlite', storage: 'cms.sqlite' },
      rateLimit: { enabled: false },
      plugins: { disabled: ['setup'], options: { auth: { bcryptRounds: 4 } } },
    },
  });
  const kernel = createKernel({ config, logger: createLogger(config.logLevel) });
  await kernel.start();
  try {
    await kernel.container
      .resolve<{ create(i: object): Promise<unknown> }>('users')
      .create({ email: EMAIL, password: PASSWORD, role: 'editor' });
    const audit = kernel.container.resolve<AuditLog>('audit');
    const record = audit.record.bind(audit);
    const count = async () => (await audit.list({ limit: 1 })).total;

    console.log(`\n## 14. POST /api/user/login (bcrypt 4 rounds, ${CONNECTIONS} connections): audit trail on against record() as a no-op`);
    await signIns(kernel.url, Math.max(1, Math.round(SECONDS / 4))); // warm-up, not reported
    await audit.flush();
    const before = await count();
    // Alternated (audited, no-op, audited, no-op) so drift on a busy machine falls on both sides.
    const audited = await signIns(kernel.url);
    await audit.flush();
    const written = (await count()) - before;
    audit.record = () => undefined;
    const baseline = await signIns(kernel.url);
    audit.record = record;
    const again = await signIns(kernel.url);
    audit.record = () => undefined;
    const baselineAgain = await signIns(kernel.url);
    audit.record = record;
    await audit.flush();

    line('sign-in, record() a no-op (baseline)', baseline);
    line('sign-in, audited', audited, `   (${written} entries written, ${audit.dropped} dropped)`);
    line('sign-in, audited (second round)', again);
    line('sign-in, baseline (second round)', baselineAgain);
    const on = { rps: (audited.rps + again.rps) / 2, p99: (audited.p99 + again.p99) / 2 };
    const off = { rps: (baseline.rps + baselineAgain.rps) / 2, p99: (baseline.p99 + baselineAgain.p99) / 2 };
    console.log(`ratio audited/baseline (means of both rounds): throughput ${ratio(on.rps, off.rps)}, p99 ${ratio(on.p99, off.p99)}`);
    const verify = await audit.verify();
    console.log(`audit chain after the run: ${verify.valid ? 'valid' : 'BROKEN'} (${verify.checked} entries)`);
    if (audited.non2xx || baseline.non2xx || again.non2xx)
      console.log(`non-2xx answers: ${audited.non2xx + baseline.non2xx + again.non2xx}`);
  } finally {
    await kernel.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAuditSignInBench();
