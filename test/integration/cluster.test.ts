import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import { simpleParser } from 'mailparser';
import mariadb from 'mariadb';
import { stringify } from 'safe-stable-stringify';
import WebSocket from 'ws';
import { startCluster, type Cluster } from '../../cluster/start-cluster.js';
import {
  call,
  everyInstance,
  login,
  nginxOf,
  ok,
  requireClusterServices,
  requireNginx,
  retryUnanswered,
} from '../helpers/cluster-client.js';
import { POSTS } from '../helpers/content.js';
import { imageBytes } from '../helpers/media-upload.js';
import { MARIADB_URL } from '../helpers/services.js';

/**
 * Issue 23: three kernel processes behind a load balancer on one MariaDB database, one Redis and an S3
 * protocol server (cluster/start-cluster.ts); since issue 41 the load balancer is nginx with the
 * configuration the deployment guide shows (cluster/nginx/cms.conf.template). One cluster for the whole
 * file; requests go through nginx, or to one instance directly where the test must know which one answers.
 */
const PASSWORD = 'cluster member password';

describe('cluster: 3 instances behind nginx (MariaDB, Redis, S3)', function () {
  this.timeout(240000);
  let c: Cluster;
  let admin: string;

  before(async function () {
    const services = requireClusterServices(this, 'cluster tests');
    requireNginx(this, 'cluster tests');
    this.timeout(180000);
    c = await startCluster({
      instances: 3,
      ...services,
      proxy: 'nginx',
      logLevel: 'info',
      drainMs: 1000,
      env: { CMS_RATE_LIMIT_ENABLED: 'false', CMS_POOL_MAX_THREADS: '1', CMS_JOBS_POLL_MS: '500' },
      config: {
        multiTenant: true,
        plugins: {
          options: {
            auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' },
            graphql: { recheckSeconds: 0.3 },
          },
        },
      },
    });
    admin = await login(c.url, c.admin.email, c.admin.password);
  });
  after(async function () {
    this.timeout(120000);
    await c?.stop();
  });

  const createUser = async (email: string, role: string) =>
    ok(await call(c.url, '/api/user/create-user', { cookie: admin, json: { email, password: PASSWORD, role } }), 201);

  it('three instances starting together on an empty database run each migration once, and set up once', async function () {
    const lines = c.instances.flatMap((i) => readFileSync(i.logFile, 'utf8').split('\n'));
    const applied = lines.filter((l) => l.includes('"migration applied"')).map((l) => JSON.parse(l).migration as string);
    expect(applied.length, 'migrations were applied').to.be.greaterThan(10);
    const counts = new Map<string, number>();
    for (const name of applied) counts.set(name, (counts.get(name) ?? 0) + 1);
    expect(
      [...counts].filter(([, n]) => n !== 1),
      'migrations applied more than once',
    ).to.deep.equal([]);
    const server = new URL(MARIADB_URL!);
    const conn = await mariadb.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username || 'root'),
      password: decodeURIComponent(server.password),
      database: c.database,
    });
    try {
      const rows = await conn.query('SELECT name FROM cms_migrations');
      expect(rows.map((r: { name: string }) => r.name).sort()).to.deep.equal([...counts.keys()].sort());
      const admins = await conn.query("SELECT COUNT(*) AS n FROM auth_users WHERE role = 'admin'");
      expect(Number(admins[0].n), 'one admin from the headless setup').to.equal(1);
    } finally {
      await conn.end();
    }
    expect(lines.filter((l) => l.includes('setup completed from configuration')).length).to.equal(1);
    expect(
      lines.filter((l) => /"level":(50|60)/.test(l)),
      'no errors logged while starting',
    ).to.deep.equal([]);
  });

  it('a session revoked, or a user blocked, through one instance is refused by every instance', async function () {
    const { _id: userId } = await createUser('revoked@cluster.test', 'editor');
    const cookie = await login(c.url, 'revoked@cluster.test', PASSWORD);
    // Each instance has seen (and cached) the session.
    await everyInstance(c, 'session accepted', async (base) => (await call(base, '/api/user/me', { cookie })).status === 200);
    const { sessions } = ok(await call(c.url, `/api/user/sessions?admin=1&userId=${userId}`, { cookie: admin }));
    expect(sessions).to.have.length(1);
    ok(await call(c.instances[0]!.url, `/api/user/sessions/${sessions[0]._id}?admin=1`, { method: 'DELETE', cookie: admin }));
    const revokedMs = await everyInstance(
      c,
      'revoked session refused',
      async (base) => (await call(base, '/api/user/me', { cookie })).status === 401,
    );

    const { _id: blockedId } = await createUser('blocked@cluster.test', 'editor');
    const blockedCookie = await login(c.url, 'blocked@cluster.test', PASSWORD);
    await everyInstance(
      c,
      'session accepted',
      async (base) => (await call(base, '/api/user/me', { cookie: blockedCookie })).status === 200,
    );
    ok(await call(c.instances[1]!.url, `/api/user/${blockedId}/block`, { cookie: admin, json: { blocked: true } }));
    const blockedMs = await everyInstance(
      c,
      'blocked user refused',
      async (base) => (await call(base, '/api/user/me', { cookie: blockedCookie })).status === 401,
    );
    console.log(`      refused everywhere after ${revokedMs} ms (revoked session) and ${blockedMs} ms (blocked user)`);
  });

  it('a role change through one instance applies on every instance', async function () {
    const { _id: userId } = await createUser('promoted@cluster.test', 'viewer');
    const cookie = await login(c.url, 'promoted@cluster.test', PASSWORD);
    await everyInstance(c, 'viewer everywhere', async (base) => ok(await call(base, '/api/user/me', { cookie })).role === 'viewer');
    ok(await call(c.instances[2]!.url, `/api/user/${userId}/role`, { method: 'PUT', cookie: admin, json: { role: 'editor' } }));
    const ms = await everyInstance(c, 'editor everywhere', async (base) => {
      const me = ok(await call(base, '/api/user/me', { cookie }));
      return me.role === 'editor' && me.permissions.includes('content:write');
    });
    console.log(`      role seen everywhere after ${ms} ms`);
  });

  it('a write through one instance is visible on the next read through any instance (lists, themes, branding)', async function () {
    ok(await call(c.url, '/api/collections', { cookie: admin, json: { ...POSTS, name: 'notes' } }), 201);
    const titles = async (base: string) =>
      (ok(await call(base, '/api/collections/notes?limit=100', { cookie: admin })).items as any[]).map((e) => e.title ?? e.data?.title);
    // Every instance has the list cached before the writes.
    for (const i of c.instances) expect(await titles(i.url)).to.deep.equal([]);
    for (const [n, writer] of c.instances.entries()) {
      ok(await call(writer.url, '/api/collections/notes', { cookie: admin, json: { title: `written on ${n + 1}` } }), 201);
      for (const reader of c.instances) {
        expect(await titles(reader.url), `instance ${reader.index} after a write on ${writer.index}`).to.include(`written on ${n + 1}`);
      }
    }
    const theme = ok(
      await call(c.instances[0]!.url, '/api/theme/create', {
        cookie: admin,
        json: { name: 'Cluster', settings: { branding: { siteName: 'First' } } },
      }),
      201,
    );
    const themeId = theme._id ?? theme.id;
    const siteName = async (base: string) => ok(await call(base, '/api/theme/effective', { cookie: admin })).branding?.siteName;
    // The seeded default theme is active and cached everywhere; activating the new one through instance 1 shows at once.
    const before = await siteName(c.instances[0]!.url);
    for (const i of c.instances) expect(await siteName(i.url)).to.equal(before);
    ok(await call(c.instances[0]!.url, '/api/theme/activate', { cookie: admin, json: { themeId } }));
    for (const i of c.instances) expect(await siteName(i.url), `instance ${i.index}`).to.equal('First');
    ok(await call(c.instances[1]!.url, '/api/theme/update-branding', { cookie: admin, json: { themeId, siteName: 'Second' } }));
    for (const i of c.instances) expect(await siteName(i.url), `instance ${i.index} after the branding change`).to.equal('Second');
  });

  it('settings and public branding written through one instance are what every instance answers a guest next', async function () {
    // Public branding of a tenant (cached 10 minutes per tenant in the shared cache) after a change through another instance.
    // The tenant is created through instance 1; its hostname resolves on every instance (announced, not after the 30 s re-read).
    ok(
      await call(c.instances[0]!.url, '/api/tenants', {
        cookie: admin,
        json: { id: 'acme', name: 'Acme', hostnames: ['acme.example'], admin: { email: 'boss@acme.example', password: PASSWORD } },
      }),
      201,
    );
    const boss = await login(c.instances[0]!.url, 'boss@acme.example', PASSWORD, 'acme.example');
    const theme = ok(
      await call(c.instances[0]!.url, '/api/theme/create', {
        cookie: boss,
        json: { name: 'Acme', settings: { branding: { siteName: 'Acme One', accentColor: '#f97316' } } },
      }),
      201,
    );
    const branding = async (base: string, query: string) => ok(await call(base, `/api/theme/public${query}`));
    const ms = await everyInstance(
      c,
      'the new tenant by its hostname',
      async (base) => (await branding(base, '?hostname=acme.example')).siteName === 'Acme One',
      1000,
      5,
    );
    console.log(`      the new tenant's hostname resolved everywhere after ${ms} ms`);
    for (const i of c.instances)
      expect(await branding(i.url, '?tenantId=acme'), `instance ${i.index}`).to.include({ siteName: 'Acme One' });
    ok(
      await call(c.instances[1]!.url, '/api/theme/update-branding', {
        cookie: boss,
        json: { themeId: theme.id, siteName: 'Acme Two', accentColor: '#0369a1' },
      }),
    );
    for (const i of c.instances) {
      expect(await branding(i.url, '?tenantId=acme'), `instance ${i.index} after the change on 2`).to.deep.equal({
        siteName: 'Acme Two',
        logoUrl: null,
        accentColor: '#0369a1',
      });
      expect(await branding(i.url, '?hostname=acme.example'), `instance ${i.index} by hostname`).to.include({ siteName: 'Acme Two' });
    }

    // A setting (SITE_NAME, the site name the sign-in page reads from the setup status) changed by configuration sync:
    // the bundle is downloaded from instance 1, edited, uploaded to instance 2, planned and applied on instance 3.
    const download = await fetch(`${c.instances[0]!.url}/api/config/bundle`, { headers: { cookie: admin } });
    expect(download.status).to.equal(200);
    const bundle = (await download.json()) as { files: Array<Record<string, any>> };
    const canonical = (data: unknown) => createHash('sha256').update(stringify(data)!).digest('hex');
    const data = { value: 'Renamed through sync' };
    const existing = bundle.files.find((f) => f.type === 'setting' && f.name === 'SITE_NAME');
    const file = { type: 'setting', name: 'SITE_NAME', uuid: existing?.uuid ?? null, data, checksum: canonical(data) };
    bundle.files = [...bundle.files.filter((f) => f !== existing), existing ? { ...existing, ...file } : file];
    const siteName = async (base: string) => ok(await call(base, '/api/setup/status')).siteName;
    for (const i of c.instances) expect(await siteName(i.url), `instance ${i.index}`).to.not.equal(data.value);
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify(bundle)], { type: 'application/json' }), 'config-bundle.json');
    const upload = ok(await call(c.instances[1]!.url, '/api/config/bundle', { cookie: admin, body: form }));
    expect(upload.valid, JSON.stringify(upload.problems)).to.equal(true);
    const plan = ok(
      await call(c.instances[1]!.url, '/api/config/plan', { cookie: admin, json: { uploadId: upload.uploadId, types: ['setting'] } }),
    );
    expect(plan.blockedReasons ?? []).to.deep.equal([]);
    const applied = ok(
      await call(c.instances[2]!.url, '/api/config/apply', { cookie: admin, json: { planId: plan.planId, confirmed: true } }),
    );
    expect(applied.outcome).to.equal('success');
    for (const i of c.instances) expect(await siteName(i.url), `instance ${i.index} after the apply`).to.equal(data.value);
    // The default tenant's public theme branding stays null, as the spec says.
    for (const i of c.instances)
      expect(await branding(i.url, ''), `instance ${i.index}`).to.deep.equal({ siteName: null, logoUrl: null, accentColor: null });
  });

  it('a GraphQL subscriber on instance B receives an entry created through instance A', async function () {
    const cookie = admin;
    const b = c.instances[1]!;
    const received: any[] = [];
    const client = createClient({
      url: `${b.url.replace(/^http/, 'ws')}/api/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { cookie } });
        }
      },
      retryAttempts: 0,
      lazy: true,
    });
    let failed: unknown = null;
    client.subscribe(
      { query: 'subscription { postAdded { _id title } }' },
      { next: (v) => void received.push(v), error: (e) => void (failed = e), complete: () => undefined },
    );
    try {
      // The subscription is live once the server has it: retry creating until one arrives (bounded).
      const deadline = Date.now() + 20000;
      let n = 0;
      while (!received.length) {
        if (failed) throw new Error(`subscription failed: ${JSON.stringify(failed)}`);
        if (Date.now() > deadline) throw new Error('no postAdded event arrived on instance B');
        ok(await call(c.instances[0]!.url, '/api/collections/posts', { cookie, json: { title: `from A ${++n}` } }), 201);
        const until = Date.now() + 1000;
        while (!received.length && Date.now() < until) await sleep(20);
      }
      expect(received[0].data.postAdded.title).to.match(/^from A \d+$/);
    } finally {
      await client.dispose();
    }
  });

  it('a GraphQL subscription works through nginx too (WebSocket upgrade proxied)', async function () {
    const before = nginxOf(c).counts().upgrades;
    const received: any[] = [];
    const client = createClient({
      url: `${c.url.replace(/^http/, 'ws')}/api/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { cookie: admin } });
        }
      },
      retryAttempts: 0,
      lazy: true,
    });
    client.subscribe(
      { query: 'subscription { postAdded { title } }' },
      { next: (v) => void received.push(v), error: () => undefined, complete: () => undefined },
    );
    try {
      const deadline = Date.now() + 20000;
      while (!received.length) {
        if (Date.now() > deadline) throw new Error('no postAdded event arrived through nginx');
        ok(await call(c.url, '/api/collections/posts', { cookie: admin, json: { title: 'through nginx' } }), 201);
        const until = Date.now() + 1000;
        while (!received.length && Date.now() < until) await sleep(20);
      }
    } finally {
      await client.dispose();
    }
    // nginx logs the upgrade (101) when the WebSocket closes.
    for (const until = Date.now() + 5000; nginxOf(c).counts().upgrades <= before && Date.now() < until;) await sleep(50);
    expect(nginxOf(c).counts().upgrades).to.be.greaterThan(before);
  });

  it('20 concurrent wrong-password sign-ins spread over the instances lock the account after exactly 5 counted failures', async function () {
    await createUser('locked@cluster.test', 'editor');
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(c.instances[i % 3]!.url, '/api/user/login', { json: { email: 'locked@cluster.test', password: `wrong ${i}` } }).then(
          (a) => a.status,
        ),
      ),
    );
    expect(
      statuses.filter((s) => s === 401),
      JSON.stringify(statuses),
    ).to.have.length(5);
    expect(
      statuses.filter((s) => s === 403),
      JSON.stringify(statuses),
    ).to.have.length(15);
    for (const i of c.instances) {
      const right = await call(i.url, '/api/user/login', { json: { email: 'locked@cluster.test', password: PASSWORD } });
      expect(right.status, `instance ${i.index}`).to.equal(403);
      expect(right.body.error).to.equal('ACCOUNT_LOCKED');
    }
  });

  it('50 concurrent claims of one reset token across the instances give exactly one winner', async function () {
    await createUser('reset@cluster.test', 'editor');
    const asked = c.instances[0]!;
    ok(await call(asked.url, '/api/user/forgot-password', { json: { email: 'reset@cluster.test' } }));
    // No SMTP configured: the mail lands in that instance's outbox as an .eml file.
    const outbox = join(asked.dataDir, 'outbox');
    let token: string | undefined;
    const deadline = Date.now() + 15000;
    while (!token) {
      if (Date.now() > deadline) throw new Error('no reset mail in the outbox');
      for (const file of existsSync(outbox) ? readdirSync(outbox) : []) {
        const mail = await simpleParser(readFileSync(join(outbox, file)));
        const to = Array.isArray(mail.to) ? mail.to[0]?.text : mail.to?.text;
        if (to?.includes('reset@cluster.test')) token = /token=([A-Za-z0-9_-]{20,})/.exec(mail.text ?? '')?.[1];
      }
      if (!token) await sleep(50);
    }
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(c.instances[i % 3]!.url, '/api/user/reset-password', { json: { token, password: `new password ${i}` } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 200),
      JSON.stringify(statuses),
    ).to.have.length(1);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      JSON.stringify(statuses),
    ).to.equal(true);
    const winner = answers.findIndex((a) => a.status === 200);
    expect(await login(c.url, 'reset@cluster.test', `new password ${winner}`)).to.match(/^session=/);
  });

  it('media uploaded through one instance is served by every instance (S3 driver), and a share link opens through any', async function () {
    const png = await imageBytes(16, 16);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)]), 'cluster.png');
    const item = ok(await call(c.instances[0]!.url, '/api/media/upload', { cookie: admin, body: form }), 201);
    for (const i of c.instances) {
      const meta = ok(await call(i.url, `/api/media/${item._id}`, { cookie: admin }));
      expect(meta.filename ?? meta.originalName, `instance ${i.index}`).to.be.a('string');
      const file = await fetch(`${i.url}${item.url}`, { headers: { cookie: admin } });
      expect(file.status, `file on instance ${i.index}`).to.equal(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(png), `same bytes on instance ${i.index}`).to.equal(true);
    }
    const share = ok(await call(c.instances[1]!.url, `/api/media/share/${item._id}`, { cookie: admin, json: { password: 'open sesame' } }));
    for (const i of c.instances) {
      const opened = await call(
        i.url,
        `/api/media/share?${new URLSearchParams({ id: item._id, token: share.token, password: 'open sesame' })}`,
      );
      expect(ok(opened), `share on instance ${i.index}`).to.include({ filename: 'cluster.png' });
    }
    ok(await call(c.instances[2]!.url, `/api/media/share/${item._id}/${share.token}`, { method: 'DELETE', cookie: admin }));
    for (const i of c.instances) {
      const gone = await call(
        i.url,
        `/api/media/share?${new URLSearchParams({ id: item._id, token: share.token, password: 'open sesame' })}`,
      );
      expect(gone.status, `revoked share on instance ${i.index}`).to.equal(404);
    }
  });

  it('a rolling restart (SIGTERM one instance at a time) under bounded load through nginx fails no request', async function () {
    this.timeout(180000);
    const results = { ok: 0, failed: [] as string[] };
    // Requests sent again because a reload of nginx closed their connection before any answer (see retryUnanswered).
    const unanswered = { retries: 0 };
    let running = true;
    const paths = ['/api/collections/posts?limit=5', '/api/health', '/api/user/me'];
    const worker = async (w: number) => {
      for (let n = 0; running && n < 5000; n++) {
        const path = paths[(w + n) % paths.length]!;
        try {
          const res = await retryUnanswered(async () => {
            const r = await fetch(`${c.url}${path}`, { headers: { cookie: admin }, signal: AbortSignal.timeout(15000) });
            await r.arrayBuffer();
            return r;
          }, unanswered);
          if (res.status === 200) results.ok++;
          else results.failed.push(`${path}: ${res.status}`);
        } catch (err) {
          results.failed.push(`${path}: ${(err as Error).message}`);
        }
      }
    };
    const written: string[] = [];
    const writer = async () => {
      for (let n = 0; running && n < 2000; n++) {
        try {
          // Sent again with the same Idempotency-Key, a write is made once (a key still being processed: 409, retried).
          const headers = { 'idempotency-key': `rolling-${c.database}-${n}` };
          const send = () => call(c.url, '/api/collections/notes', { cookie: admin, headers, json: { title: `rolling ${n}` } });
          let a = await retryUnanswered(send, unanswered);
          for (let k = 0; a.status === 409 && a.body?.error === 'IDEMPOTENCY_KEY_IN_USE' && k < 20; k++) {
            await sleep(200);
            a = await retryUnanswered(send, unanswered);
          }
          if (a.status === 201) written.push(a.body.data._id);
          else results.failed.push(`POST: ${a.status} ${JSON.stringify(a.body)}`);
        } catch (err) {
          results.failed.push(`POST: ${(err as Error).message}`);
        }
      }
    };
    const load = Promise.all([...Array.from({ length: 4 }, (_, w) => worker(w)), writer()]);
    const nginx = nginxOf(c);
    const [countsBefore, reloadsBefore] = [nginx.counts(), nginx.reloads];
    try {
      for (const instance of c.instances) {
        const before = instance.pid;
        await instance.restart();
        expect(instance.pid).to.not.equal(before);
        await c.proxy.checkNow();
      }
    } finally {
      running = false;
      await load;
    }
    const counts = nginx.counts();
    console.log(
      `      ${results.ok} reads and ${written.length} writes answered during the restarts through nginx (${nginx.reloads - reloadsBefore} reloads; ${counts.retried - countsBefore.retried} requests passed on to another instance, ${counts.gatewayErrors - countsBefore.gatewayErrors} answered 502/504; ${unanswered.retries} sent again after a reload closed their connection)`,
    );
    expect(results.failed.slice(0, 10)).to.deep.equal([]);
    expect(results.ok).to.be.greaterThan(0);
    // Every acknowledged write is there, once.
    const listed = ok(await call(c.url, '/api/collections/notes?limit=100&search=rolling', { cookie: admin }));
    expect(written.length).to.be.greaterThan(0);
    for (const id of written.slice(-20)) ok(await call(c.url, `/api/collections/notes/${id}`, { cookie: admin }));
    expect(listed.total, 'each acknowledged write once, nothing unacknowledged').to.equal(written.length);
  });
});
