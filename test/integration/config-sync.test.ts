import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import { as, dataOf, errorOf } from '../helpers/content.js';
import { fixturePlugin, responseCookie, startTestKernel, useTestKernel, type TestKernelOptions } from '../helpers/kernel.js';
import { DB_VARIANTS, REDIS_URL } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const sha = (data: unknown) => createHash('sha256').update(stringify(data)!).digest('hex');

for (const variant of DB_VARIANTS) {
  const cache = variant.name === 'mariadb' && REDIS_URL ? 'redis' : 'memory';
  describe(`configuration promotion /api/config (${variant.name}, cache ${cache})`, function () {
    this.timeout(120000);
    const admin = () => as(t, 'admin');
    const folder = () => join(t.dataDir, 'config', 'sync');
    const fileOf = (type: string, name: string) => join(folder(), type, `${encodeURIComponent(name)}.json`);
    const readSync = (type: string, name: string) => JSON.parse(readFileSync(fileOf(type, name), 'utf8'));
    /** Writes a sync file with a correct checksum (as an export from another environment would). */
    const writeSync = (
      type: string,
      name: string,
      data: Record<string, unknown>,
      uuid = `00000000-0000-4000-8000-${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`,
      externalId?: string,
    ) =>
      writeFileSync(
        fileOf(type, name),
        JSON.stringify({ uuid, type, name, checksum: sha(data), data, ...(externalId ? { externalId } : {}) }, null, 2),
      );
    const Role = () => t.kernel.container.resolve<Record<string, any>>('models').Role;
    const plan = async (body: Record<string, unknown>) => dataOf(await admin().post('/api/config/plan', body));
    const status = async () => dataOf(await admin().get('/api/config/status'));
    const exportAll = async () => dataOf(await admin().post('/api/config/export', {}));

    /** A set-up instance (headless, with the seed admin) on the variant's database and cache. */
    const options: TestKernelOptions = {
      db: variant.name,
      cache,
      setup: true,
      plugins: [fixturePlugin('test-identity')],
      config: {
        plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'seed@example.com', password: PASSWORD } } } },
      },
    };
    const t = useTestKernel(options, { variant });

    it('lists the resource types with their counts', async function () {
      const data = await dataOf(await admin().get('/api/config/resources'));
      const byType = Object.fromEntries(data.resources.map((r: any) => [r.type, r]));
      expect(Object.keys(byType)).to.deep.equal(['locale', 'component', 'collection', 'role', 'theme', 'setting', 'dashboard']);
      expect(byType.locale.count).to.equal(1);
      expect(byType.component.count).to.equal(0);
      expect(byType.role.count).to.equal(4);
      expect(byType.theme.count).to.equal(1);
      expect(byType.dashboard.count).to.equal(1);
      expect(byType.setting.count).to.be.greaterThan(15);
      expect(byType.collection.applied).to.equal(true);
      expect(data.path).to.equal(folder());
    });

    it('export writes one file per resource with a stable uuid and a canonical checksum, never a private setting', async function () {
      const first = await exportAll();
      expect(first.path).to.equal(folder());
      const resources = (await dataOf(await admin().get('/api/config/resources'))).resources as Array<{ count: number }>;
      expect(first.written).to.equal(resources.reduce((n, r) => n + r.count, 0));
      const editor = readSync('role', 'editor');
      expect(editor).to.have.keys('uuid', 'type', 'name', 'externalId', 'checksum', 'data');
      expect(editor).to.include({ type: 'role', name: 'editor', externalId: 'editor' });
      expect(editor.checksum).to.equal(sha(editor.data));
      expect(editor.data.permissions).to.include('content:read');
      expect(readSync('dashboard', 'default-layout').data.widgets).to.be.an('array');
      expect(readSync('setting', 'SITE_NAME').data).to.deep.equal({ value: 'My CMS' });
      for (const secret of ['SMTP_PASSWORD', 'MEDIA_SECRET_ACCESS_KEY', 'OIDC_CLIENT_SECRET', 'BACKUP_ENCRYPTION_KEY', 'LICENSE_KEY']) {
        expect(existsSync(fileOf('setting', secret)), secret).to.equal(false);
      }
      const bytes = readFileSync(fileOf('role', 'editor'), 'utf8');
      const again = await exportAll();
      expect(again.written).to.equal(first.written);
      expect(readFileSync(fileOf('role', 'editor'), 'utf8')).to.equal(bytes);
      const st = await status();
      expect(st.inSync).to.equal(true);
      expect(st.summary).to.include({ changed: 0, onlyInDatabase: 0, onlyInFiles: 0 });
      expect(st.summary.same).to.equal(first.written);
    });

    it('export keeps the uuid of an existing file and removes files of resources no longer in the database', async function () {
      const uuid = readSync('role', 'viewer').uuid;
      writeSync('role', 'ghost', { description: 'not in the database', permissions: [] });
      await exportAll();
      expect(readSync('role', 'viewer').uuid).to.equal(uuid);
      expect(existsSync(fileOf('role', 'ghost'))).to.equal(false);
      const audit = t.kernel.container.resolve<{ list(f: object): Promise<{ items: any[] }> }>('audit');
      const last = (await audit.list({ limit: 1 })).items[0];
      expect(last).to.include({ domain: 'config', operation: 'export', outcome: 'success' });
      expect(last.summary.deleted).to.equal(1);
    });

    it('status reports drift after a change in the database and in a file; the deprecated aliases answer the same', async function () {
      await Role().update({ description: 'Changed in the database' }, { where: { tenant_id: 'default', name: 'viewer' } });
      const editor = readSync('role', 'editor');
      writeSync('role', 'editor', { ...editor.data, description: 'Changed in the file' }, editor.uuid);
      writeSync('role', 'reviewer', { description: 'Reviews', permissions: ['content:read'] });
      await Role().create({ tenant_id: 'default', name: 'temp', description: 'Temporary', permissions: '[]' });
      const st = await status();
      expect(st.inSync).to.equal(false);
      expect(st.summary).to.include({ changed: 2, onlyInDatabase: 1, onlyInFiles: 1 });
      const state = (name: string) => st.items.find((i: any) => i.type === 'role' && i.name === name)?.state;
      expect([state('viewer'), state('editor'), state('temp'), state('reviewer'), state('admin')]).to.deep.equal([
        'changed',
        'changed',
        'onlyInDatabase',
        'onlyInFiles',
        'same',
      ]);
      for (const alias of ['/api/config_sync', '/api/config-sync']) {
        const res = await admin().get(alias);
        expect(res.headers.get('deprecation'), alias).to.equal('true');
        expect(res.headers.get('link')).to.contain('/api/config/status');
        expect(await dataOf(res)).to.deep.equal(st);
      }
      // Back to the database's viewer, so the plans below see one change per state.
      await Role().update({ description: 'Reads content and media' }, { where: { tenant_id: 'default', name: 'viewer' } });
      const viewer = readSync('role', 'viewer');
      writeSync('role', 'viewer', { ...viewer.data, description: 'Reads content and media' }, viewer.uuid);
    });

    it('plans each mode with exact counts and dependency order, changing nothing', async function () {
      const before = await status();
      const add = await plan({ mode: 'add', types: ['role'] });
      expect(add).to.include({ domain: 'config', mode: 'add', requiresConfirmation: false });
      expect(add.summary).to.deep.equal({ created: 1, updated: 0, deleted: 0, skipped: 1, failed: 0 });
      const merge = await plan({});
      expect(merge.mode).to.equal('merge');
      expect(merge.summary).to.deep.equal({ created: 1, updated: 1, deleted: 0, skipped: 0, failed: 0 });
      expect(merge.operations.map((o: any) => `${o.action}:${o.type}:${o.target}`)).to.deep.equal([
        'create:role:reviewer',
        'update:role:editor',
      ]);
      const mirror = await plan({ mode: 'mirror', types: ['role'] });
      expect(mirror).to.include({ risk: 'destructive', requiresConfirmation: true });
      expect(mirror.summary).to.deep.equal({ created: 1, updated: 1, deleted: 1, skipped: 0, failed: 0 });
      expect(mirror.operations.at(-1)).to.include({ action: 'delete', target: 'temp' });
      // replace: every role is dropped first and created again, but admin (users hold it) is kept.
      const replace = await plan({ mode: 'replace', types: ['role'] });
      expect(replace.summary).to.deep.equal({ created: 4, updated: 0, deleted: 4, skipped: 0, failed: 0 });
      expect(replace.operations.slice(0, 4).every((o: any) => o.action === 'delete')).to.equal(true);
      expect(replace.operations.map((o: any) => o.target)).to.not.include('admin');
      expect(await status()).to.deep.equal(before);
    });

    it('400 for bad bodies and 403 for a role without config:write', async function () {
      expect(await errorOf(await admin().post('/api/config/plan', { mode: 'wipe' }), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await admin().post('/api/config/plan', { types: ['users'] }), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await admin().post('/api/config/apply', {}), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await admin().post('/api/config/apply', { planId: 'x', confirmed: 'yes' }), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await admin().post('/api/config/apply', { confirmed: true }), 400)).to.equal('VALIDATION_ERROR');
      expect(await errorOf(await admin().post('/api/config/export', { types: 'role' }), 400)).to.equal('VALIDATION_ERROR');
      for (const path of ['/api/config/plan', '/api/config/apply', '/api/config/export']) {
        expect(await errorOf(await as(t, 'editor').post(path, {}), 403), path).to.equal('FORBIDDEN');
      }
      for (const path of ['/api/config/status', '/api/config/resources', '/api/config/history', '/api/config_sync', '/api/config-sync']) {
        expect(await errorOf(await as(t, 'editor').get(path), 403), path).to.equal('FORBIDDEN');
        expect(await errorOf(await t.request(path), 401), path).to.equal('AUTHENTICATION_REQUIRED');
      }
      expect(
        await errorOf(await admin().post('/api/config/apply', { planId: '00000000-0000-4000-8000-000000000000', confirmed: true }), 404),
      ).to.equal('PLAN_NOT_FOUND');
    });

    it('refuses a stale plan after a database change between plan and apply', async function () {
      const p = await plan({ mode: 'merge' });
      await Role().update({ description: 'Changed meanwhile' }, { where: { tenant_id: 'default', name: 'temp' } });
      expect(
        await errorOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: true, planHash: p.planHash }), 409),
      ).to.equal('PLAN_STALE');
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'reviewer' } })).to.equal(null);
    });

    it('applies a merge plan: creates and updates, deletes nothing, and verify finds the database equal to the files', async function () {
      const p = await plan({ mode: 'merge' });
      const done = await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false, planHash: p.planHash }));
      expect(done).to.include({ planId: p.planId, outcome: 'success' });
      expect(done.summary).to.deep.equal({ created: 1, updated: 1, deleted: 0, skipped: 0, failed: 0 });
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect((await Role().findOne({ where: { tenant_id: 'default', name: 'editor' } })).description).to.equal('Changed in the file');
      expect(JSON.parse((await Role().findOne({ where: { tenant_id: 'default', name: 'reviewer' } })).permissions)).to.deep.equal([
        'content:read',
      ]);
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'temp' } })).to.not.equal(null);
      const st = await status();
      expect(st.summary).to.include({ changed: 0, onlyInDatabase: 1, onlyInFiles: 0 });
      // The inline apply is in the history (before issue 32 only background jobs were listed: empty here).
      const history = await dataOf(await admin().get('/api/config/history'));
      const listed = history.jobs.filter((j: any) => j.planId === p.planId);
      expect(listed).to.have.length(1);
      expect(listed[0]).to.deep.include({
        jobId: null,
        inline: true,
        planId: p.planId,
        mode: 'merge',
        domain: 'config',
        status: 'completed',
        outcome: 'success',
        summary: { created: 1, updated: 1, deleted: 0, skipped: 0, failed: 0 },
        progress: { processed: 2, total: 2 },
      });
      expect(Date.parse(listed[0].completedAt)).to.be.at.least(Date.parse(listed[0].createdAt));
      // The audit route shows the spec's audit-entry fields of that apply.
      const audit = await dataOf(await admin().get('/api/dashboard/audit?limit=100'));
      const entry = audit.find((e: any) => e.planId === p.planId && e.operation === 'apply');
      expect(entry, JSON.stringify(audit.slice(0, 3))).to.not.equal(undefined);
      expect(entry).to.deep.include({
        domain: 'config',
        operation: 'apply',
        planId: p.planId,
        mode: 'merge',
        outcome: 'success',
        summary: { created: 1, updated: 1, deleted: 0, skipped: 0, failed: 0 },
        actor: { userId: entry.userId, tenantId: 'default' },
      });
      expect(entry.previousHash).to.match(/^[0-9a-f]{64}$/);
      expect(entry.currentHash).to.match(/^[0-9a-f]{64}$/);
      expect(entry.currentHash).to.not.equal(entry.previousHash);
      // The chain shows: each entry links to the one before it (newest first).
      const index = audit.indexOf(entry);
      if (audit[index + 1]) expect(entry.previousHash).to.equal(audit[index + 1].currentHash);
      // Another tenant's admin sees neither the apply nor its audit entry.
      expect((await dataOf(await as(t, 'admin', 'other').get('/api/config/history'))).jobs).to.deep.equal([]);
      const otherAudit = await dataOf(await as(t, 'admin', 'other').get('/api/dashboard/audit?limit=100'));
      expect(otherAudit.filter((e: any) => e.planId === p.planId)).to.deep.equal([]);
    });

    it('a mirror plan needs confirmation (409 CONFIRMATION_REQUIRED), then deletes what is only in the database', async function () {
      const p = await plan({ mode: 'mirror' });
      expect(p.summary).to.deep.equal({ created: 0, updated: 0, deleted: 1, skipped: 0, failed: 0 });
      expect(await errorOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }), 409)).to.equal(
        'CONFIRMATION_REQUIRED',
      );
      const done = await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: true, planHash: p.planHash }));
      expect(done.outcome).to.equal('success');
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'temp' } })).to.equal(null);
      expect((await status()).inSync).to.equal(true);
    });

    it('keeps built-in resources a mirror would delete (the active theme, admin) as warnings and skips', async function () {
      const theme = readdirSync(join(folder(), 'theme'))[0]!;
      const themeFile = join(folder(), 'theme', theme);
      const themeBody = readFileSync(themeFile, 'utf8');
      const adminFile = readFileSync(fileOf('role', 'admin'), 'utf8');
      rmSync(themeFile);
      rmSync(fileOf('role', 'admin'));
      try {
        const p = await plan({ mode: 'mirror', types: ['role', 'theme'] });
        expect(p.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 2, failed: 0 });
        expect(p.warnings.map((w: any) => w.item)).to.include.members(['role:admin', 'theme:Default']);
      } finally {
        writeFileSync(themeFile, themeBody);
        writeFileSync(fileOf('role', 'admin'), adminFile);
      }
    });

    it('a tampered file blocks the plan (400 PLAN_BLOCKED on apply) and shows as drift', async function () {
      const viewer = readSync('role', 'viewer');
      const original = readFileSync(fileOf('role', 'viewer'), 'utf8');
      writeFileSync(fileOf('role', 'viewer'), JSON.stringify({ ...viewer, data: { ...viewer.data, permissions: ['config:write'] } }));
      try {
        const p = await plan({});
        expect(p.blockedReasons).to.have.length(1);
        expect(p.blockedReasons[0]).to.contain('role/viewer.json').and.contain('checksum');
        expect(await errorOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: true }), 400)).to.equal('PLAN_BLOCKED');
        expect((await status()).summary.changed).to.equal(1);
        expect(JSON.parse((await Role().findOne({ where: { tenant_id: 'default', name: 'viewer' } })).permissions)).to.not.include(
          'config:write',
        );
      } finally {
        writeFileSync(fileOf('role', 'viewer'), original);
      }
    });

    it('accepts a file edited by hand when its checksum is removed, with a warning', async function () {
      const viewer = readSync('role', 'viewer');
      const original = readFileSync(fileOf('role', 'viewer'), 'utf8');
      writeFileSync(
        fileOf('role', 'viewer'),
        JSON.stringify({ ...viewer, checksum: null, data: { ...viewer.data, description: 'Reads, edited by hand' } }),
      );
      try {
        const p = await plan({ mode: 'merge' });
        expect(p.blockedReasons).to.deep.equal([]);
        expect(p.risk).to.equal('warning');
        expect(p.warnings.map((w: { message: string }) => w.message).join('\n')).to.contain('role/viewer.json was edited by hand');
        expect(p.summary.updated).to.equal(1);
        expect((await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }))).outcome).to.equal('success');
        expect((await Role().findOne({ where: { tenant_id: 'default', name: 'viewer' } })).description).to.equal('Reads, edited by hand');
      } finally {
        writeFileSync(fileOf('role', 'viewer'), original);
        const back = await plan({ mode: 'merge', types: ['role'] });
        await dataOf(await admin().post('/api/config/apply', { planId: back.planId, confirmed: false }));
      }
    });

    it("no warning for the guest role's read grant the Public access switch wrote; other unknown permissions still warn", async function () {
      await dataOf(
        await admin().post('/api/collections', { name: 'notices', fields: [{ name: 'title', type: 'text', required: true }] }),
        201,
      );
      const put = await t.request('/api/collections/notices/public-access', { method: 'PUT', identity: 'admin', json: { public: true } });
      expect(put.status, await put.clone().text()).to.equal(200);
      await exportAll();
      expect(readSync('role', 'guest').data.permissions).to.include('content:read:notices');
      const messages = async () => (await plan({ mode: 'merge' })).warnings.map((w: { message: string }) => w.message) as string[];
      expect(
        (await messages()).filter((m) => m.includes("Role 'guest'")),
        'the switch of an existing collection',
      ).to.deep.equal([]);

      const guest = readSync('role', 'guest');
      const original = readFileSync(fileOf('role', 'guest'), 'utf8');
      writeSync(
        'role',
        'guest',
        { ...guest.data, permissions: [...guest.data.permissions, 'content:read:no_such_collection', 'content:launch'] },
        guest.uuid,
      );
      try {
        expect((await messages()).filter((m) => m.includes("Role 'guest'"))).to.deep.equal([
          "Role 'guest' names permissions this instance does not know: content:read:no_such_collection, content:launch",
        ]);
      } finally {
        writeFileSync(fileOf('role', 'guest'), original);
      }
    });

    it('applies settings, the dashboard layout and themes from files (replace of themes keeps the active one)', async function () {
      const site = readSync('setting', 'SITE_NAME');
      writeSync('setting', 'SITE_NAME', { value: 'Promoted' }, site.uuid);
      const layout = readSync('dashboard', 'default-layout');
      writeSync('dashboard', 'default-layout', { widgets: ['system-health'] }, layout.uuid);
      const current = JSON.parse(readFileSync(join(folder(), 'theme', readdirSync(join(folder(), 'theme'))[0]!), 'utf8'));
      writeSync('theme', 'Promoted theme', { config: current.data.config, presetSource: null });
      const p = await plan({ mode: 'merge' });
      expect(p.summary).to.deep.equal({ created: 1, updated: 2, deleted: 0, skipped: 0, failed: 0 });
      expect(p.operations.map((o: any) => o.type)).to.deep.equal(['theme', 'setting', 'dashboard']);
      const done = await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }));
      expect(done.outcome, JSON.stringify(done)).to.equal('success');
      const settings = t.kernel.container.resolve<{ get(key: string): Promise<unknown> }>('settings');
      expect(await settings.get('SITE_NAME')).to.equal('Promoted');
      expect(await settings.get('DASHBOARD_DEFAULT_WIDGETS')).to.deep.equal(['system-health']);
      const themes = await dataOf(await admin().get('/api/theme/list'));
      expect(themes.map((th: any) => th.name).sort()).to.deep.equal(['Default', 'Promoted theme']);
      expect((await status()).inSync).to.equal(true);
      // replace of the themes: the active Default is kept (updated in place), the other dropped and created again.
      const r = await plan({ mode: 'replace', types: ['theme'] });
      expect(r.summary).to.deep.equal({ created: 1, updated: 0, deleted: 1, skipped: 0, failed: 0 });
      const replaced = await dataOf(await admin().post('/api/config/apply', { planId: r.planId, confirmed: true }));
      expect(replaced.outcome).to.equal('success');
      expect(replaced.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect((await status()).inSync).to.equal(true);
    });

    it('runs an apply of 100 or more entities as a job (202), tracked by GET /api/config/history?jobId=', async function () {
      for (let i = 0; i < 100; i++)
        writeSync('role', `bulk-${String(i).padStart(3, '0')}`, { description: `Bulk ${i}`, permissions: ['content:read'] });
      const p = await plan({ types: ['role'] });
      expect(p.summary).to.deep.equal({ created: 100, updated: 0, deleted: 0, skipped: 0, failed: 0 });
      const queued = await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }), 202);
      expect(queued).to.include({ status: 'queued' });
      let job: any;
      for (let i = 0; i < 200; i++) {
        job = (await dataOf(await admin().get(`/api/config/history?jobId=${queued.jobId}`))).jobs[0];
        if (job?.completedAt) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job).to.include({ jobId: queued.jobId, domain: 'config', status: 'completed', outcome: 'success' });
      expect(job).to.include({ planId: p.planId, inline: false });
      expect(job.summary.created).to.equal(100);
      // The whole history lists the background apply once (its audit entry does not repeat it) beside the inline ones.
      const all = (await dataOf(await admin().get('/api/config/history'))).jobs;
      expect(all.filter((j: any) => j.planId === p.planId).map((j: any) => j.jobId)).to.deep.equal([queued.jobId]);
      expect(all[0].planId, 'newest first').to.equal(p.planId);
      expect(all.filter((j: any) => j.inline).length).to.be.at.least(2);
      expect(await Role().count({ where: { tenant_id: 'default' } })).to.equal(105);
      expect((await status()).inSync).to.equal(true);
    });

    it('a role change applied from files reaches signed-in users at once (their cached sessions are dropped after commit)', async function () {
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      await users.create({ email: 'reviewer@example.com', password: PASSWORD, role: 'reviewer' });
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'reviewer@example.com', password: PASSWORD } });
      const cookie = responseCookie(login)!;
      expect(cookie, await login.text()).to.be.a('string');
      const statusAsReviewer = () => t.request('/api/config/status', { headers: { cookie } });
      expect((await statusAsReviewer()).status).to.equal(403);
      const reviewer = readSync('role', 'reviewer');
      writeSync('role', 'reviewer', { ...reviewer.data, permissions: ['config:read', 'content:read'] }, reviewer.uuid);
      const p = await plan({ types: ['role'] });
      expect(p.summary).to.deep.equal({ created: 0, updated: 1, deleted: 0, skipped: 0, failed: 0 });
      expect((await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }))).outcome).to.equal('success');
      expect((await statusAsReviewer()).status).to.equal(200);
      // A role some user holds is kept by mirror (warning + skip).
      rmSync(fileOf('role', 'reviewer'));
      const mirror = await plan({ mode: 'mirror', types: ['role'] });
      expect(mirror.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 1, failed: 0 });
      expect(mirror.warnings.map((w: any) => w.item)).to.include('role:reviewer');
    });

    it('matches a renamed resource by syncId, then by external id, and updates it in place', async function () {
      const uuid = '11111111-1111-4111-8111-111111111111';
      writeSync('role', 'writers', { description: 'Writers', permissions: ['content:read'] }, uuid, 'src-writers');
      const created = await plan({ types: ['role'] });
      expect(created.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['create:writers']);
      expect((await dataOf(await admin().post('/api/config/apply', { planId: created.planId, confirmed: false }))).outcome).to.equal(
        'success',
      );
      // The source renamed writers to authors: same syncId, new name.
      rmSync(fileOf('role', 'writers'));
      writeSync('role', 'authors', { description: 'Writers', permissions: ['content:read'] }, uuid, 'src-writers');
      const renamed = await plan({ types: ['role'] });
      expect(renamed.blockedReasons).to.deep.equal([]);
      expect(renamed.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['update:authors']);
      expect((await dataOf(await admin().post('/api/config/apply', { planId: renamed.planId, confirmed: false }))).outcome).to.equal(
        'success',
      );
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'writers' } })).to.equal(null);
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'authors' } })).to.not.equal(null);
      // Another export of the source gave a new uuid: the external id still finds the resource.
      rmSync(fileOf('role', 'authors'));
      writeSync('role', 'authors', { description: 'Authors', permissions: ['content:read'] }, undefined, 'src-writers');
      const byExternal = await plan({ types: ['role'] });
      expect(byExternal.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['update:authors']);
      expect((await dataOf(await admin().post('/api/config/apply', { planId: byExternal.planId, confirmed: false }))).outcome).to.equal(
        'success',
      );
    });

    it('a file with several candidates is a warning and blocks until a mapping resolves it; a mapping to a missing resource is 400', async function () {
      // The source renamed its writers (here: authors) to curators, but this database has another curators role.
      await Role().create({ tenant_id: 'default', name: 'curators', description: 'Local curators', permissions: '[]' });
      const authors = readSync('role', 'authors');
      rmSync(fileOf('role', 'authors'));
      writeSync('role', 'curators', { description: 'Curators', permissions: ['content:read'] }, undefined, authors.externalId);
      const blocked = await plan({ types: ['role'] });
      expect(blocked.blockedReasons.join('\n')).to.contain('role/curators.json').and.contain('needs a mapping');
      const warning = blocked.warnings.find((w: any) => w.item === 'role:curators');
      expect(warning.message).to.contain("'authors' (by externalId)").and.contain("'curators' (by name)");
      expect(await errorOf(await admin().post('/api/config/apply', { planId: blocked.planId, confirmed: true }), 400)).to.equal(
        'PLAN_BLOCKED',
      );
      const missing = await admin().post('/api/config/plan', { types: ['role'], mappings: { 'role/curators.json': 'nope' } });
      const body = (await missing.json()) as { error: string; message: string };
      expect(missing.status).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(body.message).to.contain('role/curators.json');
      expect(
        await errorOf(await admin().post('/api/config/plan', { types: ['role'], mappings: { 'role/none.json': null } }), 400),
      ).to.equal('VALIDATION_ERROR');
      // Resolved: the file is the local curators role; authors stays as it is.
      const resolved = await plan({ types: ['role'], mappings: { 'role/curators.json': 'curators' } });
      expect(resolved.blockedReasons).to.deep.equal([]);
      expect(resolved.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['update:curators']);
      const done = await dataOf(await admin().post('/api/config/apply', { planId: resolved.planId, confirmed: false }));
      expect(done.outcome).to.equal('success');
      expect((await Role().findOne({ where: { tenant_id: 'default', name: 'curators' } })).description).to.equal('Curators');
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'authors' } })).to.not.equal(null);
    });

    it('a mapping to null creates the file as a new resource instead of the match', async function () {
      const curators = readSync('role', 'curators');
      // A file carrying the curators' syncId under a new name would rename curators; null makes it new.
      writeSync('role', 'stewards', { description: 'Stewards', permissions: [] }, curators.uuid);
      rmSync(fileOf('role', 'curators'));
      const rename = await plan({ types: ['role'] });
      expect(rename.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['update:stewards']);
      const p = await plan({ types: ['role'], mappings: { 'role/stewards.json': null } });
      expect(p.operations.map((o: any) => `${o.action}:${o.target}`)).to.deep.equal(['create:stewards']);
      expect((await dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed: false }))).outcome).to.equal('success');
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'stewards' } })).to.not.equal(null);
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'curators' } })).to.not.equal(null);
      // From now on the stewards role carries that syncId: the same files plan nothing for it.
      const again = await plan({ types: ['role'] });
      expect(again.operations.map((o: any) => o.target)).to.not.include('stewards');
    });

    const schemaOf = async (name: string) => {
      const res = await admin().get(`/api/collections/${name}/schema`);
      return res.status === 200 ? dataOf(res) : null;
    };
    const ops = (p: any) => p.operations.map((o: any) => `${o.action}:${o.type}:${o.target}`);
    const apply = async (p: any, confirmed = false) =>
      dataOf(await admin().post('/api/config/apply', { planId: p.planId, confirmed, planHash: p.planHash }));

    it('applies collection schemas outside the transaction: a new file creates the collection, an added field updates it; both accept entries', async function () {
      writeSync('collection', 'promos', { label: 'Promos', singular: 'promo', fields: [{ name: 'title', type: 'text', required: true }] });
      const created = await plan({ types: ['collection'] });
      expect(ops(created)).to.deep.equal(['create:collection:promos']);
      expect(created.blockedReasons).to.deep.equal([]);
      const done = await apply(created);
      expect(done).to.include({ outcome: 'success' });
      expect(done.summary).to.deep.equal({ created: 1, updated: 0, deleted: 0, skipped: 0, failed: 0 });
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      const schema = await schemaOf('promos');
      expect(schema.fields.map((f: any) => f.name)).to.deep.equal(['title']);
      expect((await admin().post('/api/collections/promos', { title: 'First' })).status).to.equal(201);
      expect((await status()).items.find((i: any) => i.type === 'collection' && i.name === 'promos').state).to.equal('same');

      // An added field and a new label: an update the collections service allows.
      const file = readSync('collection', 'promos');
      const fields = [...file.data.fields, { name: 'body', type: 'richtext' }];
      writeSync('collection', 'promos', { ...file.data, label: 'Promotions', fields }, file.uuid);
      const updated = await plan({ types: ['collection'] });
      expect(ops(updated)).to.deep.equal(['update:collection:promos']);
      const again = await apply(updated);
      expect(again).to.include({ outcome: 'success' });
      expect(again.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect((await schemaOf('promos')).label).to.equal('Promotions');
      expect((await admin().post('/api/collections/promos', { title: 'Second', body: '<p>Hi</p>' })).status).to.equal(201);

      // A field type change is refused by the collections service: the plan is blocked with a clear reason.
      const changed = readSync('collection', 'promos');
      writeSync(
        'collection',
        'promos',
        { ...changed.data, fields: [{ name: 'title', type: 'number' }, changed.data.fields[1]] },
        changed.uuid,
      );
      const blocked = await plan({ types: ['collection'] });
      expect(blocked.blockedReasons.join('\n')).to.contain("field 'title' would change its type (text -> number)");
      expect(await errorOf(await admin().post('/api/config/apply', { planId: blocked.planId, confirmed: false }), 400)).to.equal(
        'PLAN_BLOCKED',
      );
      writeSync('collection', 'promos', changed.data, changed.uuid);
    });

    it('promotes components before the collections that use them; the promoted component validates entries and exports again', async function () {
      writeSync('component', 'badge', { label: 'Badge', fields: [{ name: 'text', type: 'text', required: true }] });
      writeSync('collection', 'badged', {
        label: 'Badged',
        singular: 'badged_item',
        fields: [{ name: 'badge', type: 'component', component: 'badge' }],
      });
      const created = await plan({ types: ['component', 'collection'] });
      expect(created.blockedReasons).to.deep.equal([]);
      expect(ops(created).filter((o: string) => o.includes('badge'))).to.deep.equal(['create:component:badge', 'create:collection:badged']);
      const done = await apply(created);
      expect(done).to.include({ outcome: 'success' });
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      const refused = await admin().post('/api/collections/badged', { badge: {} });
      expect(refused.status).to.equal(400);
      expect(JSON.stringify(await refused.json())).to.include('body.badge.text');
      expect((await admin().post('/api/collections/badged', { badge: { text: 'New' } })).status).to.equal(201);
      // A changed component file updates it; a rename is refused.
      const file = readSync('component', 'badge');
      writeSync('component', 'badge', { ...file.data, fields: [...file.data.fields, { name: 'tone', type: 'color' }] }, file.uuid);
      const updated = await plan({ types: ['component'] });
      expect(ops(updated)).to.deep.equal(['update:component:badge']);
      expect(await apply(updated)).to.include({ outcome: 'success' });
      expect((await dataOf(await admin().get('/api/components/badge'))).fields.map((f: any) => f.name)).to.deep.equal(['text', 'tone']);
      expect((await status()).items.find((i: any) => i.type === 'component' && i.name === 'badge').state).to.equal('same');
      // A file that removes a field of the component in use (or changes its type) is blocked: promotion never drops values.
      const now = readSync('component', 'badge');
      writeSync('component', 'badge', { ...now.data, fields: [{ name: 'text', type: 'number' }] }, now.uuid);
      const lossy = await plan({ types: ['component'] });
      expect(lossy.blockedReasons.join(' ')).to.match(
        /Component 'badge' \(it is used by collection 'badged'\): field 'text' would change its type/,
      );
      writeSync('component', 'badge', { ...now.data, fields: [now.data.fields[0]] }, now.uuid);
      expect((await plan({ types: ['component'] })).blockedReasons.join(' ')).to.match(/removes the field\(s\) tone/);
      writeSync('component', 'badge', now.data, now.uuid);
      expect(await dataOf(await admin().get('/api/collections/badged'))).to.have.nested.property('items[0].badge.text', 'New');
    });

    it('promotes the locale list as one resource, checked for cycles, and exports it again', async function () {
      await exportAll();
      const file = readSync('locale', 'locales');
      expect(file.data).to.deep.equal({ locales: [{ code: 'en', name: 'English', isDefault: true, fallback: null }] });
      const wanted = [
        { code: 'en', name: 'English', isDefault: true, fallback: null },
        { code: 'de', name: 'Deutsch', isDefault: false, fallback: null },
        { code: 'de-AT', name: 'Österreichisch', isDefault: false, fallback: 'de' },
      ];
      // A cycle (de -> de-AT -> de) blocks the plan with the reason.
      const cyclic = wanted.map((l) => (l.code === 'de' ? { ...l, fallback: 'de-AT' } : l));
      writeSync('locale', 'locales', { locales: cyclic }, file.uuid);
      expect((await plan({ types: ['locale'] })).blockedReasons.join(' ')).to.match(/cycle/);
      writeSync('locale', 'locales', { locales: wanted }, file.uuid);
      const p = await plan({ types: ['locale'] });
      expect(ops(p)).to.deep.equal(['update:locale:locales']);
      expect(await apply(p)).to.include({ outcome: 'success' });
      expect(await dataOf(await admin().get('/api/locales'))).to.deep.equal(wanted);
      expect((await status()).items.find((i: any) => i.type === 'locale').state).to.equal('same');
      // Back to the installation's own list (the other tests expect en only).
      writeSync('locale', 'locales', file.data, file.uuid);
      expect(await apply(await plan({ types: ['locale'] }))).to.include({ outcome: 'success' });
      expect((await dataOf(await admin().get('/api/locales'))).map((l: any) => l.code)).to.deep.equal(['en']);
    });

    it('a failure later in the plan (in the transaction) removes the collection the outside step created: outcome rollback', async function () {
      writeSync('collection', 'flyers', { label: 'Flyers', singular: 'flyer', fields: [{ name: 'headline', type: 'text' }] });
      writeSync('role', 'flyer-editor', { description: 'Edits flyers', permissions: ['content:read'] });
      // Fault injection: the role step fails inside the apply transaction, after the collection was created outside it.
      const roleAdapter = t.kernel.container.resolve<any>('configSync').adapter('role');
      const create = roleAdapter.create;
      roleAdapter.create = async () => {
        throw new Error('injected failure in the transaction');
      };
      try {
        const p = await plan({ types: ['collection', 'role'] });
        expect(ops(p)).to.include.members(['create:collection:flyers', 'create:role:flyer-editor']);
        const done = await apply(p);
        expect(done.outcome).to.equal('rollback');
        expect(done.error.code).to.equal('DATA_OPERATION_FAILED');
      } finally {
        roleAdapter.create = create;
      }
      expect(await schemaOf('flyers')).to.equal(null);
      expect((await admin().post('/api/collections/flyers', { headline: 'x' })).status).to.equal(404);
      expect(await Role().findOne({ where: { tenant_id: 'default', name: 'flyer-editor' } })).to.equal(null);
      // The same files apply once nothing fails.
      const p = await plan({ types: ['collection', 'role'] });
      expect((await apply(p)).outcome).to.equal('success');
      expect((await schemaOf('flyers')).fields.map((f: any) => f.name)).to.deep.equal(['headline']);
      rmSync(fileOf('role', 'flyer-editor'));
    });

    it('mirror deletes an empty collection only in the database and keeps one with entries (warning + skip)', async function () {
      rmSync(fileOf('collection', 'promos'));
      rmSync(fileOf('collection', 'flyers'));
      const p = await plan({ types: ['collection'], mode: 'mirror' });
      expect(ops(p)).to.deep.equal(['delete:collection:flyers', 'skip:collection:promos']);
      const kept = p.warnings.find((w: any) => w.item === 'collection:promos');
      expect(kept.message).to.contain('2 entries');
      const done = await apply(p, true);
      expect(done.outcome).to.equal('success');
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(await schemaOf('flyers')).to.equal(null);
      expect((await schemaOf('promos')).fields.map((f: any) => f.name)).to.deep.equal(['title', 'body']);
    });

    it('promotes between two instances through a bundle: download on A, upload + plan + apply on B, B in sync with it', async function () {
      await Role().create({ tenant_id: 'default', name: 'bundled', description: 'From A', permissions: '["content:read"]' });
      const download = await admin().get('/api/config/bundle');
      expect(download.status).to.equal(200);
      expect(download.headers.get('content-disposition')).to.contain('attachment');
      const bundle = (await download.json()) as { format: string; files: any[] };
      expect(bundle.format).to.equal('cms-config-bundle');
      const bundled = bundle.files.find((f) => f.type === 'role' && f.name === 'bundled');
      expect(bundled).to.include({ externalId: 'bundled', checksum: sha(bundled.data) });
      expect(bundle.files.some((f) => f.type === 'setting' && f.name === 'SMTP_PASSWORD')).to.equal(false);
      const b = await startTestKernel(options);
      try {
        const upload = async (body: string) => {
          const form = new FormData();
          form.append('file', new Blob([body], { type: 'application/json' }), 'config-bundle.json');
          return b.request('/api/config/bundle', { method: 'POST', identity: 'admin', body: form });
        };
        expect(await errorOf(await upload('{not json'), 400)).to.equal('VALIDATION_ERROR');
        expect(await errorOf(await upload('{"files": 3}'), 400)).to.equal('VALIDATION_ERROR');
        const tampered = structuredClone(bundle);
        tampered.files.find((f) => f.name === 'bundled').data.permissions = ['config:write'];
        const bad = await dataOf(await upload(JSON.stringify(tampered)));
        expect(bad.valid).to.equal(false);
        expect(bad.problems[0].problem).to.contain('checksum');
        const badPlan = await dataOf(await as(b, 'admin').post('/api/config/plan', { uploadId: bad.uploadId }));
        expect(badPlan.blockedReasons.join()).to.contain('bundle:role/bundled.json');
        const up = await dataOf(await upload(JSON.stringify(bundle)));
        expect(up).to.include({ valid: true, files: bundle.files.length });
        expect(await errorOf(await as(b, 'admin').post('/api/config/plan', { uploadId: 'nope' }), 400)).to.equal('VALIDATION_ERROR');
        const before = await dataOf(await as(b, 'admin').get(`/api/config/status?uploadId=${up.uploadId}`));
        expect(before.inSync).to.equal(false);
        const p = await dataOf(await as(b, 'admin').post('/api/config/plan', { uploadId: up.uploadId, mode: 'mirror' }));
        expect(p.blockedReasons).to.deep.equal([]);
        expect(p.operations.map((o: any) => `${o.action}:${o.type}:${o.target}`)).to.include('create:role:bundled');
        // A holds the 100 bulk roles: the apply runs as a job.
        const queued = await dataOf(await as(b, 'admin').post('/api/config/apply', { planId: p.planId, confirmed: true }), 202);
        let job: any;
        for (let i = 0; i < 300 && !job?.completedAt; i++) {
          job = (await dataOf(await as(b, 'admin').get(`/api/config/history?jobId=${queued.jobId}`))).jobs[0];
          if (!job?.completedAt) await new Promise((r) => setTimeout(r, 100));
        }
        expect(job).to.include({ status: 'completed', outcome: 'success' });
        const after = await dataOf(await as(b, 'admin').get(`/api/config/status?uploadId=${up.uploadId}`));
        expect(after.items.filter((i: any) => i.state !== 'same')).to.deep.equal([]);
        expect(after.inSync).to.equal(true);
        // B's own bundle now carries A's syncIds, and the external ids of A.
        const fromB = (await (await b.request('/api/config/bundle', { identity: 'admin' })).json()) as { files: any[] };
        expect(fromB.files.find((f) => f.name === 'bundled').uuid).to.equal(bundled.uuid);
      } finally {
        await b.close();
      }
    });
  });
}
