import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { discoverFolder } from '../../kernel/discovery.js';
import { ERROR_CATALOGUE } from '../../kernel/errors.js';
import { createLogger } from '../../kernel/logger.js';
import { signedUpdateEnvelope, signUpdateCheck } from '../../lib/text/update-signature.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { UPDATE_SERVER_ERROR_CATALOGUE } from '../../plugins/update-server/errors.js';
import { hashIp } from '../../plugins/update-server/keys.js';
import { VersionSource } from '../../plugins/update-server/versions.js';
import { builtinPluginIds, UPDATE_SERVER_PLUGIN_DIR, updateServerConfig } from '../../plugins/update-server/launch.js';
import { startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const IP_SALT = 'test-ip-salt-0123456789abcdef';
const OPERATOR_TOKEN = 'operator-token-for-the-tests-0123456789';

const VERSIONS = {
  latest: '1.4.0',
  advisories: [
    { id: 'CMS-2026-001', severity: 'high', affected: '>=1.0.0 <1.3.2', fixed_in: '1.3.2', summary: 'Stored XSS in the media caption' },
    { id: 'CMS-2026-002', severity: 'low', affected: '<1.0.0', fixed_in: '1.0.0', summary: 'Old pre-release issue' },
    { id: 'CMS-2026-003', severity: 'critical', affected: '>=1.1.0 <=1.2.5', fixed_in: '1.2.6', summary: 'Session fixation' },
  ],
};

const installationId = () => createHash('sha256').update(randomBytes(32)).digest('hex');

/** The spec's payload (the fields the instance-side client will send). */
function payload(id: string, currentVersion = '1.2.0', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    current_version: currentVersion,
    node_version: 'v22.11.0',
    environment: 'production',
    is_ephemeral: false,
    installation_id: id,
    stable_id: createHash('sha256').update('linux|x64|8').digest('hex'),
    db_type: 'sqlite',
    location: {
      country: 'Germany',
      country_code: 'DE',
      region: 'Berlin',
      city: 'Berlin',
      latitude: 52.5,
      longitude: 13.4,
      isp: 'Example ISP',
      org: 'Example Org',
    },
    metrics: { users: 3, collections: 5, roles: 4 },
    system: { cpu_count: 8, cpu_model: 'Example CPU', total_memory_gb: 16, os_type: 'Linux', os_arch: 'x64' },
    widgets: JSON.stringify(['clock']),
    dashboard_widgets: JSON.stringify(['w1']),
    plugins: JSON.stringify(['content', 'media']),
    ...extra,
  };
}

async function startUpdateServer(
  options: Record<string, unknown> = {},
  db: 'sqlite' | 'mariadb' = 'sqlite',
): Promise<TestKernel & { dir: string }> {
  const dir = tempDir('cms-update-server-');
  const versionsFile = join(dir, 'versions.json');
  writeFileSync(versionsFile, JSON.stringify(VERSIONS));
  const t = await startTestKernel({
    db,
    plugins: [UPDATE_SERVER_PLUGIN_DIR],
    config: {
      plugins: {
        disabled: builtinPluginIds(),
        options: {
          'update-server': { ipSalt: IP_SALT, operatorToken: OPERATOR_TOKEN, versionsFile, checkIntervalSeconds: 0, ...options },
        },
      },
    },
  });
  const close = t.close.bind(t);
  return Object.assign(t, {
    dir,
    async close() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

async function register(t: TestKernel, id: string): Promise<string> {
  const res = await t.request('/api/register', { method: 'POST', json: { installation_id: id } });
  expect(res.status).to.equal(200);
  const body = await res.json();
  expect(Object.keys(body)).to.deep.equal(['secret']);
  expect(body.secret).to.match(/^[0-9a-f]{64}$/);
  return body.secret as string;
}

const check = (t: TestKernel, envelope: unknown, headers: Record<string, string> = {}) =>
  t.request('/api/check-update', { method: 'POST', json: envelope, headers });

for (const variant of DB_VARIANTS) {
  describe(`update server (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel & { dir: string };

    before(async function () {
      requireVariant(this, variant);
      t = await startUpdateServer({}, variant.name);
    });
    after(async () => {
      await t?.close();
    });

    it('loads only the update server (and the health probe)', function () {
      const booted = t.kernel.loader
        .describe()
        .filter((r) => r.state === 'booted')
        .map((r) => r.id)
        .sort();
      expect(booted).to.deep.equal(['health', 'update-server']);
    });

    it('POST /api/register answers the bare {secret}; a malformed installation_id is 400 VALIDATION_ERROR', async function () {
      await register(t, installationId());
      const bad = await t.request('/api/register', { method: 'POST', json: { installation_id: 'not-a-hash' } });
      expect(bad.status).to.equal(400);
      expect(await bad.json()).to.include({ success: false, error: 'VALIDATION_ERROR' });
    });

    it('a signed check answers latest_version, update_available and the advisories of the reported version', async function () {
      const id = installationId();
      const secret = await register(t, id);
      const res = await check(t, signedUpdateEnvelope(secret, payload(id, '1.2.0')));
      expect(res.status).to.equal(200);
      const body = await res.json();
      expect(Object.keys(body).sort()).to.deep.equal(['advisories', 'current_version', 'latest_version', 'update_available']);
      expect(body).to.include({ latest_version: '1.4.0', current_version: '1.2.0', update_available: true });
      expect(body.advisories.map((a: { id: string }) => a.id)).to.deep.equal(['CMS-2026-001', 'CMS-2026-003']);
      expect(body.advisories[0]).to.deep.equal(VERSIONS.advisories[0]);

      const latest = await check(t, signedUpdateEnvelope(secret, payload(id, '1.4.0')));
      expect(latest.status).to.equal(200);
      expect(await latest.json()).to.deep.equal({
        latest_version: '1.4.0',
        current_version: '1.4.0',
        update_available: false,
        advisories: [],
      });
    });

    it('the signature does not depend on the order of the payload keys (canonical JSON)', async function () {
      const id = installationId();
      const secret = await register(t, id);
      const p = payload(id);
      const timestamp = Date.now();
      const signature = signUpdateCheck(secret, timestamp, p);
      const reversed = Object.fromEntries(Object.entries(p).reverse());
      const res = await check(t, { payload: reversed, signature, timestamp });
      expect(res.status).to.equal(200);
    });

    it('re-registering rotates the secret: the old one then answers 403 INVALID_SIGNATURE, the new one works', async function () {
      const id = installationId();
      const first = await register(t, id);
      expect((await check(t, signedUpdateEnvelope(first, payload(id)))).status).to.equal(200);
      const second = await register(t, id);
      expect(second).to.not.equal(first);
      const old = await check(t, signedUpdateEnvelope(first, payload(id)));
      expect(old.status).to.equal(403);
      expect(await old.json()).to.include({ success: false, error: 'INVALID_SIGNATURE' });
      expect((await check(t, signedUpdateEnvelope(second, payload(id)))).status).to.equal(200);
    });

    it('a timestamp more than 5 minutes off (past or future) is 403 SIGNATURE_EXPIRED', async function () {
      const id = installationId();
      const secret = await register(t, id);
      for (const offset of [-6 * 60_000, 6 * 60_000]) {
        const res = await check(t, signedUpdateEnvelope(secret, payload(id), Date.now() + offset));
        expect(res.status).to.equal(403);
        expect(await res.json()).to.include({ success: false, error: 'SIGNATURE_EXPIRED' });
      }
      // Inside the window (4 minutes old) it is accepted.
      expect((await check(t, signedUpdateEnvelope(secret, payload(id), Date.now() - 4 * 60_000))).status).to.equal(200);
    });

    it('a tampered payload or timestamp is 403 INVALID_SIGNATURE', async function () {
      const id = installationId();
      const secret = await register(t, id);
      const envelope = signedUpdateEnvelope(secret, payload(id));
      const tampered = { ...envelope, payload: { ...envelope.payload, metrics: { users: 9999, collections: 5, roles: 4 } } };
      const res = await check(t, tampered);
      expect(res.status).to.equal(403);
      expect(await res.json()).to.include({ success: false, error: 'INVALID_SIGNATURE' });
      const shifted = await check(t, { ...envelope, timestamp: envelope.timestamp + 1 });
      expect(shifted.status).to.equal(403);
      expect((await shifted.json()).error).to.equal('INVALID_SIGNATURE');
      const garbage = await check(t, { ...envelope, signature: 'zz' });
      expect(garbage.status).to.equal(403);
    });

    it('a replayed envelope is 403 REPLAYED_REQUEST', async function () {
      const id = installationId();
      const secret = await register(t, id);
      const envelope = signedUpdateEnvelope(secret, payload(id));
      expect((await check(t, envelope)).status).to.equal(200);
      const again = await check(t, envelope);
      expect(again.status).to.equal(403);
      expect(await again.json()).to.include({ success: false, error: 'REPLAYED_REQUEST' });
    });

    it('an unregistered installation is 403 UNKNOWN_INSTALLATION; a payload that is not the spec one is 400', async function () {
      const id = installationId();
      const res = await check(t, signedUpdateEnvelope(randomBytes(32).toString('hex'), payload(id)));
      expect(res.status).to.equal(403);
      expect(await res.json()).to.include({ success: false, error: 'UNKNOWN_INSTALLATION' });

      const secret = await register(t, id);
      const bad = payload(id, 'not-a-version');
      const invalid = await check(t, signedUpdateEnvelope(secret, bad));
      expect(invalid.status).to.equal(400);
      const body = await invalid.json();
      expect(body).to.include({ success: false, error: 'VALIDATION_ERROR' });
      expect(body.issues.map((i: { path: string }) => i.path)).to.include('payload.current_version');
      const missing = payload(id);
      delete missing.metrics;
      expect((await check(t, signedUpdateEnvelope(secret, missing))).status).to.equal(400);
      expect((await check(t, { payload: payload(id), timestamp: Date.now() })).status).to.equal(400);
    });

    it('GET /api/stats: 401 without the operator token, 403 with another, counts only with it', async function () {
      const none = await t.request('/api/stats');
      expect(none.status).to.equal(401);
      expect(await none.json()).to.include({ success: false, error: 'OPERATOR_TOKEN_REQUIRED' });
      const wrong = await t.request('/api/stats', { headers: { authorization: 'Bearer not-the-operator-token' } });
      expect(wrong.status).to.equal(403);
      expect(await wrong.json()).to.include({ success: false, error: 'OPERATOR_TOKEN_INVALID' });
      const ok = await t.request('/api/stats', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(ok.status).to.equal(200);
      const { data } = await ok.json();
      expect(data.registered).to.be.greaterThan(data.reporting - 1);
      expect(data.reporting).to.be.greaterThan(0);
      expect(data.byDbType).to.deep.include({ value: 'sqlite', count: data.reporting });
      expect(data.byCountry).to.deep.include({ value: 'DE', count: data.reporting });
      const versions = new Map(data.byVersion.map((r: { value: string; count: number }) => [r.value, r.count]));
      expect(versions.get('1.2.0')).to.be.greaterThan(0);
      expect(JSON.stringify(data)).to.not.match(/[0-9a-f]{16}/);
      const recent = await t.request('/api/stats?sinceDays=1', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect((await recent.json()).data.reporting).to.equal(data.reporting);
    });

    it('stores client IPs only as 16-character salted hashes', async function () {
      const rows = await t.kernel.sequelize.query<{ ip_hash: string }>('SELECT ip_hash FROM update_server_checks', {
        type: QueryTypes.SELECT,
      });
      expect(rows.length).to.be.greaterThan(0);
      const hashes = new Set(['127.0.0.1', '::ffff:127.0.0.1', '::1'].map((ip) => hashIp(IP_SALT, ip)));
      for (const row of rows) {
        expect(row.ip_hash).to.match(/^[0-9a-f]{16}$/);
        expect(hashes.has(row.ip_hash), row.ip_hash).to.equal(true);
      }
    });
  });
}

describe('update server: the database file holds no raw IP', function () {
  this.timeout(60000);

  it('after register and checks, the SQLite files contain the 16-character hash and not 127.0.0.1', async function () {
    const t = await startUpdateServer();
    try {
      const id = installationId();
      const secret = await register(t, id);
      expect((await check(t, signedUpdateEnvelope(secret, payload(id)))).status).to.equal(200);
      // Two checks so the hash is in a row whatever the page layout.
      expect((await check(t, signedUpdateEnvelope(secret, payload(id, '1.3.0')))).status).to.equal(200);
      const [row] = await t.kernel.sequelize.query<{ ip_hash: string }>('SELECT ip_hash FROM update_server_checks LIMIT 1', {
        type: QueryTypes.SELECT,
      });
      await t.kernel.close(); // checkpoints the write-ahead log into the file
      const files = readdirSync(t.dataDir).filter((f) => f.startsWith('cms.sqlite'));
      expect(files).to.include('cms.sqlite');
      const bytes = Buffer.concat(files.map((f) => readFileSync(join(t.dataDir, f))));
      expect(bytes.includes(Buffer.from('127.0.0.1')), 'raw IP in the database file').to.equal(false);
      expect(bytes.includes(Buffer.from(row!.ip_hash)), 'hash in the database file').to.equal(true);
      expect(row!.ip_hash).to.match(/^[0-9a-f]{16}$/);
      expect([hashIp(IP_SALT, '127.0.0.1'), hashIp(IP_SALT, '::ffff:127.0.0.1')]).to.include(row!.ip_hash);
      // No secret either: only the nonce it is derived from.
      expect(bytes.includes(Buffer.from(secret)), 'installation secret in the database file').to.equal(false);
    } finally {
      await t.close();
    }
  });
});

describe('update server: one check per client IP per period', function () {
  this.timeout(60000);
  let t: TestKernel & { dir: string };
  before(async () => {
    t = await startUpdateServer({ checkIntervalSeconds: 12 * 3600 });
  });
  after(async () => {
    await t?.close();
  });

  it('a second accepted check from the same IP within 12 hours is 429 CHECK_RATE_LIMITED with Retry-After', async function () {
    const a = installationId();
    const secretA = await register(t, a);
    expect((await check(t, signedUpdateEnvelope(secretA, payload(a)))).status).to.equal(200);
    // Another installation behind the same address counts too (per IP).
    const b = installationId();
    const secretB = await register(t, b);
    const limited = await check(t, signedUpdateEnvelope(secretB, payload(b)));
    expect(limited.status).to.equal(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(12 * 3600 - 60, 12 * 3600);
    expect(await limited.json()).to.include({ success: false, error: 'CHECK_RATE_LIMITED', retryAfterSeconds: retryAfter });
    // The refused envelope cannot be replayed later: its timestamp was recorded.
    const envelope = signedUpdateEnvelope(secretB, payload(b));
    expect((await check(t, envelope)).status).to.equal(429);
    // A bad signature is refused as such, not counted as a check.
    const bad = await check(t, { ...signedUpdateEnvelope(secretB, payload(b)), signature: '0'.repeat(64) });
    expect(bad.status).to.equal(403);
  });
});

describe('update server: versions file cache and closed statistics', function () {
  this.timeout(60000);

  it('reads the versions file at most once per cache period and keeps the last good value when it breaks', async function () {
    const dir = tempDir('cms-update-versions-');
    try {
      const file = join(dir, 'versions.json');
      writeFileSync(file, JSON.stringify({ latest: '1.4.0', advisories: [] }));
      let now = 1_000_000;
      const logger = createLogger('silent');
      const source = new VersionSource({
        file,
        root: dir,
        fallback: { latest: '0.0.1', advisories: [] },
        cacheSeconds: 3600,
        logger,
        now: () => now,
      });
      await source.prime();
      writeFileSync(file, JSON.stringify({ latest: '1.5.0', advisories: [] }));
      now += 3599_000;
      expect((await source.current()).latest).to.equal('1.4.0');
      now += 2000;
      expect((await source.current()).latest).to.equal('1.5.0');
      writeFileSync(file, '{ not json');
      now += 3601_000;
      expect((await source.current()).latest).to.equal('1.5.0');
      const broken = new VersionSource({ file, root: dir, fallback: { latest: '0.0.1', advisories: [] }, cacheSeconds: 3600, logger });
      let refused: unknown;
      await broken.prime().catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/versions file .* is not usable/);
      const none = new VersionSource({ root: dir, fallback: { latest: '2.0.0', advisories: [] }, cacheSeconds: 3600, logger });
      expect((await none.current()).latest).to.equal('2.0.0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without UPDATE_SERVER_OPERATOR_TOKEN the statistics are closed (403 OPERATOR_TOKEN_INVALID)', async function () {
    const t = await startUpdateServer({ operatorToken: undefined });
    try {
      const res = await t.request('/api/stats', { headers: { authorization: 'Bearer anything-at-all-here' } });
      expect(res.status).to.equal(403);
      expect(await res.json()).to.include({ success: false, error: 'OPERATOR_TOKEN_INVALID' });
    } finally {
      await t.close();
    }
  });
});

describe('update server: an instance never loads it', function () {
  this.timeout(60000);

  it('is not a built-in plugin, and a normal kernel has no /api/register', async function () {
    const builtins = discoverFolder(join(DIST_ROOT, 'plugins')).map((p) => p.manifest.id);
    expect(builtins).to.not.include('update-server');
    expect(builtins).to.include('health');
    const t = await startTestKernel();
    try {
      expect(t.kernel.loader.describe().map((r) => r.id)).to.not.include('update-server');
      const res = await t.request('/api/register', { method: 'POST', json: { installation_id: installationId() } });
      expect(res.status).to.be.oneOf([403, 404]);
    } finally {
      await t.close();
    }
  });

  it("the launcher's config reads UPDATE_SERVER_* only: port 4000 by default, its own data folder and database file", function () {
    const config = updateServerConfig({ PORT: '3000', CMS_DATA_DIR: '/srv/cms', DB_URL: 'mariadb://x@y/z' }, '/tmp');
    expect(config.port).to.equal(4000);
    expect(config.dataPath).to.equal('/tmp/update-server-data');
    expect(config.db).to.include({ type: 'sqlite', storage: 'update-server.sqlite' });
    expect(config.plugins.paths).to.deep.equal([UPDATE_SERVER_PLUGIN_DIR]);
    expect(config.plugins.disabled).to.not.include('health');
    const custom = updateServerConfig({ UPDATE_SERVER_PORT: '4100', UPDATE_SERVER_DB_URL: 'mariadb://u:p@db:3306/updates' }, '/tmp');
    expect(custom.port).to.equal(4100);
    expect(custom.db).to.include({ type: 'mariadb', host: 'db', name: 'updates' });
  });

  it('the README documents the codes of the update server in its own table', function () {
    // The former README section "Update server" is docs/operations/update-server.md (its codes table included).
    const section = readFileSync(join(PROJECT_ROOT, 'docs', 'operations', 'update-server.md'), 'utf8');
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+?) \|$/gm)].map((m) => ({
      code: m[1]!,
      status: Number(m[2]),
      description: m[3]!,
    }));
    const defined = UPDATE_SERVER_ERROR_CATALOGUE.map((e) => ({ ...e }));
    expect(defined.map((e) => e.code)).to.include.members(['SIGNATURE_EXPIRED', 'INVALID_SIGNATURE', 'UNKNOWN_INSTALLATION']);
    // Codes of another service: never in the instance's catalogue (the README's "Error catalogue").
    const instanceCodes = new Set(ERROR_CATALOGUE.map((e) => e.code));
    expect(defined.filter((e) => instanceCodes.has(e.code))).to.deep.equal([]);
    const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);
    expect(rows.sort(byCode)).to.deep.equal(defined.sort(byCode));
  });
});

describe('update server: npm run update-server', function () {
  this.timeout(90000);

  it('starts a real process on UPDATE_SERVER_PORT that answers /api/register, and stops on SIGTERM', async function () {
    const dataDir = tempDir('cms-update-server-npm-');
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const child = spawn('npm', ['run', 'update-server'], {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        UPDATE_SERVER_PORT: String(port),
        UPDATE_SERVER_DATA_DIR: dataDir,
        UPDATE_SERVER_OPERATOR_TOKEN: OPERATOR_TOKEN,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 45000;
      while (Date.now() < deadline && child.exitCode === null && !out.includes('Update server listening on')) await sleep(50);
      expect(out, out).to.contain(`Update server listening on http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ installation_id: installationId() }),
      });
      expect(res.status).to.equal(200);
      const { secret } = (await res.json()) as { secret: string };
      expect(secret).to.match(/^[0-9a-f]{64}$/);
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).to.equal(200);
      expect(readdirSync(dataDir)).to.include('update-server.sqlite');
      // Secrets never reach the log.
      expect(out).to.not.contain(secret);
      expect(out).to.not.contain(OPERATOR_TOKEN);
      child.kill('SIGTERM');
      expect(await Promise.race([exited, sleep(20000).then(() => 'timeout')])).to.equal(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
