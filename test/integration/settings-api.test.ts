import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import WebSocket from 'ws';
import type { AuditLog } from '../../kernel/audit.js';
import { wsUrl } from '../helpers/graphql-ws.js';
import { fixturePlugin, responseCookie, startTestKernel, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { MARIADB_URL, REDIS_URL, uniqueName } from '../helpers/services.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const HOUR = 3600 * 1000;
const SECRET = 'lic-7f3a9c-very-secret-licence-value';

interface Setting {
  key: string;
  value: unknown;
  type: string;
  group: string;
  label: string;
  description: string;
  public: boolean;
  secret: boolean;
  isSet?: boolean;
  scope: 'tenant' | 'installation';
  editable: boolean;
  requiresReauth: boolean;
  options?: string[];
  min?: number;
  max?: number;
}

function setUpKernel(extra: { dbUrl?: string; redis?: { url: string; prefix: string }; db?: 'mariadb' } = {}): Promise<TestKernel> {
  return startTestKernel({
    setup: true,
    db: extra.db,
    dbUrl: extra.dbUrl,
    captureLogs: 'info',
    plugins: [fixturePlugin('test-identity')],
    config: {
      ...(extra.redis ? { redis: extra.redis } : {}),
      plugins: {
        options: {
          auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' },
          setup: { admin: { email: EMAIL, password: PASSWORD } },
        },
      },
    },
  });
}

/** A real session of the seeded admin (a password sign-in opens the sudo-mode window). */
async function adminSession(t: TestKernel, userAgent = 'settings-test'): Promise<string> {
  const login = await t.request('/api/user/login', {
    method: 'POST',
    json: { email: EMAIL, password: PASSWORD },
    headers: { 'user-agent': userAgent },
  });
  expect(login.status, await login.clone().text()).to.equal(200);
  return responseCookie(login)!;
}

const list = async (res: TestResponse): Promise<Setting[]> => {
  expect(res.status, await res.clone().text()).to.equal(200);
  return (await res.json()).data;
};
const byKey = (settings: Setting[], key: string) => settings.find((s) => s.key === key);

/** Resolves with the HTTP status of a refused upgrade (and its Retry-After), or 101 when the socket opens. */
function upgrade(t: TestKernel, headers: Record<string, string>): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(t), 'graphql-transport-ws', { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
      ws.terminate();
    });
    ws.on('open', () => {
      resolve({ status: 101 });
      ws.close();
    });
    ws.on('error', (err) => reject(err));
  });
}

describe('settings API: GET and PATCH /api/settings', function () {
  this.timeout(60000);
  let t: TestKernel;
  const patch = (json: unknown, init: { identity?: string; cookie?: string } = { identity: 'admin' }) =>
    t.request('/api/settings', {
      method: 'PATCH',
      json,
      ...(init.identity ? { identity: init.identity } : {}),
      headers: { ...(init.cookie ? { cookie: init.cookie, 'user-agent': 'settings-test' } : {}) },
    });
  const rows = async () => {
    await t.kernel.container.resolve<AuditLog>('audit').flush();
    return t.kernel.sequelize.query<Record<string, any>>('SELECT * FROM cms_audit_log ORDER BY id', { type: QueryTypes.SELECT });
  };

  before(async () => {
    t = await setUpKernel();
  });
  afterEach(async () => {
    await t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings').set('MAINTENANCE_MODE', false);
  });
  after(async () => t?.close());

  it('GET lists every seeded setting and the ones plugins declare, each with type, group, label, help, public and secret', async () => {
    const settings = await list(await t.request('/api/settings', { identity: 'editor' }));
    const keys = settings.map((s) => s.key);
    for (const key of [
      'SITE_NAME',
      'MEDIA_ALLOWED_TYPES',
      'SESSION_TTL_HOURS',
      'MAINTENANCE_MODE',
      'LICENSE_KEY',
      'OIDC_CLIENT_SECRET',
      'TELEMETRY_URL',
    ])
      expect(keys, key).to.include(key);
    // 23 public + 12 private seeded, and the maintenance plugin's own declared setting.
    expect(settings).to.have.length(36);
    expect(byKey(settings, 'MAINTENANCE_MESSAGE')).to.deep.include({ type: 'text', group: 'maintenance', value: null, secret: false });
    for (const s of settings) {
      expect(s, s.key).to.include.keys('key', 'value', 'type', 'group', 'label', 'description', 'public', 'secret');
      expect(s.label, s.key).to.be.a('string').and.not.equal('');
    }
    expect(byKey(settings, 'SITE_NAME')).to.deep.include({ value: 'My CMS', type: 'string', group: 'site', public: true, secret: false });
    expect(byKey(settings, 'GRAPHQL_MAX_DEPTH')).to.deep.include({ type: 'integer', min: 2, max: 50 });
    expect(byKey(settings, 'SESSION_DEVICE_POLICY')).to.deep.include({
      type: 'enum',
      options: ['single-per-device', 'single-per-user', 'allow-multiple'],
    });
    expect(byKey(settings, 'MEDIA_ALLOWED_TYPES')!.value).to.include('image/*');
    expect(byKey(settings, 'MAINTENANCE_MODE')).to.deep.include({ type: 'boolean', value: false, group: 'maintenance' });
    // A secret's value is never answered: null, with whether one is stored.
    expect(byKey(settings, 'LICENSE_KEY')).to.deep.include({
      secret: true,
      value: null,
      isSet: false,
      public: false,
      requiresReauth: true,
    });
    // Groups come in the Settings page's order.
    expect(settings[0]!.group).to.equal('site');
  });

  it('needs system:read to read and system:settings to change (a guest is asked to sign in)', async () => {
    expect((await t.request('/api/settings', { identity: 'viewer' })).status).to.equal(403);
    expect((await t.request('/api/settings')).status).to.equal(401);
    const editor = await patch({ SITE_NAME: 'Editors cannot' }, { identity: 'editor' });
    expect(editor.status).to.equal(403);
    expect((await editor.json()).error).to.equal('FORBIDDEN');
    expect(byKey(await list(await t.request('/api/settings', { identity: 'admin' })), 'SITE_NAME')!.value).to.equal('My CMS');
  });

  it('PATCH answers the changed settings in the shape of GET, and the change is read where it is used (SITE_NAME on the sign-in page)', async () => {
    const res = await patch({ SITE_NAME: '  Acme Docs  ', DEMO_MODE: false });
    const data = await list(res);
    // DEMO_MODE was already false: not changed, not answered. Text is trimmed.
    expect(data.map((s) => s.key)).to.deep.equal(['SITE_NAME']);
    expect(data[0]).to.deep.include({ key: 'SITE_NAME', value: 'Acme Docs', type: 'string', group: 'site', label: 'Site name' });
    expect((await (await t.request('/api/setup/status')).json()).data.siteName).to.equal('Acme Docs');
    expect(byKey(await list(await t.request('/api/settings', { identity: 'editor' })), 'SITE_NAME')!.value).to.equal('Acme Docs');
  });

  it('validates each value against its declared type: 400 VALIDATION_ERROR naming the key', async () => {
    const cases: Array<[string, unknown]> = [
      ['SITE_NAME', 5],
      ['SITE_NAME', 'x'.repeat(65)],
      ['GRAPHQL_MAX_DEPTH', 51],
      ['GRAPHQL_MAX_DEPTH', 2.5],
      ['MEDIA_STORAGE_TYPE', 'ftp'],
      ['MAINTENANCE_MODE', 'yes'],
      ['MEDIA_ALLOWED_TYPES', ['image/png', 'not a type']],
      ['MEDIA_ALLOWED_TYPES', 'image/png'],
      ['ADMIN_EMAIL', 'not-an-address'],
      ['MAINTENANCE_MESSAGE', 'x'.repeat(501)],
    ];
    for (const [key, value] of cases) {
      const res = await patch({ [key]: value });
      const body = await res.json();
      expect(res.status, `${key}=${JSON.stringify(value)}`).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(body.message).to.include(key);
      expect(body.issues.map((i: { path: string }) => i.path)).to.deep.equal([key]);
    }
  });

  it('refuses an unknown key with 400 naming it, and an empty body', async () => {
    const res = await patch({ NOT_A_SETTING: 1 });
    expect(res.status).to.equal(400);
    const body = await res.json();
    expect(body.error).to.equal('VALIDATION_ERROR');
    expect(body.message).to.include('NOT_A_SETTING');
    expect((await patch({})).status).to.equal(400);
    expect((await patch([1, 2])).status).to.equal(400);
  });

  it('is all or nothing: one bad value and nothing of the request is saved', async () => {
    const res = await patch({ SITE_NAME: 'Half applied?', GRAPHQL_MAX_DEPTH: 999, DEMO_MAX_USERS: 7 });
    expect(res.status).to.equal(400);
    expect((await res.json()).issues.map((i: { path: string }) => i.path)).to.deep.equal(['GRAPHQL_MAX_DEPTH']);
    const settings = await list(await t.request('/api/settings', { identity: 'admin' }));
    expect(byKey(settings, 'SITE_NAME')!.value).to.not.equal('Half applied?');
    expect(byKey(settings, 'DEMO_MAX_USERS')!.value).to.equal(100);
  });

  it('audits a change as settings.changed with the old and new values', async () => {
    const res = await patch({ DEMO_MAX_USERS: 42 });
    expect(res.status).to.equal(200);
    const entry = (await rows()).filter((r) => r.action === 'settings.changed').at(-1)!;
    expect(entry).to.not.equal(undefined);
    const details = JSON.parse(entry.details);
    expect(details.keys).to.deep.equal(['DEMO_MAX_USERS']);
    expect(details.changes.DEMO_MAX_USERS).to.include({ from: 100, to: 42 });
    expect(details.requestId).to.equal(res.headers.get('x-request-id'));
  });

  it('secrets: need sudo mode, are answered only as isSet, and never reach the audit log or the logs', async () => {
    // Without a session (the test identity, like an API key) a secret cannot be changed.
    const bearer = await patch({ LICENSE_KEY: SECRET });
    expect(bearer.status).to.equal(403);
    expect(JSON.stringify(await bearer.json())).to.not.include(SECRET);
    const cookie = await adminSession(t);
    // Outside the sudo-mode window: 403 REAUTH_REQUIRED, nothing saved.
    const sessions = t.kernel.container.resolve<{ reauthWindowSeconds: number }>('sessions');
    const window = sessions.reauthWindowSeconds;
    sessions.reauthWindowSeconds = 0;
    try {
      const stale = await patch({ LICENSE_KEY: SECRET }, { cookie });
      expect(stale.status).to.equal(403);
      expect((await stale.json()).error).to.equal('REAUTH_REQUIRED');
    } finally {
      sessions.reauthWindowSeconds = window;
    }
    expect(byKey(await list(await t.request('/api/settings', { identity: 'admin' })), 'LICENSE_KEY')!.isSet).to.equal(false);

    const res = await patch({ LICENSE_KEY: SECRET }, { cookie });
    const text = await res.clone().text();
    expect(res.status, text).to.equal(200);
    expect(text).to.not.include(SECRET);
    expect((await res.json()).data[0]).to.deep.include({ key: 'LICENSE_KEY', value: null, secret: true, isSet: true });
    // Stored for the code that reads it...
    expect(await t.kernel.container.resolve<{ get(k: string): Promise<unknown> }>('settings').get('LICENSE_KEY')).to.equal(SECRET);
    // ...but never answered, audited or logged.
    const get = await t.request('/api/settings', { identity: 'admin' });
    const getText = await get.clone().text();
    expect(getText).to.not.include(SECRET);
    expect(byKey(await list(get), 'LICENSE_KEY')).to.deep.include({ value: null, isSet: true });
    const audit = (await rows()).filter((r) => r.action === 'settings.changed').at(-1)!;
    expect(JSON.parse(audit.details).changes.LICENSE_KEY).to.deep.equal({ to: '(set)', tenantId: 'default' });
    expect(JSON.stringify(await rows())).to.not.include(SECRET);
    expect(t.logs.join('\n')).to.not.include(SECRET);

    // A validation refusal of a secret does not echo it either.
    const tooLong = 'y'.repeat(5000);
    const refused = await patch({ LICENSE_KEY: tooLong }, { cookie });
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.not.include('yyyyyyyyyy');

    // null clears it.
    const cleared = await list(await patch({ LICENSE_KEY: null }, { cookie }));
    expect(cleared[0]).to.deep.include({ key: 'LICENSE_KEY', isSet: false, value: null });
  });

  it('a security-sensitive setting needs sudo mode too, and SESSION_TTL_HOURS applies to the next sign-in', async () => {
    expect((await patch({ SESSION_TTL_HOURS: 3 })).status).to.equal(403);
    const cookie = await adminSession(t);
    expect((await patch({ SESSION_TTL_HOURS: 3 }, { cookie })).status).to.equal(200);
    const fresh = await adminSession(t, 'after-ttl');
    const sessions = (await (await t.request('/api/user/sessions', { headers: { cookie: fresh, 'user-agent': 'after-ttl' } })).json()).data
      .sessions;
    const current = sessions.find((s: { current: boolean }) => s.current);
    expect((Date.parse(current.expiresAt) - Date.parse(current.createdAt)) / HOUR).to.be.closeTo(3, 0.01);
    expect((await patch({ SESSION_TTL_HOURS: 24 }, { cookie })).status).to.equal(200);
  });

  it('MAINTENANCE_MODE through PATCH: 503 MAINTENANCE_MODE with Retry-After for everyone but administrators, logged at info without a stack', async () => {
    expect(await list(await patch({ MAINTENANCE_MODE: true }))).to.have.length(1);
    const refused = await t.request('/api/collections', { identity: 'editor' });
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('300');
    expect(await refused.json()).to.include({ success: false, error: 'MAINTENANCE_MODE' });
    expect((await t.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    expect((await t.request('/api/settings', { identity: 'admin' })).status).to.equal(200);
    const lines = t.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request refused: maintenance mode');
    expect(lines.length).to.be.greaterThan(0);
    const line = lines.at(-1)!;
    expect(line.level).to.equal('info');
    expect(line).to.include({ code: 'MAINTENANCE_MODE', path: '/api/collections' });
    expect(JSON.stringify(line)).to.not.match(/stack|"err"/);
    expect(
      t.logs.map((l) => JSON.parse(l)).filter((l) => ['warn', 'error', 'fatal'].includes(l.level) && /MAINTENANCE/.test(JSON.stringify(l))),
    ).to.deep.equal([]);
    // Off again through the API: served at once.
    expect((await patch({ MAINTENANCE_MODE: false })).status).to.equal(200);
    expect((await t.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
  });

  it('while on, exactly the decided routes stay open for everyone; others (setup steps, content) answer 503; the public theme stays 200 (the spec: always)', async () => {
    await patch({ MAINTENANCE_MODE: true });
    const open: Array<[string, string, unknown?]> = [
      ['GET', '/api/health'],
      ['GET', '/api/health/ready'],
      ['GET', '/api/v1/health'],
      ['GET', '/api/system/health'],
      ['GET', '/api/setup/status'],
      ['GET', '/api/theme/public'],
      ['POST', '/api/user/login', { email: EMAIL, password: 'wrong password here' }],
      ['POST', '/api/auth/2fa/verify', { code: '123456' }],
      ['POST', '/api/user/logout', {}],
      ['GET', '/api/user/me'],
    ];
    for (const [method, path, json] of open) {
      const res = await t.request(path, { method, ...(json === undefined ? {} : { json }) });
      expect(res.status, `${method} ${path}`).to.not.equal(503);
    }
    for (const [method, path, json] of [
      ['POST', '/api/setup/test-db', { type: 'sqlite', database: 'x.sqlite' }],
      ['GET', '/api/user/login'],
      ['POST', '/api/user/me', {}],
      ['GET', '/api/collections'],
    ] as Array<[string, string, unknown?]>) {
      const res = await t.request(path, { method, ...(json === undefined ? {} : { json }) });
      expect(res.status, `${method} ${path}`).to.equal(503);
      expect(res.headers.get('retry-after'), `${method} ${path}`).to.equal('300');
    }
  });

  it('WebSocket upgrades are refused like HTTP (503 with Retry-After) for non-administrators and accepted for an administrator', async () => {
    expect((await upgrade(t, { 'x-test-identity': 'editor' })).status).to.equal(101);
    await patch({ MAINTENANCE_MODE: true });
    expect(await upgrade(t, { 'x-test-identity': 'editor' })).to.deep.equal({ status: 503, retryAfter: '300' });
    expect((await upgrade(t, {})).status).to.equal(503);
    expect((await upgrade(t, { 'x-test-identity': 'admin' })).status).to.equal(101);
    const line = t.logs
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request refused: maintenance mode' && l.via)
      .at(-1);
    expect(line).to.include({ level: 'info', via: 'graphql websocket' });
    expect(JSON.stringify(line)).to.not.match(/stack|"err"/);
    await patch({ MAINTENANCE_MODE: false });
    expect((await upgrade(t, { 'x-test-identity': 'editor' })).status).to.equal(101);
  });

  it("switching maintenance on closes the open WebSocket connections it refuses (4503) and keeps an administrator's", async () => {
    const open = async (identity: string) => {
      const ws = new WebSocket(wsUrl(t), 'graphql-transport-ws', { headers: { 'x-test-identity': identity } });
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        ws.on('message', (data) => {
          if (JSON.parse(String(data)).type === 'connection_ack') resolve();
        });
        ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
        ws.on('error', reject);
      });
      return { ws, closed };
    };
    const editor = await open('editor');
    const admin = await open('admin');
    await patch({ MAINTENANCE_MODE: true });
    expect(await editor.closed).to.equal(4503);
    expect(admin.ws.readyState).to.equal(WebSocket.OPEN);
    admin.ws.close();
    expect(await admin.closed).to.equal(1005);
    await patch({ MAINTENANCE_MODE: false });
  });

  it("a plugin's declared setting is stored on first change and read where it is used (MAINTENANCE_MESSAGE on the maintenance page)", async () => {
    const data = await list(await patch({ MAINTENANCE_MESSAGE: 'Back at 10:00 <UTC>', MAINTENANCE_MODE: true }));
    expect(data.map((s) => s.key).sort()).to.deep.equal(['MAINTENANCE_MESSAGE', 'MAINTENANCE_MODE']);
    const page = await t.request('/', { headers: { accept: 'text/html' } });
    expect(page.status).to.equal(503);
    expect(await page.text()).to.include('Back at 10:00 &lt;UTC&gt;');
    expect((await list(await patch({ MAINTENANCE_MESSAGE: '' })))[0]!.value).to.equal(null);
  });
});

describe('settings API: tenants (MULTI_TENANT)', function () {
  this.timeout(60000);
  let t: TestKernel;
  let t2Cookie: string;
  const asT2 = (init: RequestInit & { json?: unknown } = {}) =>
    t.request('/api/settings', { ...init, headers: { ...T2_HOST, cookie: t2Cookie, 'user-agent': 'node' } });

  before(async () => {
    ({ t, t2Cookie } = await startTwoTenantKernel('sqlite', { setupAdmin: { email: EMAIL, password: PASSWORD } }));
  });
  after(async () => t?.close());

  it("another tenant's admin sees its own settings, the installation's read-only, never the installation's secrets", async () => {
    const settings = await list(await asT2());
    expect(byKey(settings, 'SITE_NAME')).to.deep.include({ scope: 'tenant', editable: true });
    expect(byKey(settings, 'MAINTENANCE_MODE')).to.deep.include({ scope: 'tenant', editable: true });
    expect(byKey(settings, 'SESSION_TTL_HOURS')).to.deep.include({ scope: 'installation', editable: false });
    expect(byKey(settings, 'UPDATE_CHECK_ENABLED')).to.deep.include({ scope: 'installation', editable: false });
    expect(byKey(settings, 'LICENSE_KEY')).to.equal(undefined);
    expect(byKey(settings, 'OIDC_CLIENT_SECRET')).to.equal(undefined);
    const own = await list(await t.request('/api/settings', { identity: 'admin' }));
    expect(byKey(own, 'SESSION_TTL_HOURS')).to.deep.include({ editable: true });
    expect(byKey(own, 'LICENSE_KEY')).to.not.equal(undefined);
  });

  it("changes only its own tenant's tenant settings; installation settings are kept to installation administrators", async () => {
    const res = await asT2({ method: 'PATCH', json: { SITE_NAME: 'Tenant Two Site' } });
    expect(res.status, await res.clone().text()).to.equal(200);
    expect((await (await t.request('/api/setup/status', { headers: T2_HOST })).json()).data.siteName).to.equal('Tenant Two Site');
    expect((await (await t.request('/api/setup/status')).json()).data.siteName).to.not.equal('Tenant Two Site');
    expect(byKey(await list(await t.request('/api/settings', { identity: 'admin' })), 'SITE_NAME')!.value).to.not.equal('Tenant Two Site');

    for (const json of [{ UPDATE_CHECK_ENABLED: false }, { BACKUP_RETENTION_COUNT: 3 }, { SITE_NAME: 'ok', GRAPHQL_MAX_DEPTH: 5 }]) {
      const refused = await asT2({ method: 'PATCH', json });
      expect(refused.status, JSON.stringify(json)).to.equal(403);
      expect((await refused.json()).error).to.equal('FORBIDDEN');
    }
    // The installation's secrets are unknown to another tenant.
    expect((await asT2({ method: 'PATCH', json: { LICENSE_KEY: 'x' } })).status).to.equal(400);
    const installation = await list(await t.request('/api/settings', { identity: 'admin' }));
    expect(byKey(installation, 'UPDATE_CHECK_ENABLED')!.value).to.equal(true);
    expect(byKey(installation, 'BACKUP_RETENTION_COUNT')!.value).to.equal(10);
  });

  it("a tenant's maintenance switch closes that tenant only; the installation's closes every tenant to all but installation administrators", async () => {
    const t2Guest = () => t.request('/api/collections', { headers: { ...T2_HOST, accept: 'application/json' } });
    const t2Admin = () => t.request('/api/collections', { headers: { ...T2_HOST, cookie: t2Cookie, 'user-agent': 'node' } });
    const defaultEditor = () => t.request('/api/collections', { identity: 'editor' });
    expect((await asT2({ method: 'PATCH', json: { MAINTENANCE_MODE: true } })).status).to.equal(200);
    expect((await t2Guest()).status).to.equal(503);
    expect((await t2Admin()).status).to.not.equal(503);
    expect((await defaultEditor()).status).to.equal(200);
    expect((await asT2({ method: 'PATCH', json: { MAINTENANCE_MODE: false } })).status).to.equal(200);
    expect((await t2Guest()).status).to.not.equal(503);

    expect((await t.request('/api/settings', { method: 'PATCH', identity: 'admin', json: { MAINTENANCE_MODE: true } })).status).to.equal(
      200,
    );
    try {
      expect((await defaultEditor()).status).to.equal(503);
      expect((await t2Guest()).status).to.equal(503);
      expect((await t2Admin()).status).to.equal(503);
      expect((await t.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    } finally {
      await t.request('/api/settings', { method: 'PATCH', identity: 'admin', json: { MAINTENANCE_MODE: false } });
    }
    expect((await t2Admin()).status).to.not.equal(503);
  });
});

describe('settings API on two instances (one MariaDB, one Redis)', function () {
  this.timeout(90000);
  let a: TestKernel;
  let b: TestKernel;
  before(async function () {
    if (!MARIADB_URL || !REDIS_URL) return this.skip(); // needs CMS_TEST_MARIADB_URL and CMS_TEST_REDIS_URL
    const redis = { url: REDIS_URL, prefix: uniqueName('cmssettings') };
    a = await setUpKernel({ db: 'mariadb', redis });
    b = await setUpKernel({ dbUrl: a.dbUrl, redis });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  /** Polls until `check` holds (the other instance applies the event when it arrives). */
  async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`instance B did not apply ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('MAINTENANCE_MODE changed through A is enforced by B, and switched off through A reopens B', async () => {
    expect((await b.request('/api/collections', { identity: 'editor' })).status).to.equal(200);
    expect((await a.request('/api/settings', { method: 'PATCH', identity: 'admin', json: { MAINTENANCE_MODE: true } })).status).to.equal(
      200,
    );
    await eventually('maintenance on', async () => (await b.request('/api/collections', { identity: 'editor' })).status === 503);
    expect((await b.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    expect(byKey(await list(await b.request('/api/settings', { identity: 'admin' })), 'MAINTENANCE_MODE')!.value).to.equal(true);
    expect((await a.request('/api/settings', { method: 'PATCH', identity: 'admin', json: { MAINTENANCE_MODE: false } })).status).to.equal(
      200,
    );
    await eventually('maintenance off', async () => (await b.request('/api/collections', { identity: 'editor' })).status === 200);
  });

  it('SESSION_TTL_HOURS changed through A applies to the next sign-in on B without a restart', async () => {
    // B reads the session settings once (they are then kept up to 30 s unless SETTING_CHANGED drops them).
    await adminSession(b, 'warm-b');
    const cookie = await adminSession(a);
    const res = await a.request('/api/settings', {
      method: 'PATCH',
      json: { SESSION_TTL_HOURS: 6 },
      headers: { cookie, 'user-agent': 'settings-test' },
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    await eventually('the session lifetime', async () => {
      const fresh = await adminSession(b, 'on-b');
      const sessions = (await (await b.request('/api/user/sessions', { headers: { cookie: fresh, 'user-agent': 'on-b' } })).json()).data
        .sessions;
      const current = sessions.find((s: { current: boolean }) => s.current);
      return Math.abs((Date.parse(current.expiresAt) - Date.parse(current.createdAt)) / HOUR - 6) < 0.01;
    });
  });
});
