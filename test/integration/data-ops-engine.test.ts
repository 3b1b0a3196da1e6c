import { expect } from 'chai';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Sequelize } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import type { DbLock } from '../../kernel/db/lock.js';
import type { DataOpsEngine } from '../../plugins/data-ops/public.js';
import { as, dataOf } from '../helpers/content.js';
import { FIXTURE_TABLE, FIXTURE_THRESHOLD, fixtureDomainPluginDir, startFixtureDomainKernel } from '../helpers/data-ops-fixture-domain.js';
import { openSse } from '../helpers/data-ops-sse.js';
import { fixturePlugin, startTestKernel, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { DB_VARIANTS, MARIADB_URL, REDIS_URL, requireVariant, uniqueName } from '../helpers/services.js';
import { until } from '../helpers/until.js';

type Rows = Record<string, string>;
const withHeaders = (headers: Record<string, string>) =>
  class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  };
const SEED: Rows = { a: '1', b: '2', x: '9' };
const INPUT = [
  { name: 'a', value: '1' },
  { name: 'b', value: '3' },
  { name: 'c', value: '4' },
];

for (const variant of DB_VARIANTS) {
  describe(`data-operation engine through HTTP (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    let pluginDir: string;
    const options = { plugins: { options: { 'data-ops': { lockWaitMs: 500, heartbeatMs: 200 } } } };

    before(async function () {
      requireVariant(this, variant);
      ({ t, pluginDir } = await startFixtureDomainKernel({ db: variant.name, config: options, captureLogs: 'warn' }));
    });
    after(async () => t?.close());

    const db = () => t.kernel.container.resolve<Sequelize>('sequelize');
    async function seed(rows: Rows, tenant = 'default'): Promise<void> {
      await db().query(`DELETE FROM ${FIXTURE_TABLE} WHERE tenant_id = ?`, { replacements: [tenant] });
      for (const [name, value] of Object.entries(rows)) {
        await db().query(`INSERT INTO ${FIXTURE_TABLE} (tenant_id, name, value) VALUES (?, ?, ?)`, { replacements: [tenant, name, value] });
      }
    }
    async function rows(tenant?: string): Promise<Rows> {
      const data = await dataOf(await as(t, 'viewer', tenant).get('/api/fixture-data/rows'));
      return Object.fromEntries(data.rows.map((r: { name: string; value: string }) => [r.name, r.value]));
    }
    const plan = async (body: object, domain = 'fixture', tenant?: string) =>
      dataOf(await as(t, 'admin', tenant).post(`/api/fixture-data/${domain}/plan`, body));
    const apply = (body: object, domain = 'fixture', tenant?: string) =>
      as(t, 'admin', tenant).post(`/api/fixture-data/${domain}/apply`, body);
    async function refused(res: TestResponse, status: number, code: string): Promise<any> {
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(body.error, JSON.stringify(body)).to.equal(code);
      return body;
    }

    it('plan answers the wire shape (summary weighted by count, risk, hash, 30-minute expiry) and changes nothing', async () => {
      await seed(SEED);
      const before = Date.now();
      const p = await plan({ rows: INPUT });
      expect(Object.keys(p).sort()).to.deep.equal([
        'blockedReasons',
        'domain',
        'expiresAt',
        'mode',
        'operations',
        'planHash',
        'planId',
        'requiresConfirmation',
        'risk',
        'summary',
        'warnings',
      ]);
      expect(p).to.include({ domain: 'fixture', mode: 'merge', risk: 'safe', requiresConfirmation: false });
      expect(p.planHash).to.match(/^[0-9a-f]{64}$/);
      expect(p.summary).to.deep.equal({ created: 1, updated: 1, deleted: 0, skipped: 1, failed: 0 });
      expect(p.operations).to.deep.include({ action: 'update', type: 'row', target: 'b', count: 1 });
      expect(p.operations[0]).to.not.have.property('payload');
      expect(Date.parse(p.expiresAt) - before).to.be.within(30 * 60000 - 5000, 30 * 60000 + 5000);
      expect(await rows()).to.deep.equal(SEED);
      // The same input against the same state gives the same hash (deterministic).
      expect((await plan({ rows: INPUT })).planHash).to.equal(p.planHash);
    });

    const expected: Record<string, { summary: object; after: Rows; destructive: boolean }> = {
      add: {
        summary: { created: 1, updated: 0, deleted: 0, skipped: 2, failed: 0 },
        after: { a: '1', b: '2', c: '4', x: '9' },
        destructive: false,
      },
      merge: {
        summary: { created: 1, updated: 1, deleted: 0, skipped: 1, failed: 0 },
        after: { a: '1', b: '3', c: '4', x: '9' },
        destructive: false,
      },
      mirror: {
        summary: { created: 1, updated: 1, deleted: 1, skipped: 1, failed: 0 },
        after: { a: '1', b: '3', c: '4' },
        destructive: true,
      },
      replace: {
        summary: { created: 3, updated: 0, deleted: 3, skipped: 0, failed: 0 },
        after: { a: '1', b: '3', c: '4' },
        destructive: true,
      },
    };
    for (const [mode, want] of Object.entries(expected)) {
      it(`mode ${mode}: ${want.destructive ? 'destructive, refused without confirmation, then ' : ''}applied inline with the spec's create/update/delete semantics`, async () => {
        await seed(SEED);
        const p = await plan({ rows: INPUT, mode });
        expect(p.summary).to.deep.equal(want.summary);
        expect(p.risk).to.equal(want.destructive ? 'destructive' : 'safe');
        expect(p.requiresConfirmation).to.equal(want.destructive);
        if (want.destructive) {
          await refused(await apply({ planId: p.planId }), 409, 'CONFIRMATION_REQUIRED');
          await refused(await apply({ planId: p.planId, confirmed: false }), 409, 'CONFIRMATION_REQUIRED');
          expect(await rows()).to.deep.equal(SEED);
        }
        const done = await dataOf(await apply({ planId: p.planId, confirmed: true, planHash: p.planHash }));
        expect(done).to.include({ planId: p.planId, outcome: 'success' });
        expect(done.summary).to.deep.equal(want.summary);
        expect(done.durationMs).to.be.a('number');
        expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
        expect(await rows()).to.deep.equal(want.after);
        await refused(await apply({ planId: p.planId, confirmed: true }), 409, 'PLAN_ALREADY_APPLIED');
      });
    }

    it("refuses a wrong planHash (409 PLAN_HASH_MISMATCH), an unknown plan and another tenant's plan (404 PLAN_NOT_FOUND)", async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT });
      await refused(await apply({ planId: p.planId, planHash: 'f'.repeat(64) }), 409, 'PLAN_HASH_MISMATCH');
      await refused(await apply({ planId: '00000000-0000-4000-8000-000000000000' }), 404, 'PLAN_NOT_FOUND');
      await refused(await apply({ planId: p.planId }, 'fixture', 'other'), 404, 'PLAN_NOT_FOUND');
      await refused(await apply({ planId: p.planId }, 'fixture-undo'), 404, 'PLAN_NOT_FOUND');
      expect(await rows()).to.deep.equal(SEED);
    });

    it("validation errors propagate (400), an unknown domain is 404 DOMAIN_NOT_FOUND, a mode outside the domain's modes is 400 naming mode", async () => {
      const res = await as(t, 'admin').post('/api/fixture-data/fixture/plan', {
        rows: [
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ],
      });
      await refused(res, 400, 'VALIDATION_ERROR');
      const engine = t.kernel.container.resolve<DataOpsEngine>('dataOps');
      const admin = { kind: 'user' as const, userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' };
      const err = await engine.plan('nope', {}, undefined, admin).catch((e) => e);
      expect(err).to.include({ code: 'DOMAIN_NOT_FOUND', status: 404 });
      const bad = await engine.plan('fixture', { rows: [] }, 'sideways' as never, admin).catch((e) => e);
      expect(bad).to.include({ code: 'VALIDATION_ERROR', status: 400 });
      expect(bad.issues[0].path).to.equal('mode');
    });

    it('refuses a stale plan (409 PLAN_STALE) when the target changed since planning, and applies nothing', async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT, mode: 'mirror' });
      await db().query(`UPDATE ${FIXTURE_TABLE} SET value = 'changed' WHERE tenant_id = 'default' AND name = 'x'`);
      await refused(await apply({ planId: p.planId, confirmed: true }), 409, 'PLAN_STALE');
      expect(await rows()).to.deep.equal({ ...SEED, x: 'changed' });
    });

    it('refuses an expired plan with 410 PLAN_EXPIRED and a blocked plan with 400 PLAN_BLOCKED', async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT });
      await db().query('UPDATE cms_data_plans SET expires_at = ? WHERE plan_id = ?', { replacements: [Date.now() - 1, p.planId] });
      await refused(await apply({ planId: p.planId }), 410, 'PLAN_EXPIRED');
      const blocked = await plan({ rows: INPUT, blocked: 'two candidates for b: resolve by hand' });
      expect(blocked.blockedReasons).to.deep.equal(['two candidates for b: resolve by hand']);
      const body = await refused(await apply({ planId: blocked.planId, confirmed: true }), 400, 'PLAN_BLOCKED');
      expect(body.blockedReasons).to.deep.equal(['two candidates for b: resolve by hand']);
      expect(await rows()).to.deep.equal(SEED);
    });

    it('prunes unapplied plans a day after they expired and keeps the others (bounded batch)', async () => {
      await seed(SEED);
      const old = await plan({ rows: INPUT });
      const fresh = await plan({ rows: INPUT });
      const recentlyExpired = await plan({ rows: INPUT });
      await db().query('UPDATE cms_data_plans SET expires_at = ? WHERE plan_id = ?', {
        replacements: [Date.now() - 25 * 3600 * 1000, old.planId],
      });
      await db().query('UPDATE cms_data_plans SET expires_at = ? WHERE plan_id = ?', {
        replacements: [Date.now() - 3600 * 1000, recentlyExpired.planId],
      });
      const store = t.kernel.container.resolve<{ prune(now: number, graceMs: number, appliedMs: number, batch: number): Promise<number> }>(
        'dataOpsPlans',
      );
      expect(await store.prune(Date.now(), 24 * 3600 * 1000, 30 * 24 * 3600 * 1000, 500)).to.equal(1);
      await refused(await apply({ planId: old.planId }), 404, 'PLAN_NOT_FOUND');
      await refused(await apply({ planId: recentlyExpired.planId }), 410, 'PLAN_EXPIRED');
      expect(await dataOf(await apply({ planId: fresh.planId }))).to.include({ outcome: 'success' });
    });

    it('a failed snapshot is a warning (risk warning, no staleness check) and the plan still applies', async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT, snapshotFails: true });
      expect(p.warnings).to.deep.equal([{ message: 'snapshot failed' }]);
      expect(p.risk).to.equal('warning');
      expect(await dataOf(await apply({ planId: p.planId }))).to.include({ outcome: 'success' });
    });

    for (const domain of ['fixture', 'fixture-undo']) {
      it(`${domain}: an injected failure in the middle of an apply rolls back (${domain === 'fixture' ? 'transaction' : 'undos in reverse'}): rows unchanged, outcome rollback, the plan re-appliable`, async () => {
        await seed(SEED);
        const p = await plan({ rows: INPUT, mode: 'mirror', failAt: 3 }, domain);
        const done = await dataOf(await apply({ planId: p.planId, confirmed: true }, domain));
        expect(done.outcome).to.equal('rollback');
        expect(done.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 1, failed: 3 });
        expect(done.error.code).to.equal('DATA_OPERATION_FAILED');
        expect(done).to.not.have.property('verify');
        expect(await rows()).to.deep.equal(SEED);
        // Not marked applied: applying again runs again (and fails again at the same operation).
        const again = await dataOf(await apply({ planId: p.planId, confirmed: true }, domain));
        expect(again.outcome).to.equal('rollback');
        const stored = await t.kernel.container
          .resolve<DataOpsEngine>('dataOps')
          .getPlan(p.planId, { kind: 'user', userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' });
        expect(stored.appliedAt).to.equal(null);
        expect(await rows()).to.deep.equal(SEED);
      });
    }

    it('outsideTransaction operations run first without the transaction; a failure in the transaction runs their undos (outcome rollback)', async () => {
      // Mirror of INPUT: 1 update b, 2 create c, 3 delete x; x is flagged outsideTransaction (the fixture
      // refuses to be given the transaction for it) and runs before the others although it is last in the plan.
      await seed(SEED);
      const failing = await plan({ rows: INPUT, mode: 'mirror', outside: ['x'], failAt: 1 });
      expect(failing.operations.map((o: { target: string }) => o.target)).to.deep.equal(['a', 'b', 'c', 'x']);
      const done = await dataOf(await apply({ planId: failing.planId, confirmed: true }));
      expect(done.outcome).to.equal('rollback');
      expect(done.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 1, failed: 3 });
      // x was deleted outside the transaction, then re-inserted by its undo; b and c rolled back with the transaction.
      expect(await rows()).to.deep.equal(SEED);

      const ok = await plan({ rows: INPUT, mode: 'mirror', outside: ['x', 'c'] });
      const applied = await dataOf(await apply({ planId: ok.planId, confirmed: true }));
      expect(applied.outcome).to.equal('success');
      expect(applied.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(await rows()).to.deep.equal(expected.mirror!.after);
    });

    it("answers 409 LOCK_CONTENTION while the domain's lock is held (waits lockWaitMs), and applies once it is released", async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT });
      const release = await t.kernel.container.resolve<DbLock>('lock').acquire('data-ops:fixture:default', { ttlMs: 30000 });
      try {
        const started = Date.now();
        await refused(await apply({ planId: p.planId }), 409, 'LOCK_CONTENTION');
        expect(Date.now() - started).to.be.at.least(400);
        // Another tenant's lock is another key.
        await seed(SEED, 'other');
        const other = await plan({ rows: INPUT }, 'fixture', 'other');
        expect(await dataOf(await apply({ planId: other.planId }, 'fixture', 'other'))).to.include({ outcome: 'success' });
      } finally {
        await release();
      }
      expect(await dataOf(await apply({ planId: p.planId }))).to.include({ outcome: 'success' });
    });

    it('two kernels on one database: an apply on one makes the other answer 409 LOCK_CONTENTION', async () => {
      const second = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity'), pluginDir],
        config: options,
        ...(variant.name === 'mariadb' ? { dbUrl: t.dbUrl } : { dataDir: t.dataDir }),
      });
      try {
        await seed(SEED);
        const slow = await plan({ rows: INPUT, mode: 'mirror', delayMs: 500 }, 'fixture-undo');
        const quick = await dataOf(
          await as(second, 'admin').post('/api/fixture-data/fixture-undo/plan', { rows: [{ name: 'q', value: '1' }], mode: 'add' }),
        );
        const running = apply({ planId: slow.planId, confirmed: true }, 'fixture-undo');
        await new Promise((r) => setTimeout(r, 200));
        await refused(
          await as(second, 'admin').post('/api/fixture-data/fixture-undo/apply', { planId: quick.planId }),
          409,
          'LOCK_CONTENTION',
        );
        expect(await dataOf(await running)).to.include({ outcome: 'success' });
        expect(await rows()).to.deep.equal({ a: '1', b: '3', c: '4' });
      } finally {
        await second.close();
      }
    });

    it(`at or above the threshold (${FIXTURE_THRESHOLD} entities) apply answers 202 {jobId, status: queued}; the jobs route and the stream show it complete`, async () => {
      await seed({});
      const stream = await openSse(`${t.url}/api/data-ops/events`, { 'x-test-identity': 'editor' });
      const otherTenant = await openSse(`${t.url}/api/data-ops/events`, { 'x-test-identity': 'editor', 'x-test-tenant': 'other' });
      try {
        const many = Array.from({ length: FIXTURE_THRESHOLD }, (_, i) => ({ name: `r${String(i).padStart(3, '0')}`, value: String(i) }));
        const p = await plan({ rows: many, mode: 'add' });
        const res = await apply({ planId: p.planId });
        const queued = await dataOf(res, 202);
        expect(queued).to.have.keys(['jobId', 'status']);
        expect(queued.status).to.equal('queued');
        await refused(await apply({ planId: p.planId }), 409, 'PLAN_ALREADY_APPLIED');
        const job = await until(
          async () => {
            const { jobs } = await dataOf(await as(t, 'admin').get(`/api/fixture-data/fixture/jobs?jobId=${queued.jobId}`));
            return jobs[0].status === 'completed' ? jobs[0] : undefined;
          },
          'the apply job to complete',
          20000,
        );
        expect(job).to.include({ jobId: queued.jobId, domain: 'fixture', outcome: 'success' });
        expect(job.summary).to.deep.equal({ created: FIXTURE_THRESHOLD, updated: 0, deleted: 0, skipped: 0, failed: 0 });
        expect(job.progress).to.deep.equal({ processed: FIXTURE_THRESHOLD, total: FIXTURE_THRESHOLD });
        expect(job.completedAt).to.be.a('string');
        const { jobs } = await dataOf(await as(t, 'admin').get('/api/fixture-data/fixture/jobs'));
        expect(jobs.map((j: { jobId: string }) => j.jobId)).to.include(queued.jobId);
        expect(Object.keys(await rows())).to.have.length(FIXTURE_THRESHOLD);
        await refused(await as(t, 'admin').get('/api/fixture-data/fixture-undo/jobs?jobId=' + queued.jobId), 404, 'DATA_JOB_NOT_FOUND');
        const event = await stream.next((e) => e.data?.planId === p.planId);
        expect(event.event).to.equal('completed');
        expect(event.data).to.deep.equal({
          domain: 'fixture',
          planId: p.planId,
          jobId: queued.jobId,
          tenantId: 'default',
          outcome: 'success',
          summary: job.summary,
          durationMs: event.data.durationMs,
        });
        expect(otherTenant.events).to.deep.equal([]);
      } finally {
        stream.close();
        otherTenant.close();
      }
    });

    it("the completion stream: text/event-stream, heartbeats, inline completions of the caller's tenant only; guests 401", async () => {
      expect((await t.request('/api/data-ops/events', { headers: { accept: 'text/event-stream' } })).status).to.equal(401);
      const stream = await openSse(`${t.url}/api/data-ops/events`, { 'x-test-identity': 'viewer' });
      try {
        expect(stream.status).to.equal(200);
        expect(stream.contentType).to.match(/^text\/event-stream/);
        await seed(SEED);
        const p = await plan({ rows: INPUT });
        const done = await dataOf(await apply({ planId: p.planId }));
        const event = await stream.next((e) => e.data?.planId === p.planId);
        expect(event.data).to.deep.equal({
          domain: 'fixture',
          planId: p.planId,
          jobId: null,
          tenantId: 'default',
          outcome: 'success',
          summary: done.summary,
          durationMs: done.durationMs,
        });
        await until(async () => (stream.comments.includes('heartbeat') ? true : undefined), 'a heartbeat comment', 3000);
        // ?domain= keeps one domain's completions.
        const undoOnly = await openSse(`${t.url}/api/data-ops/events?domain=fixture-undo`, { 'x-test-identity': 'viewer' });
        try {
          await seed(SEED);
          const p1 = await plan({ rows: INPUT });
          await dataOf(await apply({ planId: p1.planId }));
          await seed(SEED);
          const p2 = await plan({ rows: INPUT }, 'fixture-undo');
          await dataOf(await apply({ planId: p2.planId }, 'fixture-undo'));
          await undoOnly.next((e) => e.data?.planId === p2.planId);
          expect(undoOnly.events.map((e) => e.data.domain)).to.deep.equal(['fixture-undo']);
        } finally {
          undoOnly.close();
        }
        expect(
          (await t.request('/api/data-ops/events?limit=1', { identity: 'viewer', headers: { accept: 'text/event-stream' } })).status,
        ).to.equal(400);
        const notAccepted = await as(t, 'viewer').get('/api/data-ops/events');
        expect(notAccepted.status).to.equal(406);
        expect((await notAccepted.json()).error).to.equal('EVENT_STREAM_NOT_ACCEPTED');
      } finally {
        stream.close();
      }
    });

    it("every apply writes one audit entry with the spec's fields, and the chain verifies", async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT, mode: 'replace' });
      const done = await dataOf(await apply({ planId: p.planId, confirmed: true }));
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      const { items } = await audit.list({ tenantId: 'default', limit: 100 });
      const entries = items.filter((e) => e.planId === p.planId);
      expect(entries).to.have.length(1);
      const e = entries[0]!;
      expect(e).to.include({
        domain: 'config',
        operation: 'apply',
        planId: p.planId,
        mode: 'replace',
        outcome: 'success',
        durationMs: done.durationMs,
      });
      expect(e.actor).to.deep.equal({ userId: 'user-admin', tenantId: 'default' });
      expect(e.summary).to.deep.equal(done.summary);
      expect(Number.isInteger(e.durationMs)).to.equal(true);
      expect(e.timestamp).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(e.previousHash).to.match(/^[0-9a-f]{64}$/);
      expect(e.currentHash).to.match(/^[0-9a-f]{64}$/);
      expect((await audit.verify()).valid).to.equal(true);
    });

    it("verify runs the domain's verify against a stored plan and reports discrepancies", async () => {
      await seed(SEED);
      const p = await plan({ rows: INPUT });
      await dataOf(await apply({ planId: p.planId }));
      expect(await dataOf(await as(t, 'admin').post('/api/fixture-data/fixture/verify', { planId: p.planId }))).to.deep.equal({
        ok: true,
        discrepancies: [],
      });
      await db().query(`DELETE FROM ${FIXTURE_TABLE} WHERE tenant_id = 'default' AND name = 'c'`);
      const v = await dataOf(await as(t, 'admin').post('/api/fixture-data/fixture/verify', { planId: p.planId }));
      expect(v.ok).to.equal(false);
      expect(v.discrepancies).to.deep.equal(["row 'c' is not '4'"]);
    });

    it("the GraphQL subscription dataOperationCompleted delivers completions of the subscriber's tenant", async () => {
      const res = await as(t, 'admin').post('/api/graphql', { query: '{ __type(name: "Subscription") { fields { name } } }' });
      const body = await res.json();
      expect(body.data.__type.fields.map((f: { name: string }) => f.name)).to.include('dataOperationCompleted');
      const client = createClient({
        url: `${t.url.replace(/^http/, 'ws')}/api/graphql`,
        webSocketImpl: withHeaders({ 'x-test-identity': 'viewer' }),
        retryAttempts: 0,
        lazy: true,
      });
      const received: any[] = [];
      const errors: unknown[] = [];
      try {
        client.subscribe(
          {
            query:
              'subscription { dataOperationCompleted(domain: "fixture") { domain planId jobId tenantId outcome durationMs summary { created updated deleted skipped failed } } }',
          },
          { next: (v) => void received.push(v), error: (e) => void errors.push(e), complete: () => undefined },
        );
        await new Promise((r) => setTimeout(r, 300));
        await seed(SEED);
        const p = await plan({ rows: INPUT });
        const done = await dataOf(await apply({ planId: p.planId }));
        await until(async () => (received.length || errors.length ? true : undefined), 'a subscription value', 5000);
        expect(errors).to.deep.equal([]);
        expect(received[0].data.dataOperationCompleted).to.deep.equal({
          domain: 'fixture',
          planId: p.planId,
          jobId: null,
          tenantId: 'default',
          outcome: 'success',
          durationMs: done.durationMs,
          summary: done.summary,
        });
      } finally {
        await client.dispose();
      }
    });
  });
}

describe('data-operation completions across instances (MariaDB + Redis)', function () {
  this.timeout(60000);
  let a: TestKernel;
  let b: TestKernel;

  before(async function () {
    if (!MARIADB_URL || !REDIS_URL) {
      console.log('      CMS_TEST_MARIADB_URL and CMS_TEST_REDIS_URL are needed: skipped');
      this.skip();
    }
    const shared = { redis: { url: REDIS_URL, prefix: uniqueName('dataops') } };
    const plugins = [fixturePlugin('test-identity'), fixtureDomainPluginDir()];
    a = await startTestKernel({ db: 'mariadb', plugins, config: shared });
    b = await startTestKernel({ db: 'mariadb', dbUrl: a.dbUrl, plugins, config: shared });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('a stream on one instance receives the completion of an apply on the other (event bus over Redis)', async () => {
    const stream = await openSse(`${b.url}/api/data-ops/events`, { 'x-test-identity': 'viewer' });
    try {
      const p = await dataOf(await as(a, 'admin').post('/api/fixture-data/fixture/plan', { rows: [{ name: 'across', value: '1' }] }));
      // Planned on one instance, applied on the other (plans are stored in the database).
      const done = await dataOf(await as(b, 'admin').post('/api/fixture-data/fixture/apply', { planId: p.planId }));
      expect(done.outcome).to.equal('success');
      const p2 = await dataOf(await as(b, 'admin').post('/api/fixture-data/fixture/plan', { rows: [{ name: 'across', value: '2' }] }));
      await dataOf(await as(a, 'admin').post('/api/fixture-data/fixture/apply', { planId: p2.planId }));
      const event = await stream.next((e) => e.data?.planId === p2.planId);
      expect(event.data).to.include({ domain: 'fixture', outcome: 'success', tenantId: 'default', jobId: null });
      expect(stream.events.filter((e) => e.data?.planId === p.planId)).to.have.length(1);
    } finally {
      stream.close();
    }
  });
});
