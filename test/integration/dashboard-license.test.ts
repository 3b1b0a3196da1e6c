import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_ROOT } from '../../kernel/version.js';
import { daysFromNow, licenseKeyPair } from '../helpers/dashboard-fixtures.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const keys = licenseKeyPair();
const stranger = licenseKeyPair();
const SCIM = '/api/dashboard/scim';
const status = (id: string) => `/api/system/license-status?type=dashboard&id=${id}`;

for (const variant of DB_VARIANTS) {
  describe(`dashboard licence gating (${variant.name})`, function () {
    this.timeout(120000);
    const kernels: TestKernel[] = [];
    before(function () {
      requireVariant(this, variant);
    });
    after(async () => {
      for (const k of kernels) await k.close();
    });
    /** A kernel whose installation date (and optionally licence key) the test chooses. */
    async function boot(dashboard: Record<string, unknown>): Promise<TestKernel> {
      const t = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { dashboard: { licensePublicKey: keys.publicKey, ...dashboard } } } },
      });
      kernels.push(t);
      return t;
    }
    const stateOf = async (t: TestKernel, id: string, identity = 'viewer') => {
      const res = await t.request(status(id), { identity });
      expect(res.status).to.equal(200);
      return (await res.json()).data;
    };

    it('a paid widget works during the 14-day trial from installation, and says so', async function () {
      const installedAt = daysFromNow(-3);
      const t = await boot({ installedAt });
      expect((await t.request(SCIM, { identity: 'viewer' })).status).to.equal(200);
      const state = await stateOf(t, 'scim-status');
      expect(state).to.include({ widgetId: 'scim-status', license: 'paid', allowed: true, reason: 'trial' });
      // 14 days from the installation time the kernel was given: compared with that time, not with a clock read
      // after the boot (on a loaded machine the boot alone took over 5 s and the old tolerance failed).
      expect(Date.parse(state.trialEndsAt)).to.equal(Date.parse(installedAt) + 14 * 24 * 60 * 60 * 1000);
    });

    it('after the trial a paid widget answers 403 LICENSE_REQUIRED; freemium widgets keep working', async function () {
      const t = await boot({ installedAt: daysFromNow(-15) });
      const res = await t.request(SCIM, { identity: 'viewer' });
      expect(res.status).to.equal(403);
      const body = await res.json();
      expect(body).to.include({ success: false, error: 'LICENSE_REQUIRED' });
      expect(body.message).to.include('scim-status');
      expect(await stateOf(t, 'scim-status')).to.include({ allowed: false, reason: 'expired' });
      expect((await t.request('/api/dashboard/security', { identity: 'viewer' })).status).to.equal(200);
      expect(await stateOf(t, 'security')).to.include({ license: 'freemium', allowed: true, reason: 'freemium' });
      const widgets = (await (await t.request('/api/dashboard/widgets', { identity: 'viewer' })).json()).data;
      expect(widgets.find((w: any) => w.id === 'scim-status').licenseState).to.include({ allowed: false, reason: 'expired' });
      // Permission comes before the licence: no identity is still 401, no dashboard:read still 403 FORBIDDEN.
      expect((await t.request(SCIM)).status).to.equal(401);
      expect((await (await t.request(SCIM, { identity: 'nobody' })).json()).error).to.equal('FORBIDDEN');
    });

    it('a valid signed key unlocks paid widgets after the trial and names the licensee', async function () {
      const key = keys.issue({ licensee: 'Acme Ltd', issuedAt: daysFromNow(-30), expiresAt: daysFromNow(300), widgets: ['*'] });
      const t = await boot({ installedAt: daysFromNow(-60), licenseKey: key });
      expect((await t.request(SCIM, { identity: 'viewer' })).status).to.equal(200);
      expect(await stateOf(t, 'scim-status')).to.include({ allowed: true, reason: 'licensed', licensee: 'Acme Ltd' });
    });

    it('an expired key, a key for other widgets, a key signed by another vendor or a tampered key do not count', async function () {
      const bad = {
        expired: keys.issue({ licensee: 'Old', issuedAt: daysFromNow(-400), expiresAt: daysFromNow(-1) }),
        'not-covered': keys.issue({ licensee: 'Partial', issuedAt: daysFromNow(-1), widgets: ['security'] }),
        'bad-signature': stranger.issue({ licensee: 'Forger', issuedAt: daysFromNow(-1) }),
      } as Record<string, string>;
      const genuine = keys.issue({ licensee: 'Acme', issuedAt: daysFromNow(-1) });
      const [body, signature] = genuine.split('.');
      const forged = Buffer.from(JSON.stringify({ licensee: 'Mallory', issuedAt: daysFromNow(-1) })).toString('base64url');
      bad['bad-signature '] = `${forged}.${signature}`;
      bad.malformed = `${body}`;
      for (const [problem, licenseKey] of Object.entries(bad)) {
        const t = await boot({ installedAt: daysFromNow(-20), licenseKey });
        const res = await t.request(SCIM, { identity: 'viewer' });
        expect(res.status, problem).to.equal(403);
        expect((await res.json()).error).to.equal('LICENSE_REQUIRED');
        const state = await stateOf(t, 'scim-status');
        expect(state, problem).to.include({ allowed: false, reason: 'expired', keyProblem: problem.trim() });
        expect(JSON.stringify(state)).to.not.include(licenseKey);
        await kernels.pop()!.close();
      }
    });

    it('without an override the trial counts from the recorded installation, shared through the database', async function () {
      const t = await boot({});
      const state = await stateOf(t, 'scim-status');
      expect(state).to.include({ allowed: true, reason: 'trial' });
      expect(Date.parse(state.trialEndsAt)).to.be.closeTo(Date.parse(daysFromNow(14)), 60000);
      const second = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        dataDir: t.dataDir,
        dbUrl: t.dbUrl,
        config: { plugins: { options: { dashboard: { licensePublicKey: keys.publicKey } } } },
      });
      try {
        expect((await stateOf(second, 'scim-status')).trialEndsAt).to.equal(state.trialEndsAt);
      } finally {
        await second.close();
      }
    });

    it('with the setup plugin the trial starts when setup completes; the LICENSE_KEY setting is a key source', async function () {
      const t = await startTestKernel({
        db: variant.name,
        setup: true,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { auth: { bcryptRounds: 4 }, dashboard: { licensePublicKey: keys.publicKey } } } },
      });
      kernels.push(t);
      const license = t.kernel.container.resolve<{ installationTime(): Promise<number | null> }>('dashboardLicense');
      expect(await license.installationTime(), 'no trial before setup completes').to.equal(null);
      const db = t.config.db;
      const target =
        db.type === 'sqlite'
          ? { type: 'sqlite', database: db.storage }
          : { type: 'mariadb', host: db.host, port: db.port, database: db.name, username: db.user, password: db.password };
      expect((await t.request('/api/setup/seed-db', { method: 'POST', json: target })).status).to.equal(200);
      for (const deadline = Date.now() + 20000; Date.now() < deadline;) {
        if ((await (await t.request('/api/system/health')).json()).data.setup?.seeded) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const done = await t.request('/api/setup/complete', {
        method: 'POST',
        json: { email: 'admin@example.com', password: 'a long enough password' },
      });
      expect(done.status).to.equal(200);
      const completedAt = Date.now();
      await new Promise((r) => setTimeout(r, 1500));
      const state = await stateOf(t, 'scim-status');
      expect(state).to.include({ allowed: true, reason: 'trial' });
      expect(Date.parse(state.trialEndsAt)).to.be.closeTo(completedAt + 14 * 24 * 3600 * 1000, 1000);
      const settings = t.kernel.container.resolve<{ set(key: string, value: unknown): Promise<void> }>('settings');
      await settings.set('LICENSE_KEY', keys.issue({ licensee: 'From Settings', issuedAt: daysFromNow(-1) }));
      expect(await stateOf(t, 'scim-status')).to.include({ reason: 'licensed', licensee: 'From Settings' });
    });

    it('license-status: viewers may ask, guests get 401, identities without dashboard:read 403, unknown widgets 404', async function () {
      const t = kernels[kernels.length - 1]!;
      expect((await t.request(status('scim-status'))).status).to.equal(401);
      const nobody = await t.request(status('scim-status'), { identity: 'nobody' });
      expect(nobody.status).to.equal(403);
      const unknown = await t.request(status('no-such-widget'), { identity: 'viewer' });
      expect(unknown.status).to.equal(404);
      expect((await unknown.json()).error).to.equal('UNKNOWN_WIDGET');
      expect((await t.request('/api/system/license-status?type=dashboard', { identity: 'viewer' })).status).to.equal(400);
      expect((await t.request(`/api/system/license-status?type=theme&id=scim-status`, { identity: 'viewer' })).status).to.equal(400);
    });
  });
}

describe('cms license (CLI)', function () {
  this.timeout(60000);
  const cleanup: string[] = [];
  after(() => {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });
  function run(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
    const cwd = tempDir('cms-license-');
    cleanup.push(cwd);
    writeFileSync(
      join(cwd, 'cms.config.json'),
      JSON.stringify({ db: { type: 'sqlite', storage: 'cms.sqlite' }, dataDir: 'data', logLevel: 'warn' }),
    );
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [join(DIST_ROOT, 'kernel', 'cli.js'), 'license', '--json'],
        { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60000 },
        (err, stdout) => {
          if (err && typeof err.code !== 'number') return reject(err);
          resolve({ code: err ? Number(err.code) : 0, stdout });
        },
      );
    });
  }

  it('shows the trial as expired without a key, and the licensee with one', async function () {
    const base = { CMS_INSTALLED_AT: daysFromNow(-30), CMS_LICENSE_PUBLIC_KEY: keys.publicKey };
    const without = await run(base);
    expect(without.code).to.equal(0);
    const report = JSON.parse(without.stdout);
    expect(Date.parse(report.installedAt)).to.be.closeTo(Date.parse(base.CMS_INSTALLED_AT), 1000);
    expect(report.widgets).to.have.length(1);
    expect(report.widgets[0]).to.include({ widgetId: 'scim-status', allowed: false, reason: 'expired' });
    const key = keys.issue({ licensee: 'CLI Customer', issuedAt: daysFromNow(-1) });
    const withKey = JSON.parse((await run({ ...base, CMS_LICENSE_KEY: key })).stdout);
    expect(withKey.widgets[0]).to.include({ allowed: true, reason: 'licensed', licensee: 'CLI Customer' });
    expect(JSON.stringify(withKey)).to.not.include(key);
  });
});
