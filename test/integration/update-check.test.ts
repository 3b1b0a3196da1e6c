import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { privateConfigPath } from '../../kernel/config.js';
import { createKernel, KERNEL_VERSION, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { UPDATE_SIGNATURE_WINDOW_MS, verifyUpdateSignature } from '../../lib/text/update-signature.js';
import { locationFrom, PAYLOAD_KEYS } from '../../plugins/update-check/payload.js';
import type { UpdateCheckService } from '../../plugins/update-check/service.js';
import { installationIdFrom, signingKeyPath } from '../../plugins/update-check/signing-key.js';
import { UpdateCheckStore } from '../../plugins/update-check/state-store.js';
import { UPDATE_CHECK_MIGRATIONS } from '../../plugins/update-check/migrations.js';
import { MigrationRunner } from '../../kernel/db/migrations.js';
import { DbLock } from '../../kernel/db/lock.js';
import { contentAdmin } from '../helpers/dashboard-fixtures.js';
import { fixturePlugin, sqliteKernelConfig, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { LoopbackServer, requestBody } from '../helpers/loopback-server.js';
import { createUsers } from '../helpers/users.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { openTwoConnections } from '../helpers/two-connections.js';
import { until } from '../helpers/until.js';

interface Captured {
  method: string;
  path: string;
  raw: Buffer;
  json: any;
}

/**
 * A small update server on loopback with the spec's two routes, verifying signatures with the shared
 * module (lib/text/update-signature.ts) as the real one does, and a geolocation endpoint. It keeps
 * every request's bytes, so a test can look for what must never be sent.
 */
class LoopbackUpdateServer extends LoopbackServer<Captured> {
  readonly requests = this.log;
  readonly secrets = new Map<string, string>();
  latest = '9.9.9';
  advisories: unknown[] = [
    { id: 'CMS-2026-001', severity: 'high', affected: '<9.9.9', fixed_in: '9.9.9', summary: 'Stored XSS in titles' },
  ];
  /** Answer every check-update with 403 (a secret the server no longer accepts). */
  alwaysRefuse = false;
  geoStatus = 200;

  override reset(): void {
    super.reset();
    this.alwaysRefuse = false;
    this.geoStatus = 200;
  }

  /** The server rotates the installation's secret: the instance's stored one is refused from now on. */
  rotate(installationId: string): void {
    this.secrets.set(installationId, randomBytes(32).toString('hex'));
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await requestBody(req);
    let json: any = null;
    try {
      json = raw.length ? JSON.parse(raw.toString('utf8')) : null;
    } catch {
      json = null;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? '', path, raw, json });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/geo') {
      if (this.geoStatus !== 200) return send(this.geoStatus, { error: true });
      return send(200, {
        ip: '203.0.113.77',
        city: 'Berlin',
        region: 'Berlin',
        country: 'DE',
        country_name: 'Germany',
        country_code: 'DE',
        latitude: 52.5234,
        longitude: 13.4114,
        org: 'Example Hosting GmbH',
        asn: 'AS64500',
      });
    }
    if (req.method === 'POST' && path === '/api/register') {
      const id = json?.installation_id;
      if (typeof id !== 'string' || !/^[0-9a-f]{64}$/.test(id)) return send(400, { success: false, error: 'VALIDATION_ERROR' });
      const secret = randomBytes(32).toString('hex');
      this.secrets.set(id, secret);
      return send(200, { secret });
    }
    if (req.method === 'POST' && path === '/api/check-update') {
      const { payload, signature, timestamp } = json ?? {};
      const secret = this.secrets.get(payload?.installation_id);
      if (!secret) return send(403, { success: false, error: 'UNKNOWN_INSTALLATION' });
      if (typeof timestamp !== 'number' || Math.abs(Date.now() - timestamp) > UPDATE_SIGNATURE_WINDOW_MS)
        return send(403, { success: false, error: 'SIGNATURE_EXPIRED' });
      if (this.alwaysRefuse || !verifyUpdateSignature(secret, timestamp, payload, String(signature)))
        return send(403, { success: false, error: 'INVALID_SIGNATURE' });
      return send(200, {
        latest_version: this.latest,
        current_version: payload.current_version,
        update_available: true,
        advisories: this.advisories,
      });
    }
    send(404, { success: false, error: 'NOT_FOUND' });
  }
}

const SECRET_MARKERS = {
  email: 'marker.person.7f3a@example.org',
  password: 'Marker-Password-Q9zz',
  content: 'MARKER-CONTENT-5c1d-never-sent',
  collection: 'markernotes',
  encryptionKey: 'marker-encryption-key-0b9e1c7d5a3f',
  jwtKey: 'marker-jwt-key-44aa0c3e2f19d7',
};

const service = (t: { kernel: Kernel }) => t.kernel.container.resolve<UpdateCheckService>('updateCheck');

describe('update check (the update-check plugin)', function () {
  this.timeout(60000);
  const server = new LoopbackUpdateServer();
  const open: TestKernel[] = [];
  before(() => server.start());
  after(async () => {
    for (const t of open) await t.close();
    await server.close();
  });
  beforeEach(() => server.reset());

  /** An instance pointed at the loopback server; the check is enabled explicitly (tests run with NODE_ENV=test, maybe with CI set). */
  async function instance(options: Record<string, unknown> = {}, extra: { setup?: boolean; config?: Record<string, any> } = {}) {
    const t = await startTestKernel({
      plugins: [fixturePlugin('test-identity')],
      setup: extra.setup,
      noStart: true,
      config: {
        plugins: {
          options: {
            auth: { bcryptRounds: 4 },
            'update-check': {
              allowInTests: true,
              ci: false,
              url: server.url,
              geolocationUrl: `${server.url}/geo`,
              initialDelayMs: 60000,
              jitterMs: 0,
              ...options,
            },
            ...(extra.config ?? {}),
          },
        },
      },
    });
    open.push(t);
    t.kernel.config.secrets.encryptionKey = SECRET_MARKERS.encryptionKey;
    t.kernel.config.secrets.jwtSecretKey = SECRET_MARKERS.jwtKey;
    await t.kernel.start();
    return t;
  }

  describe('a check against the loopback update server', function () {
    let t: TestKernel;
    /** Every byte the instance posted to the update server in the first check. */
    let firstSent = '';
    before(async function () {
      t = await instance();
      await createUsers(t, { email: SECRET_MARKERS.email, password: SECRET_MARKERS.password, role: 'editor' });
      const content = contentAdmin(t);
      await content.collections.create({ name: SECRET_MARKERS.collection, fields: [{ name: 'title', type: 'text', required: true }] });
      await content.entries(SECRET_MARKERS.collection).create({ title: SECRET_MARKERS.content });
    });

    it('registers once, then posts {payload, signature, timestamp} with exactly the spec fields, signed over the canonical JSON', async function () {
      expect(await service(t).tick()).to.equal('checked');
      expect(server.of('/api/register')).to.have.length(1);
      const checks = server.of('/api/check-update');
      expect(checks).to.have.length(1);
      const envelope = checks[0]!.json;
      expect(Object.keys(envelope).sort()).to.deep.equal(['payload', 'signature', 'timestamp']);
      expect(envelope.timestamp).to.be.a('number').and.satisfy(Number.isSafeInteger);
      expect(envelope.signature).to.match(/^[0-9a-f]{64}$/);
      const payload = envelope.payload;
      expect(Object.keys(payload).sort()).to.deep.equal([...PAYLOAD_KEYS].sort());
      expect(Object.keys(payload.location).sort()).to.deep.equal(
        ['city', 'country', 'country_code', 'isp', 'latitude', 'longitude', 'org', 'region'].sort(),
      );
      expect(Object.keys(payload.metrics).sort()).to.deep.equal(['collections', 'roles', 'users']);
      expect(Object.keys(payload.system).sort()).to.deep.equal(['cpu_count', 'cpu_model', 'os_arch', 'os_type', 'total_memory_gb']);
      // The registration secret the server handed out signs it.
      const installationId = payload.installation_id;
      expect(installationId).to.match(/^[0-9a-f]{64}$/);
      expect(verifyUpdateSignature(server.secrets.get(installationId)!, envelope.timestamp, payload, envelope.signature)).to.equal(true);
      // Derived from the instance's private signing key (generated once into <data>/private/signing-key.json).
      const key = JSON.parse(readFileSync(signingKeyPath(t.config.dataPath), 'utf8')).SIGNING_KEY;
      expect(installationId).to.equal(installationIdFrom(key));
      expect(statSync(signingKeyPath(t.config.dataPath)).mode & 0o777).to.equal(0o600);
      // Values.
      expect(payload).to.include({ current_version: KERNEL_VERSION, environment: 'test', db_type: 'sqlite' });
      expect(payload.node_version).to.equal(process.versions.node);
      expect(payload.is_ephemeral, 'a data folder under the temporary folder').to.equal(true);
      expect(payload.stable_id).to.match(/^[0-9a-f]{64}$/);
      expect(payload.location).to.deep.equal({
        country: 'Germany',
        country_code: 'DE',
        region: 'Berlin',
        city: 'Berlin',
        latitude: 52.5,
        longitude: 13.4,
        isp: null,
        org: 'Example Hosting GmbH',
      });
      expect(payload.metrics.users).to.be.at.least(1);
      expect(payload.metrics.collections).to.be.at.least(1);
      expect(payload.metrics.roles).to.equal(4);
      expect(payload.system.cpu_count).to.be.a('number').and.above(0);
      for (const field of ['widgets', 'dashboard_widgets', 'plugins']) {
        expect(payload[field], field).to.be.a('string');
        expect(JSON.parse(payload[field]), field).to.be.an('array');
      }
      expect(JSON.parse(payload.plugins)).to.include.members(['update-check', 'auth', 'content']);
      expect(JSON.parse(payload.widgets)).to.include('system-messages');
      firstSent = server.requests
        .filter((r) => r.method === 'POST')
        .map((r) => r.raw.toString('utf8'))
        .join('\n');
    });

    it('never sends database content, credentials, e-mail addresses, keys or IP addresses', async function () {
      // Every byte the instance sent to the update server (the geolocation lookup is a GET without a body).
      const sent = firstSent;
      expect(sent.length).to.be.above(100);
      const signingKey = JSON.parse(readFileSync(signingKeyPath(t.config.dataPath), 'utf8')).SIGNING_KEY as string;
      const forbidden = [
        ...Object.values(SECRET_MARKERS).filter((v) => v !== SECRET_MARKERS.collection),
        signingKey,
        ...server.secrets.values(),
        '203.0.113.77',
        'example.org',
      ];
      for (const value of forbidden) expect(sent, `must not contain ${value.slice(0, 12)}…`).to.not.include(value);
      expect(sent, 'no IPv4 address').to.not.match(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/);
      expect(sent, 'no address of the instance').to.not.include(new URL(t.url).host);
    });

    it('checks once per period: a second run in the same period sends nothing', async function () {
      expect(await service(t).tick()).to.equal('not-due');
      expect(server.requests).to.have.length(0);
    });

    it('the latest version and the advisories reach GET /api/telemetry/status (system:read) and the dashboard', async function () {
      const res = await t.request('/api/telemetry/status', { identity: 'editor' });
      expect(res.status).to.equal(200);
      const data = (await res.json()).data;
      expect(data).to.include({ enabled: true, latestVersion: '9.9.9', updateAvailable: true, registered: true, lastError: null });
      expect(data.advisories).to.deep.equal([
        { id: 'CMS-2026-001', severity: 'high', affected: '<9.9.9', fixedIn: '9.9.9', summary: 'Stored XSS in titles' },
      ]);
      expect(data.checkedAt).to.be.a('string');
      expect(JSON.stringify(data)).to.not.match(/secret|installation/i);
      expect((await t.request('/api/telemetry/status', { identity: 'viewer' })).status).to.equal(403);
      expect((await t.request('/api/telemetry/status')).status).to.equal(401);
      const messages = (await (await t.request('/api/dashboard/system-messages', { identity: 'viewer' })).json()).data.messages;
      const mine = messages.filter((m: { message: string }) => m.message.includes('Version 9.9.9 is available'));
      expect(mine, 'one system message').to.have.length(1);
      expect(mine[0].severity).to.equal('high');
      expect(mine[0].message).to.include('CMS-2026-001');
    });

    it('after a 403 discards the secret, registers again and retries once', async function () {
      const installationId = (await service(t).store.state()).installationId!;
      server.rotate(installationId);
      await service(t).store.reset();
      expect(await service(t).tick()).to.equal('checked');
      expect(server.of('/api/check-update')).to.have.length(2);
      expect(server.of('/api/register')).to.have.length(1);
      // A server that keeps refusing: one re-registration, one retry, then the failure is recorded.
      server.reset();
      server.alwaysRefuse = true;
      await service(t).store.reset();
      expect(await service(t).tick()).to.equal('failed');
      expect(server.of('/api/check-update')).to.have.length(2);
      expect(server.of('/api/register')).to.have.length(1);
      const data = (await (await t.request('/api/telemetry/status', { identity: 'admin' })).json()).data;
      expect(data.lastError).to.match(/403 INVALID_SIGNATURE/);
      // The failed period may be tried again after retryMs, not a whole period later; within it, nothing is sent.
      server.reset();
      expect(await service(t).tick()).to.equal('not-due');
      expect(server.requests).to.have.length(0);
    });

    it('skips a run while the database is not connected', async function () {
      await service(t).store.reset();
      const sequelize = t.kernel.sequelize;
      const authenticate = sequelize.authenticate;
      sequelize.authenticate = () => Promise.reject(new Error('connection refused'));
      try {
        expect(await service(t).tick()).to.equal('no-database');
      } finally {
        sequelize.authenticate = authenticate;
      }
      expect(server.requests).to.have.length(0);
    });

    it('GET /api/telemetry/diagnose (admins) runs registration, a signed ping and a geolocation check', async function () {
      expect((await t.request('/api/telemetry/diagnose', { identity: 'editor' })).status).to.equal(403);
      const res = await t.request('/api/telemetry/diagnose', { identity: 'admin' });
      expect(res.status).to.equal(200);
      const data = (await res.json()).data;
      expect(data.enabled).to.equal(true);
      expect(data.steps.map((s: { step: string }) => s.step)).to.deep.equal(['registration', 'signed-ping', 'geolocation']);
      for (const s of data.steps) {
        expect(s.ok, `${s.step}: ${s.error}`).to.equal(true);
        expect(s.ms).to.be.a('number').and.at.least(0);
      }
      // The geolocation lookup failing: that step says so, the ping still works with a null location.
      server.reset();
      server.geoStatus = 500;
      const failing = (await (await t.request('/api/telemetry/diagnose', { identity: 'admin' })).json()).data;
      const geo = failing.steps.find((s: { step: string }) => s.step === 'geolocation');
      expect(geo).to.include({ ok: false });
      expect(geo.error).to.match(/HTTP 500/);
      expect(failing.steps.find((s: { step: string }) => s.step === 'signed-ping').ok).to.equal(true);
      expect(server.of('/api/check-update').at(-1)!.json.payload.location).to.deep.equal({
        country: null,
        country_code: null,
        region: null,
        city: null,
        latitude: null,
        longitude: null,
        isp: null,
        org: null,
      });
    });
  });

  it('reads both common geolocation answer shapes and keeps only the eight location fields, rounded', function () {
    const ipApi = locationFrom({
      status: 'success',
      query: '198.51.100.9',
      country: 'Canada',
      countryCode: 'CA',
      regionName: 'Quebec',
      city: 'Montreal',
      lat: 45.5088,
      lon: -73.5878,
      isp: 'Example ISP',
      org: 'Example Org',
    });
    expect(ipApi).to.deep.equal({
      country: 'Canada',
      country_code: 'CA',
      region: 'Quebec',
      city: 'Montreal',
      latitude: 45.5,
      longitude: -73.6,
      isp: 'Example ISP',
      org: 'Example Org',
    });
    expect(locationFrom({ status: 'fail', message: 'private range' })).to.deep.equal(locationFrom(null));
    expect(Object.values(locationFrom('nonsense')).every((v) => v === null)).to.equal(true);
  });

  it('runs the first check by itself shortly after WARMED (CMS_TELEMETRY_INITIAL_DELAY_MS)', async function () {
    const t = await instance({ initialDelayMs: 50 });
    // Nobody calls tick(): the timer set when the plugin booted in the warmed phase does.
    const data = await until(
      async () => {
        const d = (await (await t.request('/api/telemetry/status', { identity: 'admin' })).json()).data;
        return d.latestVersion ? d : undefined;
      },
      'the first check',
      20000,
    );
    expect(data.latestVersion).to.equal('9.9.9');
    expect(server.of('/api/check-update')).to.have.length(1);
    await t.close();
  });

  describe('disabled', function () {
    /** A kernel whose plugins read `env` (instead of process.env): CMS_TELEMETRY and CI as an operator sets them. */
    async function withEnv(env: Record<string, string>, options: Record<string, unknown> = {}) {
      const dataDir = tempDir();
      const config = sqliteKernelConfig(dataDir, {
        logLevel: 'silent',
        plugins: {
          paths: [fixturePlugin('test-identity')],
          disabled: ['setup'],
          options: {
            'update-check': {
              allowInTests: true,
              url: server.url,
              geolocationUrl: `${server.url}/geo`,
              initialDelayMs: 20,
              ...options,
            },
          },
        },
      });
      const kernel = createKernel({ config, env, logger: createLogger('silent') });
      await kernel.start();
      return kernel;
    }

    async function expectDisabled(kernel: Kernel, reason: string) {
      await sleep(300);
      expect(await kernel.container.resolve<UpdateCheckService>('updateCheck').tick()).to.equal('disabled');
      const res = await fetch(`${kernel.url}/api/telemetry/diagnose`, { headers: { 'x-test-identity': 'admin' } });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as any).data).to.deep.include({ enabled: false, reason, steps: [] });
      const status = (
        (await (await fetch(`${kernel.url}/api/telemetry/status`, { headers: { 'x-test-identity': 'admin' } })).json()) as any
      ).data;
      expect(status).to.include({ enabled: false, reason, latestVersion: null, updateAvailable: false });
      expect(server.requests, 'nothing sent, not even the geolocation lookup').to.have.length(0);
    }

    it('by CMS_TELEMETRY=false', async function () {
      const kernel = await withEnv({ CMS_TELEMETRY: 'false', CI: '' });
      try {
        await expectDisabled(kernel, 'telemetry-off');
      } finally {
        await kernel.close();
      }
    });

    it('in CI: the CI variable, or the ci option', async function () {
      const kernel = await withEnv({ CI: 'true' });
      try {
        await expectDisabled(kernel, 'ci');
      } finally {
        await kernel.close();
      }
      const byOption = await withEnv({}, { ci: true });
      try {
        await expectDisabled(byOption, 'ci');
      } finally {
        await byOption.close();
      }
    });

    it('in a test run (NODE_ENV=test) unless the test enables it', async function () {
      const kernel = await withEnv({}, { allowInTests: false, ci: false });
      try {
        await expectDisabled(kernel, 'test-environment');
      } finally {
        await kernel.close();
      }
    });

    it('when the UPDATE_CHECK_ENABLED setting is false; setup generated the signing key; TELEMETRY_URL is read from the settings', async function () {
      const t = await instance(
        { url: undefined },
        { setup: true, config: { setup: { admin: { email: 'first.admin@example.com', password: 'first-admin-password' } } } },
      );
      // Headless setup wrote the private config and, beside it, the signing key (config.json keeps its keys).
      expect(existsSync(signingKeyPath(t.config.dataPath))).to.equal(true);
      expect(JSON.parse(readFileSync(signingKeyPath(t.config.dataPath), 'utf8')).SIGNING_KEY).to.match(/^[0-9a-f]{64}$/);
      expect(JSON.parse(readFileSync(privateConfigPath(t.config.dataPath), 'utf8'))).to.not.have.property('SIGNING_KEY');
      const settings = t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings');
      // No server address anywhere: disabled, saying why.
      expect(await service(t).tick()).to.equal('disabled');
      expect((await (await t.request('/api/telemetry/diagnose', { identity: 'admin' })).json()).data.reason).to.equal('no-server');
      await settings.set('TELEMETRY_URL', server.url);
      await settings.set('UPDATE_CHECK_ENABLED', false);
      await expectDisabledInstance(t, 'setting-off');
      await settings.set('UPDATE_CHECK_ENABLED', true);
      expect(await service(t).tick()).to.equal('checked');
      expect(server.of('/api/check-update')).to.have.length(1);
      await t.close();
    });

    async function expectDisabledInstance(t: TestKernel, reason: string) {
      expect(await service(t).tick()).to.equal('disabled');
      const data = (await (await t.request('/api/telemetry/diagnose', { identity: 'admin' })).json()).data;
      expect(data).to.deep.include({ enabled: false, reason, steps: [] });
      expect(server.requests).to.have.length(0);
    }
  });
});

for (const variant of DB_VARIANTS) {
  describe(`update check: once per period across instances (${variant.name})`, function () {
    this.timeout(60000);
    it('of two instances claiming the same period at once, exactly one wins; the period ends for both', async function () {
      requireVariant(this, variant);
      const two = await openTwoConnections(variant, 'cms-update-check');
      try {
        const logger = createLogger('silent');
        await new MigrationRunner(two.dbA, new DbLock(two.dbA), logger).run(UPDATE_CHECK_MIGRATIONS);
        const a = new UpdateCheckStore(two.dbA, () => 'key-material');
        const b = new UpdateCheckStore(two.dbB, () => 'key-material');
        const period = 60_000;
        for (let round = 0; round < 5; round++) {
          await a.reset();
          const wins = await Promise.all([a.claim('a', period), b.claim('b', period), a.claim('a2', period), b.claim('b2', period)]);
          expect(wins.filter(Boolean), `round ${round}`).to.have.length(1);
        }
        expect(await b.claim('b', period)).to.equal(false);
        expect(await a.claim('a', period, Date.now() + period + 1)).to.equal(true);
        // The secret is sealed: another instance with the same key material reads it; other material reads nothing.
        await a.setSecret('f'.repeat(64));
        expect(await b.secret()).to.equal('f'.repeat(64));
        expect(await new UpdateCheckStore(two.dbB, () => 'other').secret()).to.equal(null);
      } finally {
        await two.close();
      }
    });
  });
}
