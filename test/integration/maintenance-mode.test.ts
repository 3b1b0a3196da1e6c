import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixturePlugin, responseCookie, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { REDIS_URL, uniqueName } from '../helpers/services.js';

const ADMIN_EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface Settings {
  get(key: string, tenantId?: string): Promise<unknown>;
  set(key: string, value: unknown, tenantId?: string): Promise<void>;
  valuesOf(key: string): Promise<Map<string, unknown>>;
}

/** A kernel after headless setup (seeded settings, an admin account) with the test identities (x-test-identity). */
function setUpKernel(extra: { dataDir?: string; redis?: { url: string; prefix: string } } = {}): Promise<TestKernel> {
  return startTestKernel({
    setup: true,
    dataDir: extra.dataDir,
    plugins: [fixturePlugin('test-identity')],
    config: {
      ...(extra.redis ? { redis: extra.redis } : {}),
      plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: ADMIN_EMAIL, password: PASSWORD } } } },
    },
  });
}

const settingsOf = (t: TestKernel) => t.kernel.container.resolve<Settings>('settings');

/** Polls until the request answers `status` or the deadline passes; returns the last status seen. */
async function statusWithin(ms: number, status: number, request: () => Promise<Response>): Promise<number> {
  const deadline = Date.now() + ms;
  let seen = 0;
  for (;;) {
    seen = (await request()).status;
    if (seen === status || Date.now() > deadline) return seen;
    await sleep(20);
  }
}

describe('maintenance mode (the MAINTENANCE_MODE setting)', function () {
  this.timeout(60000);
  let t: TestKernel;
  const on = () => settingsOf(t).set('MAINTENANCE_MODE', true);
  const off = () => settingsOf(t).set('MAINTENANCE_MODE', false);

  before(async () => {
    t = await setUpKernel();
  });
  afterEach(async () => {
    await off();
    await settingsOf(t).set('SITE_NAME', 'My CMS');
  });
  after(async () => t?.close());

  it('is off after setup: every caller is served', async () => {
    expect(await settingsOf(t).get('MAINTENANCE_MODE')).to.equal(false);
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
  });

  it('when on, API clients get 503 MAINTENANCE_MODE with Retry-After, on /api and /api/v1 alike', async () => {
    await on();
    for (const path of ['/api/collections', '/api/v1/collections']) {
      const res = await t.request(path, { identity: 'editor' });
      expect(res.status, path).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('300');
      const body = await res.json();
      expect(body).to.include({ success: false, error: 'MAINTENANCE_MODE', retryAfterSeconds: 300 });
      expect(body.message).to.match(/maintenance/i);
    }
    // Guests too, and a JSON client that asks for JSON explicitly.
    const guest = await t.request('/api/theme/list', { headers: { accept: 'application/json' } });
    expect(guest.status).to.equal(503);
    expect((await guest.json()).error).to.equal('MAINTENANCE_MODE');
  });

  it('browsers get a small self-contained HTML page with the site name', async () => {
    await settingsOf(t).set('SITE_NAME', 'Acme <Docs>');
    await on();
    const res = await t.request('/', { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('300');
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const html = await res.text();
    expect(html).to.include('Acme &lt;Docs&gt; is down for maintenance');
    expect(html).not.to.include('<Docs>');
    // No external assets: no scripts, stylesheets, images, fonts or other URLs.
    expect(html).not.to.match(/<script|<link|<img|src=|href=|url\(|@import|https?:/i);
    expect(html.length).to.be.below(4000);
  });

  it('administrators keep working, including signing in with a password during maintenance', async () => {
    await on();
    expect((await t.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(503);
    const login = await t.request('/api/user/login', { method: 'POST', json: { email: ADMIN_EMAIL, password: PASSWORD } });
    expect(login.status).to.equal(200);
    const cookie = responseCookie(login)!;
    expect(cookie).to.be.a('string');
    expect((await t.request('/api/user/me', { headers: { cookie } })).status).to.equal(200);
    expect((await t.request('/api/collections', { headers: { cookie } })).status).to.equal(200);
    expect((await t.request('/api/theme/list', { headers: { cookie, accept: BROWSER_ACCEPT } })).status).to.equal(200);
  });

  it('health, the setup status, the public theme (the spec: always 200), sign-in and the admin UI files stay reachable for everyone', async () => {
    await on();
    for (const path of ['/api/health', '/api/v1/health', '/api/system/health', '/api/setup/status', '/api/theme/public']) {
      expect((await t.request(path)).status, path).to.equal(200);
    }
    // The spec's sentence for the public theme: all null for the default tenant, also during maintenance.
    expect((await (await t.request('/api/theme/public')).json()).data ?? {}).to.satisfy((d: Record<string, unknown>) =>
      ['siteName', 'logoUrl', 'accentColor'].every((k) => d[k] === null),
    );
    for (const path of ['/login', '/admin/', '/admin/login']) {
      const res = await t.request(path, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, path).to.equal(200);
      expect(await res.text(), path).not.to.include('down for maintenance');
    }
    // Guests asking who they are get the usual 401 (the admin UI then shows its sign-in form).
    expect((await t.request('/api/user/me')).status).to.equal(401);
  });

  it('switching it off restores access at once', async () => {
    await on();
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(503);
    await off();
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
    expect((await t.request('/', { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' })).status).to.equal(302);
  });

  it("a tenant's own switch applies to that tenant only; the installation's applies to every tenant", async () => {
    const other = () => t.request('/api/collections', { identity: 'editor', headers: { 'x-test-tenant': 'other' } });
    await settingsOf(t).set('MAINTENANCE_MODE', true, 'other');
    try {
      expect((await other()).status).to.equal(503);
      expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
    } finally {
      await settingsOf(t).set('MAINTENANCE_MODE', false, 'other');
    }
    await on();
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(503);
    expect((await other()).status).to.equal(503);
  });

  it('a configuration import (config sync) that sets MAINTENANCE_MODE takes effect at once', async () => {
    const admin = (path: string, json: unknown) => t.request(path, { method: 'POST', identity: 'admin', json });
    expect((await admin('/api/config/export', {})).status).to.equal(200);
    const file = join(t.dataDir, 'config', 'sync', 'setting', 'MAINTENANCE_MODE.json');
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    const data = { value: true };
    writeFileSync(file, JSON.stringify({ ...exported, data, checksum: createHash('sha256').update(stringify(data)!).digest('hex') }));
    const plan = (await (await admin('/api/config/plan', { mode: 'merge', types: ['setting'] })).json()).data;
    expect(plan.summary).to.include({ updated: 1 });
    const done = (await (await admin('/api/config/apply', { planId: plan.planId, confirmed: false })).json()).data;
    expect(done.outcome, JSON.stringify(done)).to.equal('success');
    const res = await t.request('/api/collections', { identity: 'editor' });
    expect(res.status).to.equal(503);
    expect((await res.json()).error).to.equal('MAINTENANCE_MODE');
  });

  it('requests never read the setting from the database (the flag is kept in memory)', async () => {
    await on();
    const settings = settingsOf(t);
    const originalGet = settings.get;
    const originalValuesOf = settings.valuesOf;
    let reads = 0;
    settings.get = async (...args) => {
      reads++;
      return originalGet.apply(settings, args);
    };
    settings.valuesOf = async (...args) => {
      reads++;
      return originalValuesOf.apply(settings, args);
    };
    try {
      for (let i = 0; i < 10; i++) {
        expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(503);
        expect((await t.request('/', { headers: { accept: BROWSER_ACCEPT } })).status).to.equal(503);
      }
    } finally {
      settings.get = originalGet;
      settings.valuesOf = originalValuesOf;
    }
    expect(reads).to.equal(0);
  });
});

describe('maintenance mode on two instances (one SQLite file, one Redis)', function () {
  this.timeout(60000);
  let a: TestKernel;
  let b: TestKernel;
  let dataDir: string;
  before(async function () {
    if (!REDIS_URL) return this.skip(); // needs CMS_TEST_REDIS_URL
    dataDir = tempDir('cms-maintenance-');
    const redis = { url: REDIS_URL, prefix: uniqueName('cmsmaint') };
    a = await setUpKernel({ dataDir, redis });
    b = await setUpKernel({ dataDir, redis });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('switching it on through A is enforced by B within a second, and switching it off reopens B', async () => {
    expect(b.kernel.container.resolve<{ transport: string }>('events').transport).to.equal('redis');
    expect((await b.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
    await settingsOf(a).set('MAINTENANCE_MODE', true);
    expect(await statusWithin(1000, 503, () => b.request('/api/collections', { identity: 'editor' }))).to.equal(503);
    expect((await b.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    await settingsOf(a).set('MAINTENANCE_MODE', false);
    expect(await statusWithin(1000, 200, () => b.request('/api/collections', { identity: 'editor' }))).to.equal(200);
  });
});
