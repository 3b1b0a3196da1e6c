import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import mariadb from 'mariadb';
import { startCluster, type Cluster } from '../../cluster/start-cluster.js';
import {
  call,
  everyInstance as everyInstanceOf,
  login,
  ok,
  type Answer,
  requireClusterServices,
  requireNginx,
  retryUnanswered,
} from '../helpers/cluster-client.js';
import { POSTS } from '../helpers/content.js';
import { fixturePlugin } from '../helpers/kernel.js';

/**
 * Issue 23, the fault part: three instances behind nginx (issue 41) reach MariaDB and Redis
 * through TCP forwarders (cluster.faults) that the tests cut and restore. They prove that instances
 * degrade (health), answer 503 rather than 500 where they cannot serve, recover by themselves, lose no
 * acknowledged write, and that jobs run exactly once each, also when an instance is killed -9.
 */
/** Polls every running instance (every 50 ms, at most 20 s by default: recoveries take seconds). */
const everyInstance = (cluster: Cluster, what: string, done: (base: string) => Promise<boolean>, ms = 20000) =>
  everyInstanceOf(cluster, what, done, ms, 50);

/** Writes through nginx one after the other until stopped (bounded), recording what each got. */
function writer(c: Cluster, cookie: string, collection: string, prefix: string, max = 80) {
  const acknowledged: string[] = [];
  const statuses: Array<{ status: number; error?: string }> = [];
  const unanswered = { retries: 0 };
  let running = true;
  const done = (async () => {
    for (let n = 0; running && n < max; n++) {
      try {
        // Sent again when a reload of nginx closed the connection before any answer (the same Idempotency-Key: written once).
        const headers = { 'idempotency-key': `${prefix}-${c.database}-${n}` };
        const a = await retryUnanswered(
          () => call(c.url, `/api/collections/${collection}`, { cookie, headers, json: { title: `${prefix} ${n}` } }),
          unanswered,
        );
        statuses.push({ status: a.status, error: a.body?.error });
        if (a.status === 201) acknowledged.push(`${prefix} ${n}`);
      } catch (err) {
        statuses.push({ status: 0, error: (err as Error).message });
      }
      await sleep(40);
    }
  })();
  return {
    acknowledged,
    statuses,
    unanswered,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Waits (at most 30 s) until every instance's /api/system/health says ok. */
const healthOkAgain = (c: Cluster, when: string) =>
  everyInstance(c, `health ok ${when}`, async (base) => (await call(base, '/api/system/health')).body.data?.status === 'ok', 30000);

const PASSWORD = 'cluster fault password';

describe('cluster faults: Redis and MariaDB cut and restored, jobs through a kill -9 (3 instances)', function () {
  this.timeout(240000);
  let c: Cluster;
  let admin: string;
  let sql: Awaited<ReturnType<typeof mariadb.createConnection>>;

  before(async function () {
    const services = requireClusterServices(this, 'cluster fault tests');
    requireNginx(this, 'cluster fault tests');
    this.timeout(180000);
    c = await startCluster({
      instances: 3,
      ...services,
      proxy: 'nginx',
      forwarders: true,
      drainMs: 500,
      env: {
        CMS_RATE_LIMIT_ENABLED: 'false',
        CMS_POOL_MAX_THREADS: '1',
        CMS_JOBS_POLL_MS: '200',
        CMS_PLUGINS_PATHS: fixturePlugin('test-jobs'),
      },
      config: {
        // Short lease: a killed instance's job is taken over within about a second and a half.
        jobs: { leaseMs: 1500, pollIntervalMs: 200 },
        plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } },
      },
    });
    admin = await login(c.url, c.admin.email, c.admin.password);
    ok(await call(c.url, '/api/collections', { cookie: admin, json: { ...POSTS, name: 'faultnotes' } }), 201);
    const server = new URL(services.mariadbUrl);
    sql = await mariadb.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username || 'root'),
      password: decodeURIComponent(server.password),
      database: c.database,
    });
  });
  after(async function () {
    this.timeout(120000);
    c?.faults.db?.restore();
    c?.faults.redis?.restore();
    await sql?.end().catch(() => undefined);
    await c?.stop();
  });

  /** Each acknowledged title is stored exactly once (read from the database, not through a cache). */
  async function expectStoredOnce(prefix: string, acknowledged: string[]) {
    const rows: Array<{ title: string; n: bigint | number }> = await sql.query(
      'SELECT f_title AS title, COUNT(*) AS n FROM cms_c_faultnotes WHERE f_title LIKE ? GROUP BY f_title',
      [`${prefix} %`],
    );
    const counts = new Map(rows.map((r) => [r.title, Number(r.n)]));
    const missingOrTwice = acknowledged.filter((t) => counts.get(t) !== 1);
    expect(missingOrTwice, 'acknowledged writes not stored exactly once').to.deep.equal([]);
    return counts;
  }

  it('Redis cut: instances report degraded, keep serving (never 500), recover by themselves, and lose no acknowledged write', async function () {
    await call(c.url, '/api/user/create-user', { cookie: admin, json: { email: 'redis@faults.test', password: PASSWORD, role: 'editor' } });
    const w = writer(c, admin, 'faultnotes', 'redis-outage');
    const reads: number[] = [];
    try {
      await sleep(300);
      c.faults.redis!.cut();
      await everyInstance(c, 'health degraded with Redis cut', async (base) => {
        const h = await call(base, '/api/system/health');
        return h.body.data?.status === 'degraded' && h.body.data.checks.cache.status === 'down';
      });
      for (const i of c.instances) {
        expect((await call(i.url, '/api/health/ready')).status, `instance ${i.index} stays ready without Redis`).to.equal(200);
        const list = await call(i.url, '/api/collections/faultnotes?limit=5', { cookie: admin });
        reads.push(list.status);
        const me = await call(i.url, '/api/user/me', { cookie: admin });
        reads.push(me.status);
      }
      await sleep(1000);
    } finally {
      c.faults.redis!.restore();
    }
    await healthOkAgain(c, 'after Redis is back');
    await w.stop();
    const bad = w.statuses.filter((s) => s.status !== 201 && s.status !== 503);
    expect(bad, 'writes during the Redis outage answer 201 or 503').to.deep.equal([]);
    expect(
      reads.filter((s) => s !== 200 && s !== 503),
      'reads during the outage',
    ).to.deep.equal([]);
    expect(w.acknowledged.length).to.be.greaterThan(0);
    const stored = await expectStoredOnce('redis-outage', w.acknowledged);
    const listed = ok(await call(c.url, '/api/collections/faultnotes?limit=100&search=redis-outage', { cookie: admin }));
    // The list (through the restored cache) shows every stored write: all acknowledged ones, at most the attempted ones.
    expect(listed.total).to.be.within(w.acknowledged.length, w.statuses.length);
    expect(listed.total, 'the list agrees with the table').to.equal([...stored.values()].reduce((a, b) => a + b, 0));

    // Cross-instance invalidation works again: a session revoked through one instance is refused by all.
    const cookie = await login(c.url, 'redis@faults.test', PASSWORD);
    await everyInstance(c, 'session accepted', async (base) => (await call(base, '/api/user/me', { cookie })).status === 200);
    const me = ok(await call(c.url, '/api/user/me', { cookie }));
    const { sessions } = ok(await call(c.url, `/api/user/sessions?admin=1&userId=${me._id ?? me.id}`, { cookie: admin }));
    ok(await call(c.instances[0]!.url, `/api/user/sessions/${sessions[0]._id}?admin=1`, { method: 'DELETE', cookie: admin }));
    const ms = await everyInstance(
      c,
      'revoked session refused after recovery',
      async (base) => (await call(base, '/api/user/me', { cookie })).status === 401,
      5000,
    );
    console.log(
      `      ${w.acknowledged.length} writes acknowledged around the outage (${w.statuses.length - w.acknowledged.length} refused); revoke seen everywhere after ${ms} ms`,
    );
  });

  it('Redis cut: a write and a session revocation made during the outage hold on every instance, during it and once Redis is back', async function () {
    ok(await call(c.url, '/api/collections', { cookie: admin, json: { ...POSTS, name: 'quietnotes' } }), 201);
    ok(await call(c.instances[0]!.url, '/api/collections/quietnotes', { cookie: admin, json: { title: 'before the outage' } }), 201);
    const titles = async (base: string) =>
      (ok(await call(base, '/api/collections/quietnotes?limit=20', { cookie: admin })).items as any[]).map((e) => e.title ?? e.data?.title);
    await call(c.url, '/api/user/create-user', {
      cookie: admin,
      json: { email: 'revoked@faults.test', password: PASSWORD, role: 'editor' },
    });
    const cookie = await login(c.url, 'revoked@faults.test', PASSWORD);
    // Every instance has the list cached (shared and in its own memory) and the session in its memory.
    for (const i of c.instances) {
      for (let n = 0; n < 2; n++) expect(await titles(i.url)).to.deep.equal(['before the outage']);
      expect((await call(i.url, '/api/user/me', { cookie })).status).to.equal(200);
    }
    const me = ok(await call(c.url, '/api/user/me', { cookie }));
    const { sessions } = ok(await call(c.url, `/api/user/sessions?admin=1&userId=${me._id ?? me.id}`, { cookie: admin }));

    c.faults.redis!.cut();
    try {
      await everyInstance(c, 'events disconnected with Redis cut', async (base) => {
        const h = await call(base, '/api/system/health');
        return h.body.data?.checks?.events?.status === 'down';
      });
      // Both writes reach the database; their invalidations and announcements cannot reach Redis.
      ok(await call(c.instances[0]!.url, '/api/collections/quietnotes', { cookie: admin, json: { title: 'during the outage' } }), 201);
      ok(await call(c.instances[0]!.url, `/api/user/sessions/${sessions[0]._id}?admin=1`, { method: 'DELETE', cookie: admin }));
      for (const i of c.instances) {
        expect(await titles(i.url), `instance ${i.index} during the outage`).to.include('during the outage');
        // The revocation could not be announced: instances do not trust their copies while they cannot hear of one.
        expect((await call(i.url, '/api/user/me', { cookie })).status, `instance ${i.index} during the outage`).to.equal(401);
      }
    } finally {
      c.faults.redis!.restore();
    }
    await healthOkAgain(c, 'after Redis is back');
    // Redis still holds the list cached before the outage under the old version token, and the session
    // snapshot: what the instances drop when Redis answers again (bounded by their reconnection).
    const ms = await everyInstance(
      c,
      'the write made during the outage listed after it',
      async (base) => (await titles(base)).includes('during the outage'),
      5000,
    );
    for (const i of c.instances) {
      for (let n = 0; n < 3; n++)
        expect(await titles(i.url), `instance ${i.index} after the outage`).to.have.members(['before the outage', 'during the outage']);
      expect((await call(i.url, '/api/user/me', { cookie })).status, `instance ${i.index} after the outage`).to.equal(401);
    }
    console.log(`      the outage's write listed everywhere ${ms} ms after health was ok again`);
  });

  it('MariaDB cut: readiness turns 503, requests that need the database answer 503 DATABASE_UNAVAILABLE (never 500), instances recover, no acknowledged write lost', async function () {
    const w = writer(c, admin, 'faultnotes', 'db-outage', 120);
    const direct: Answer[] = [];
    try {
      await sleep(300);
      c.faults.db!.cut();
      await everyInstance(c, 'readiness 503 with the database cut', async (base) => {
        const r = await call(base, '/api/health/ready');
        return r.status === 503 && r.body.error === 'NOT_READY';
      });
      for (const i of c.instances) {
        expect((await call(i.url, '/api/health')).status, `liveness of instance ${i.index}`).to.equal(200);
        // A write needs the database on every instance: 503 with a stable code.
        direct.push(await call(i.url, '/api/collections/faultnotes', { cookie: admin, json: { title: `db-direct ${i.index}` } }));
        direct.push(await call(i.url, '/api/collections/faultnotes?limit=3&search=nothing-cached', { cookie: admin }));
      }
      await sleep(1000);
    } finally {
      c.faults.db!.restore();
    }
    await everyInstance(
      c,
      'ready again after the database is back',
      async (base) => (await call(base, '/api/health/ready')).status === 200,
      60000,
    );
    // The writer keeps going after the restore until it has written again.
    const after = w.acknowledged.length;
    const until = Date.now() + 30000;
    while (w.acknowledged.length < after + 3 && Date.now() < until) await sleep(100);
    await w.stop();

    const writes = direct.filter((_, n) => n % 2 === 0);
    for (const a of writes) {
      expect(a.status, JSON.stringify(a.body)).to.equal(503);
      expect(a.body.error).to.equal('DATABASE_UNAVAILABLE');
    }
    for (const a of direct) expect(a.status, JSON.stringify(a.body)).to.be.oneOf([200, 503]);
    const bad = w.statuses.filter((s) => ![201, 502, 503].includes(s.status));
    expect(bad, 'writes through nginx around the outage answer 201 or 503 (502: nginx had no instance that took it)').to.deep.equal([]);
    expect(w.statuses.filter((s) => s.status === 500)).to.deep.equal([]);
    expect(w.acknowledged.length, 'writes acknowledged after the recovery').to.be.greaterThan(after);
    const stored = await expectStoredOnce('db-outage', w.acknowledged);
    const refused = w.statuses.filter((s) => s.status !== 201).length;
    // A write refused with 503 may have been committed just before its connection dropped: never more than attempted.
    expect([...stored.values()].reduce((a, b) => a + b, 0)).to.be.within(w.acknowledged.length, w.statuses.length);
    for (const i of c.instances)
      ok(await call(i.url, '/api/collections/faultnotes', { cookie: admin, json: { title: `db-after ${i.index}` } }), 201);
    console.log(
      `      ${w.acknowledged.length} writes acknowledged around the outage, ${refused} refused, ${w.unanswered.retries} sent again after a reload of nginx closed their connection (${[...new Set(w.statuses.map((s) => `${s.status} ${s.error ?? ''}`.trim()))].join(', ')})`,
    );
  });

  it('1,000 jobs enqueued across the instances run exactly once each, also when an instance is killed -9 inside one', async function () {
    this.timeout(200000);
    // 1,000 jobs in batches of 25 through the proxy, and one long job after the first 250: whichever
    // instance claims it is killed -9 while inside it, while the other jobs still run (its lease is then taken over).
    const jobIds: string[] = [];
    const enqueuedOn = new Set<number>();
    let held = '';
    // The kill waits for the enqueue request in flight (one killed mid-request would leave an unknown part of its batch).
    let paused = false;
    let inflight: Promise<unknown> = Promise.resolve();
    const enqueue = (async () => {
      for (let n = 0; n < 40; n++) {
        while (paused) await sleep(20);
        if (n === 10)
          held = ok(await call(c.url, '/api/test-jobs/enqueue', { cookie: admin, json: { count: 1, holdMs: 20000 } }), 201).jobIds[0];
        const request = call(c.url, '/api/test-jobs/enqueue', { cookie: admin, json: { count: 25 } });
        inflight = request.catch(() => undefined);
        const data = ok(await request, 201);
        jobIds.push(...data.jobIds);
        enqueuedOn.add(data.pid);
      }
    })();
    enqueue.catch(() => undefined);
    let victimPid = 0;
    const deadline = Date.now() + 90000;
    while (!victimPid) {
      if (Date.now() > deadline) throw new Error('nobody started the long job');
      const rows = held ? await sql.query("SELECT pid FROM test_job_runs WHERE job_id = ? AND phase = 'start'", [held]) : [];
      victimPid = rows[0]?.pid ?? 0;
      if (!victimPid) await sleep(50);
    }
    const victim = c.instances.find((i) => i.pid === victimPid)!;
    expect(victim, 'the long job runs on one of the instances').to.not.equal(undefined);
    paused = true;
    await inflight;
    await victim.kill('SIGKILL');
    const [{ n: completedAtKill }] = await sql.query("SELECT COUNT(*) AS n FROM cms_jobs WHERE status = 'completed'");
    await c.proxy.checkNow();
    paused = false;
    await enqueue;
    jobIds.push(held);
    expect(enqueuedOn.size, 'enqueued through every instance').to.equal(3);
    const doneBy = Date.now() + 150000;
    for (;;) {
      const [row] = await sql.query("SELECT COUNT(*) AS n FROM cms_jobs WHERE type = 'test-jobs.record' AND status <> 'completed'");
      if (Number(row.n) === 0) break;
      if (Date.now() > doneBy) throw new Error(`${row.n} jobs not completed in time`);
      await sleep(250);
    }
    const jobs: Array<{ id: string; status: string; attempts: number; claimed_by: string }> = await sql.query(
      "SELECT id, status, attempts, claimed_by FROM cms_jobs WHERE type = 'test-jobs.record'",
    );
    expect(jobs).to.have.length(1001);
    expect(new Set(jobs.map((j) => j.id))).to.deep.equal(new Set(jobIds));
    const runs: Array<{ job_id: string; pid: number; phase: string }> = await sql.query('SELECT job_id, pid, phase FROM test_job_runs');
    const starts = new Map<string, number[]>();
    const dones = new Map<string, number[]>();
    for (const r of runs) {
      const m = r.phase === 'start' ? starts : dones;
      m.set(r.job_id, [...(m.get(r.job_id) ?? []), Number(r.pid)]);
    }
    const notOnce = jobIds.filter((id) => dones.get(id)?.length !== 1);
    expect(notOnce, 'jobs not run to completion exactly once').to.deep.equal([]);
    // Only the job the killed instance was inside started twice: once there, once on the instance that took it over.
    const twice = jobIds.filter((id) => starts.get(id)!.length !== 1);
    expect(twice).to.deep.equal([held]);
    expect(starts.get(held)![0]).to.equal(victimPid);
    expect(dones.get(held)![0]).to.not.equal(victimPid);
    expect(jobs.find((j) => j.id === held)!.attempts).to.equal(2);
    const perInstance = new Map<number, number>();
    for (const [, [pid]] of dones) perInstance.set(pid!, (perInstance.get(pid!) ?? 0) + 1);
    console.log(
      `      1001 jobs completed once each; per process: ${[...perInstance.values()].join(', ')}; the held job was taken over from pid ${victimPid}, killed when ${completedAtKill} jobs had completed`,
    );
    await victim.restart();
    await c.proxy.checkNow();
  });
});
