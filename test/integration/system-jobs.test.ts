import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { EmailTokensService, SessionsService, TokensService, UsersService } from '../../plugins/auth/public.js';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { retentionDays } from '../../plugins/system/audit-retention.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';

const NOTES = { name: 'notes', fields: [{ name: 'title', type: 'text', required: true }] };
const DAY_MS = 24 * 3600 * 1000;

/** Rows of a table matching a condition (the test reads the database as an operator would). */
async function count(t: TestKernel, table: string, where = '1 = 1', replacements: unknown[] = []): Promise<number> {
  const rows = await t.kernel.sequelize.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, {
    replacements,
    type: QueryTypes.SELECT,
  });
  return Number(rows[0]!.n);
}

/** Starts a system job as admin (202) and waits for the run to finish; returns the finished job. */
async function runJob(t: TestKernel, name: string, params?: Record<string, unknown>): Promise<any> {
  const started = await dataOf(await as(t, 'admin').post('/api/system-jobs', { name, ...(params ? { params } : {}) }), 202);
  expect(started).to.include({ name });
  expect(started.jobId).to.be.a('string');
  return until(async () => {
    const job = await dataOf(await as(t, 'admin').get(`/api/system/jobs/${started.jobId}`));
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  }, `system job ${name} to finish`);
}

/** A real user, with an expired and a live session, API key, website token and email link. */
async function seedCredentials(t: TestKernel, email: string) {
  const c = t.kernel.container;
  const users = c.resolve<UsersService>('users');
  const sessions = c.resolve<SessionsService>('sessions');
  const tokens = c.resolve<TokensService>('tokens');
  const emailTokens = c.resolve<EmailTokensService>('emailTokens');
  const created = await users.create({ email, password: 'correct horse battery staple', role: 'admin' });
  const user = (await users.findById(created._id))!;
  const owner = { kind: 'user' as const, userId: user.id, role: 'admin', permissions: [], tenantId: 'default' };
  const client = { userAgent: 'test', ip: '127.0.0.1' };
  const expiredSession = (await sessions.create(user, client)).session;
  const liveSession = (await sessions.create(user, { ...client, userAgent: 'other device' })).session;
  const expiredKey = await tokens.createApiKey(owner, { name: 'old', permissions: [] }, () => true);
  const liveKey = await tokens.createApiKey(owner, { name: 'new', permissions: [] }, () => true);
  const expiredSite = await tokens.createWebsiteToken(owner, { name: 'old site' });
  const expiredLink = (await emailTokens.issue('reset', { tenantId: 'default', email, userId: user.id, ttlMs: 3600000 })).row;
  const liveLink = (await emailTokens.issue('reset', { tenantId: 'default', email, userId: user.id, ttlMs: 3600000 })).row;
  const past = Date.now() - 1000;
  const q = (sql: string, id: string) => t.kernel.sequelize.query(sql, { replacements: [past, id] });
  await q('UPDATE auth_sessions SET expires_at = ? WHERE id_hash = ?', expiredSession.id_hash);
  await q('UPDATE auth_api_keys SET expires_at = ? WHERE id = ?', expiredKey._id);
  await q('UPDATE auth_website_tokens SET expires_at = ? WHERE id = ?', expiredSite._id);
  await q('UPDATE auth_tokens SET expires_at = ? WHERE id = ?', expiredLink.id);
  return {
    expired: { session: expiredSession.id_hash, key: expiredKey._id, site: expiredSite._id, link: expiredLink.id },
    live: { session: liveSession.id_hash, key: liveKey._id, link: liveLink.id },
  };
}

for (const variant of DB_VARIANTS) {
  describe(`system jobs (POST /api/system-jobs) on ${variant.name}`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('lists the available jobs with descriptions to admins only', async function () {
      const data = await dataOf(await as(t, 'admin').get('/api/system-jobs'));
      expect(data.jobs.map((j: { name: string }) => j.name)).to.include.members([
        'purge-expired-tokens',
        'purge-expired-sessions',
        'prune-audit',
        'rebuild-list-caches',
        'reindex-search',
      ]);
      for (const job of data.jobs) expect(job.description, job.name).to.be.a('string').and.not.equal('');
      for (const who of ['editor', 'viewer']) {
        const res = await as(t, who).get('/api/system-jobs');
        expect(res.status, who).to.equal(403);
      }
      expect((await t.request('/api/system-jobs')).status, 'anonymous').to.be.oneOf([401, 403]);
    });

    it('refuses non-admins, unknown names and bad input with stable codes, and queues nothing', async function () {
      const before = (await dataOf(await as(t, 'admin').get('/api/system-jobs'))).runs.length;
      const editor = await as(t, 'editor').post('/api/system-jobs', { name: 'purge-expired-tokens' });
      expect(editor.status).to.equal(403);
      // The jobs act on the whole instance: an admin of another tenant is not the operator.
      const tenantAdmin = await as(t, 'admin', 'acme').post('/api/system-jobs', { name: 'purge-expired-tokens' });
      expect(tenantAdmin.status).to.equal(403);
      expect((await tenantAdmin.json()).error).to.equal('FORBIDDEN');
      expect((await as(t, 'admin', 'acme').get('/api/system-jobs')).status).to.equal(403);
      const unknown = await as(t, 'admin').post('/api/system-jobs', { name: 'drop-everything' });
      expect(unknown.status).to.equal(404);
      const body = await unknown.json();
      expect(body).to.include({ success: false, error: 'SYSTEM_JOB_UNKNOWN' });
      expect(body.message).to.contain('drop-everything').and.not.contain('purge-expired-tokens');
      for (const bad of [{}, { name: '' }, { name: 'Bad Name!' }, { name: 'prune-audit', params: [] }, { name: 'prune-audit', extra: 1 }]) {
        const res = await as(t, 'admin').post('/api/system-jobs', bad);
        expect(res.status, JSON.stringify(bad)).to.equal(400);
        expect((await res.json()).error).to.equal('VALIDATION_ERROR');
      }
      const badParams = await as(t, 'admin').post('/api/system-jobs', { name: 'prune-audit', params: { olderThanDays: -1 } });
      expect(badParams.status).to.equal(400);
      expect((await badParams.json()).issues[0].path).to.equal('body.params.olderThanDays');
      expect((await dataOf(await as(t, 'admin').get('/api/system-jobs'))).runs.length).to.equal(before);
    });

    it('purge-expired-tokens deletes expired API keys, website tokens and email links, and keeps live ones', async function () {
      const seeded = await seedCredentials(t, 'tokens@example.com');
      const job = await runJob(t, 'purge-expired-tokens');
      expect(job.status, job.error).to.equal('completed');
      expect(job.result.apiKeysAndWebsiteTokens).to.be.at.least(2);
      expect(job.result.emailTokens).to.be.at.least(1);
      expect(await count(t, 'auth_api_keys', 'id = ?', [seeded.expired.key])).to.equal(0);
      expect(await count(t, 'auth_website_tokens', 'id = ?', [seeded.expired.site])).to.equal(0);
      expect(await count(t, 'auth_tokens', 'id = ?', [seeded.expired.link])).to.equal(0);
      expect(await count(t, 'auth_api_keys', 'id = ?', [seeded.live.key])).to.equal(1);
      expect(await count(t, 'auth_tokens', 'id = ?', [seeded.live.link])).to.equal(1);
    });

    it('purge-expired-sessions deletes expired sessions and keeps live ones', async function () {
      const seeded = await seedCredentials(t, 'sessions@example.com');
      const job = await runJob(t, 'purge-expired-sessions');
      expect(job.status, job.error).to.equal('completed');
      expect(job.result.sessions).to.be.at.least(1);
      expect(await count(t, 'auth_sessions', 'id_hash = ?', [seeded.expired.session])).to.equal(0);
      expect(await count(t, 'auth_sessions', 'id_hash = ?', [seeded.live.session])).to.equal(1);
    });

    it('rebuild-list-caches drops the cached lists: a row changed outside the API shows on the next read', async function () {
      await dataOf(await as(t, 'admin').post('/api/collections', NOTES), 201);
      const added = await dataOf(await as(t, 'editor').post('/api/collections/notes', { title: 'Before' }), 201);
      await as(t, 'editor').get('/api/collections/notes');
      const cached = await as(t, 'editor').get('/api/collections/notes');
      expect(cached.headers.get('x-cache')).to.equal('HIT');
      // An operator repairs a row directly in the database: the cached list does not know.
      await t.kernel.sequelize.query('UPDATE cms_c_notes SET f_title = ? WHERE id = ?', { replacements: ['Repaired', added._id] });
      const stale = await as(t, 'editor').get('/api/collections/notes');
      expect((await stale.json()).data.items[0].title).to.equal('Before');

      const job = await runJob(t, 'rebuild-list-caches');
      expect(job.status, job.error).to.equal('completed');
      expect(job.result).to.include({ tenants: 1 });
      expect(job.result.cleared).to.include('notes');
      const fresh = await as(t, 'editor').get('/api/collections/notes');
      expect(fresh.headers.get('x-cache')).to.equal('MISS');
      expect((await fresh.json()).data.items[0].title).to.equal('Repaired');
      expect((await as(t, 'editor').get('/api/collections/notes')).headers.get('x-cache'), 'cached again').to.equal('HIT');
    });

    it('reindex-search says there is no search index to rebuild', async function () {
      const job = await runJob(t, 'reindex-search');
      expect(job.status, job.error).to.equal('completed');
      expect(job.result.reindexed).to.equal(0);
      expect(job.result.note).to.contain('no index');
    });

    it('prune-audit deletes old audit entries, and the chain still verifies from its anchor', async function () {
      await t.kernel.audit.flush();
      for (let i = 0; i < 3; i++)
        await t.kernel.audit.append({
          domain: 'config',
          operation: 'apply',
          actor: { userId: 'u1', tenantId: 'default' },
          outcome: 'success',
        });
      const job = await runJob(t, 'prune-audit', { olderThanDays: 0 });
      expect(job.status, job.error).to.equal('completed');
      expect(job.result.deleted).to.be.at.least(3);
      expect(job.result.anchor.hash).to.match(/^[0-9a-f]{64}$/);
      const verified = await dataOf(await as(t, 'admin').get('/api/system/audit/verify'));
      expect(verified.valid).to.equal(true);
      expect(verified.anchor).to.deep.equal(job.result.anchor);
      const { items } = await t.kernel.audit.list({ limit: 100 });
      expect(items.filter((e) => e.action === 'config.apply')).to.have.length(0);
      expect(items.find((e) => e.action === 'audit.prune')?.actor.userId, 'the prune names who ran it').to.equal('user-admin');
    });

    it('lists recent runs with their status and result, and records who started them in the audit log', async function () {
      const finished = await runJob(t, 'reindex-search');
      const { runs } = await dataOf(await as(t, 'admin').get('/api/system-jobs'));
      // Newest first (runs started within the same second may come in either order on MariaDB).
      const run = runs.find((r: { jobId: string }) => r.jobId === finished.jobId);
      expect(run).to.include({ name: 'reindex-search', status: 'completed', startedBy: 'user-admin' });
      expect(run.result.reindexed).to.equal(0);
      expect(run.completedAt).to.be.a('string');
      expect(runs.map((r: { name: string }) => r.name)).to.include.members(['purge-expired-tokens', 'prune-audit', 'rebuild-list-caches']);
      await t.kernel.audit.flush();
      const { items } = await t.kernel.audit.list({ search: finished.jobId });
      expect(items.map((e) => [e.action, e.actor.userId])).to.deep.equal([['system-job.reindex-search', 'user-admin']]);
    });
  });

  describe(`system jobs: the schedules on ${variant.name}`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        // Without the setup plugin's settings store, plugins.options.system.auditRetentionDays stands in for AUDIT_RETENTION_DAYS.
        config: { plugins: { options: { auth: { purgeIntervalMs: 100 }, system: { auditPruneIntervalMs: 100, auditRetentionDays: 30 } } } },
      },
      { variant },
    );

    it('purges expired sessions, API keys, website tokens and email links on schedule, without a request', async function () {
      const seeded = await seedCredentials(t, 'scheduled@example.com');
      await until(
        async () =>
          (await count(t, 'auth_sessions', 'id_hash = ?', [seeded.expired.session])) +
            (await count(t, 'auth_api_keys', 'id = ?', [seeded.expired.key])) +
            (await count(t, 'auth_website_tokens', 'id = ?', [seeded.expired.site])) +
            (await count(t, 'auth_tokens', 'id = ?', [seeded.expired.link])) ===
          0
            ? true
            : undefined,
        'the scheduled purge',
      );
      expect(await count(t, 'auth_sessions', 'id_hash = ?', [seeded.live.session])).to.equal(1);
      expect(await count(t, 'auth_api_keys', 'id = ?', [seeded.live.key])).to.equal(1);
      expect(await count(t, 'auth_tokens', 'id = ?', [seeded.live.link])).to.equal(1);
    });

    it('prunes audit entries older than the retention on schedule, and the chain still verifies', async function () {
      const actor = { userId: 'u1', tenantId: 'default' };
      const old = [];
      for (let i = 0; i < 3; i++) old.push(await t.kernel.audit.append({ domain: 'config', operation: 'old', actor, outcome: 'success' }));
      // Backdated 40 days, with every entry before them (this alters them: they are the ones the prune removes).
      await t.kernel.sequelize.query('UPDATE cms_audit_log SET timestamp = ? WHERE id <= ?', {
        replacements: [new Date(Date.now() - 40 * DAY_MS).toISOString(), old[2]!.id],
      });
      const recent = await t.kernel.audit.append({ domain: 'config', operation: 'recent', actor, outcome: 'success' });
      await until(
        async () => ((await t.kernel.audit.list({ search: 'config.old' })).total === 0 ? true : undefined),
        'the scheduled audit prune',
      );
      const verified = await dataOf(await as(t, 'admin').get('/api/system/audit/verify'));
      expect(verified.valid).to.equal(true);
      expect(verified.anchor.hash).to.equal(old[2]!.currentHash);
      expect((await t.kernel.audit.list({ search: 'config.recent' })).items.map((e) => e.id)).to.deep.equal([recent.id]);
    });
  });
}

describe('system jobs: the AUDIT_RETENTION_DAYS setting', function () {
  const withSetting = (value: unknown) => ({
    settings: { get: async (key: string) => (key === 'AUDIT_RETENTION_DAYS' ? value : undefined) },
  });

  it('reads the setting from the settings store, and falls back to the plugin option without a usable value', async function () {
    expect(await retentionDays(withSetting(30), 365)).to.equal(30);
    expect(await retentionDays(withSetting('7'), 365), 'a numeric string').to.equal(7);
    expect(await retentionDays(withSetting(0), 365), '0 keeps every entry').to.equal(0);
    for (const unusable of [undefined, null, -1, 'soon', Number.NaN, {}])
      expect(await retentionDays(withSetting(unusable), 365)).to.equal(365);
    expect(await retentionDays({}, 90), 'no settings store (setup plugin disabled)').to.equal(90);
  });
});
