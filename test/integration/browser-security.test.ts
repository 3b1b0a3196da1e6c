import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { fixturePlugin, responseCookie, startTestKernel, type TestKernel, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const AUTH_OPTIONS = { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } };

async function signIn(t: TestKernel, email: string, headers: Record<string, string> = {}, password = PASSWORD): Promise<string> {
  const res = await t.request('/api/user/login', { method: 'POST', json: { email, password }, headers });
  expect(res.status, await res.clone().text()).to.equal(200);
  return responseCookie(res)!;
}

async function newUser(t: TestKernel, email: string, role = 'admin', tenantId?: string): Promise<void> {
  await t.kernel.container
    .resolve<{ create(i: object): Promise<unknown> }>('users')
    .create({ email, password: PASSWORD, role, ...(tenantId ? { tenantId } : {}) });
}

/** The names of the signed-in user's website tokens. */
async function tokenNames(t: TestKernel, cookie: string, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await t.request('/api/website-tokens', { headers: { cookie, ...headers } });
  expect(res.status).to.equal(200);
  const data = (await res.json()).data;
  return (Array.isArray(data) ? data : data.items).map((x: { name: string }) => x.name);
}

const createToken = (t: TestKernel, name: string, headers: Record<string, string>) =>
  t.request('/api/website-tokens', { method: 'POST', headers, json: { name } });

for (const variant of DB_VARIANTS) {
  describe(`cross-site request forgery (${variant.name})`, function () {
    this.timeout(60000);
    let session: string;
    let other: string;
    const t = useTestKernel(
      { db: variant.name, config: { plugins: { options: AUTH_OPTIONS } } },
      {
        variant,
        seed: async () => {
          await newUser(t, 'csrf-admin@example.com');
          session = await signIn(t, 'csrf-admin@example.com');
          // A page of the same host on another port: same site, another origin.
          other = `http://127.0.0.1:${Number(new URL(t.url).port) === 65535 ? 65534 : Number(new URL(t.url).port) + 1}`;
        },
      },
    );

    it('refuses a cookie-signed unsafe request that the browser marks as coming from another origin, and does nothing', async function () {
      const forged: Array<Record<string, string>> = [
        { 'sec-fetch-site': 'same-site', origin: other },
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'same-site' },
        { origin: other },
        { origin: 'null' },
        { origin: 'https://evil.example' },
      ];
      for (const headers of forged) {
        const res = await createToken(t, `forged ${JSON.stringify(headers)}`, { cookie: session, ...headers });
        expect(res.status, JSON.stringify(headers)).to.equal(403);
        const body = await res.json();
        expect(body).to.include({ success: false, error: 'CSRF_REJECTED' });
        expect(body.message)
          .to.be.a('string')
          .and.match(/another/);
      }
      expect((await tokenNames(t, session)).filter((n) => n.startsWith('forged'))).to.deep.equal([]);
    });

    it('the 2FA endpoints refuse it in their {message} shape and leave 2FA on', async function () {
      await newUser(t, 'csrf-2fa@example.com', 'editor');
      const cookie = await signIn(t, 'csrf-2fa@example.com');
      const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie } })).json()).data;
      const { generate } = await import('otplib');
      const verified = await t.request('/api/auth/2fa/verify-setup', {
        method: 'POST',
        headers: { cookie },
        json: { secret: setup.secret, verificationCode: await generate({ secret: setup.secret }), backupCodes: setup.backupCodes },
      });
      expect(verified.status).to.equal(200);
      const forged = await t.request('/api/auth/2fa/disable', {
        method: 'POST',
        headers: { cookie, 'sec-fetch-site': 'same-site', origin: other, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(forged.status).to.equal(403);
      const body = await forged.json();
      expect(Object.keys(body)).to.deep.equal(['message']);
      const me = (await (await t.request('/api/user/me', { headers: { cookie } })).json()).data;
      expect(me.is2FAEnabled, '2FA still on').to.equal(true);
    });

    it('lets through same-origin browser requests, typed addresses and clients that send neither header', async function () {
      const own = new URL(t.url).origin;
      for (const [name, headers] of [
        ['same-origin', { 'sec-fetch-site': 'same-origin', origin: own }],
        ['none', { 'sec-fetch-site': 'none' }],
        ['own origin', { origin: own }],
        ['no header', {}],
      ] as const) {
        const res = await createToken(t, `ok ${name}`, { cookie: session, ...headers });
        expect(res.status, name).to.equal(201);
        expect(res.headers.get('cache-control'), 'a new secret is never stored').to.equal('no-store');
      }
      expect((await tokenNames(t, session)).filter((n) => n.startsWith('ok ')).sort()).to.deep.equal([
        'ok no header',
        'ok none',
        'ok own origin',
        'ok same-origin',
      ]);
      // Safe methods are never refused (a link from another site opens the admin UI signed in).
      expect((await t.request('/api/user/me', { headers: { cookie: session, 'sec-fetch-site': 'cross-site' } })).status).to.equal(200);
    });

    it('bearer-authenticated calls are not affected (a page cannot attach them by itself)', async function () {
      const created = await createToken(t, 'bearer source', { cookie: session });
      const token = (await created.json()).data.token as string;
      expect(token).to.be.a('string');
      const res = await t.request('/api/collections', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'sec-fetch-site': 'cross-site', origin: 'https://app.example' },
        json: { name: 'bybearer', fields: [{ name: 'title', type: 'text' }] },
      });
      expect(res.status, await res.clone().text()).to.equal(201);
    });
  });
}

describe('cross-site request forgery behind a trusted proxy, with CMS_PUBLIC_URL, and per tenant', function () {
  this.timeout(60000);
  const t = useTestKernel(
    {
      plugins: [fixturePlugin('test-identity')],
      config: { multiTenant: true, publicUrl: 'https://cms.example', http: { trustProxy: true }, plugins: { options: AUTH_OPTIONS } },
    },
    {
      seed: async () => {
        await newUser(t, 'proxy-admin@example.com');
        const res = await t.request('/api/tenants', {
          method: 'POST',
          identity: 'admin',
          json: { id: 't2', name: 'T2', hostnames: ['t2.example'], admin: { email: 'boss@t2.example', password: 'tenant two admin pw' } },
        });
        expect(res.status).to.equal(201);
      },
    },
  );

  it("accepts the public URL's origin and the origin the proxy says the request was addressed to; refuses others", async function () {
    const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cms.example' };
    const session = await signIn(t, 'proxy-admin@example.com', proxied);
    const as = (origin: string, extra: Record<string, string> = {}) =>
      createToken(t, `proxy ${origin}`, { cookie: session, origin, ...extra });
    expect((await as('https://cms.example', proxied)).status, 'the public URL').to.equal(201);
    expect((await as('https://cms.example')).status, 'the public URL, without proxy headers').to.equal(201);
    expect((await as('https://admin.internal', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'admin.internal' })).status).to.equal(
      201,
    );
    expect((await as('http://cms.example', proxied)).status, 'another scheme is another origin').to.equal(403);
    expect((await as('https://cms.example:8443', proxied)).status, 'another port').to.equal(403);
    expect((await as('https://evil.example', proxied)).status).to.equal(403);
  });

  it("a tenant admin's cookie works from the tenant's own host and not from another tenant's pages", async function () {
    const t2 = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 't2.example' };
    const boss = await signIn(t, 'boss@t2.example', t2, 'tenant two admin pw');
    const own = await createToken(t, 't2 own', { cookie: boss, origin: 'https://t2.example', ...t2 });
    expect(own.status).to.equal(201);
    const fromOther = await createToken(t, 't2 from evil', { cookie: boss, origin: 'https://t3.example', ...t2 });
    expect(fromOther.status).to.equal(403);
    expect((await fromOther.json()).error).to.equal('CSRF_REJECTED');
    expect(await tokenNames(t, boss, t2)).to.deep.equal(['t2 own']);
  });

  it('with an https CMS_PUBLIC_URL every cookie is Secure and every answer carries HSTS, even over plain HTTP', async function () {
    const res = await t.request('/api/user/login', { method: 'POST', json: { email: 'proxy-admin@example.com', password: PASSWORD } });
    expect(res.status).to.equal(200);
    const session = res.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    expect(session).to.match(/;\s*secure/i);
    expect(res.headers.get('strict-transport-security')).to.equal('max-age=31536000');
    expect((await t.request('/api/health')).headers.get('strict-transport-security')).to.equal('max-age=31536000');
  });
});

describe('security headers of every answer', function () {
  this.timeout(60000);
  let t: TestKernel;
  let proxied: TestKernel;
  before(async function () {
    t = await startTestKernel({ plugins: [fixturePlugin('test-identity')], config: { plugins: { options: AUTH_OPTIONS } } });
    proxied = await startTestKernel({ config: { http: { trustProxy: true, hstsMaxAgeSeconds: 600 }, plugins: { options: AUTH_OPTIONS } } });
    await newUser(t, 'headers@example.com', 'editor');
  });
  after(async () => {
    await t?.close();
    await proxied?.close();
  });

  it('nosniff on API answers, errors, pages and files', async function () {
    for (const [path, init] of [
      ['/api/health', {}],
      ['/api/no-such-thing', { identity: 'admin' }],
      ['/api/user/me', {}],
      ['/api/website-tokens', { method: 'POST', identity: 'editor', json: { name: '' } }],
      ['/nothing-here', {}],
    ] as const) {
      const res: TestResponse = await t.request(path, init as RequestInit);
      expect(res.headers.get('x-content-type-options'), `${path} (${res.status})`).to.equal('nosniff');
    }
  });

  it('API answers are not kept: no-store for unsafe methods (2FA secrets, new keys), private no-cache for GET, and the ETag still answers 304', async function () {
    const cookie = await signIn(t, 'headers@example.com');
    const setup = await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie } });
    expect(setup.status).to.equal(200);
    expect(setup.headers.get('cache-control')).to.equal('no-store');
    const key = await t.request('/api/api-keys', {
      method: 'POST',
      headers: { cookie },
      json: { name: 'k', permissions: ['content:read'] },
    });
    expect(key.status, await key.clone().text()).to.equal(201);
    expect(key.headers.get('cache-control')).to.equal('no-store');
    const me = await t.request('/api/user/me', { headers: { cookie } });
    expect(me.status).to.equal(200);
    expect(me.headers.get('cache-control')).to.equal('private, no-cache');
    const tag = me.headers.get('etag')!;
    expect(tag).to.be.a('string');
    const again = await t.request('/api/user/me', { headers: { cookie, 'if-none-match': tag } });
    expect(again.status).to.equal(304);
    const failed = await t.request('/api/user/me');
    expect(failed.status).to.equal(401);
    expect(failed.headers.get('cache-control')).to.equal('private, no-cache');
  });

  it('HSTS only over HTTPS: as a trusted proxy reports it, never from an untrusted header or plain HTTP', async function () {
    expect((await t.request('/api/health')).headers.get('strict-transport-security')).to.equal(null);
    expect(
      (await t.request('/api/health', { headers: { 'x-forwarded-proto': 'https' } })).headers.get('strict-transport-security'),
    ).to.equal(null);
    expect((await proxied.request('/api/health')).headers.get('strict-transport-security')).to.equal(null);
    expect(
      (await proxied.request('/api/health', { headers: { 'x-forwarded-proto': 'https' } })).headers.get('strict-transport-security'),
    ).to.equal('max-age=600');
  });

  it("without an https public URL the session cookie's Secure follows the request (a trusted proxy's https)", async function () {
    await newUser(proxied, 'secure@example.com', 'editor');
    const plain = await proxied.request('/api/user/login', { method: 'POST', json: { email: 'secure@example.com', password: PASSWORD } });
    expect(plain.headers.getSetCookie().find((c) => c.startsWith('session='))).to.not.match(/;\s*secure/i);
    const tls = await proxied.request('/api/user/login', {
      method: 'POST',
      json: { email: 'secure@example.com', password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(tls.headers.getSetCookie().find((c) => c.startsWith('session='))).to.match(/;\s*secure/i);
  });
});

/** Opens a TCP connection; resolves once it is connected, and records when the server closes it. */
function openSocket(url: string): Promise<Socket & { serverClosed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }) as Socket & { serverClosed: Promise<string> };
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.serverClosed = new Promise((done) => socket.on('close', () => done(received)));
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
    socket.on('error', () => undefined);
  });
}

/** A whole request on an open socket; resolves with the status line. */
function ask(socket: Socket, path = '/api/health'): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) {
        socket.off('data', onData);
        resolve(text.split('\r\n')[0]!);
      }
    };
    socket.on('data', onData);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('connections: a cap per client address and half-sent requests', function () {
  this.timeout(60000);
  let t: TestKernel;
  let unlimited: TestKernel;
  const sockets: Socket[] = [];
  before(async function () {
    // The test runs on loopback, which the cap leaves alone unless connectionCapLoopback.
    t = await startTestKernel({ config: { http: { maxConnectionsPerIp: 3, connectionCapLoopback: true } } });
    unlimited = await startTestKernel({ config: { http: { maxConnectionsPerIp: 3, headersTimeoutMs: 1000 } } });
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await t?.close();
    await unlimited?.close();
  });

  it('closes connections beyond the cap from one address at once; a closed one frees its place', async function () {
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await openSocket(t.url));
    sockets.push(...open);
    for (const s of open) expect(await ask(s)).to.equal('HTTP/1.1 200 OK');
    const fourth = await openSocket(t.url);
    sockets.push(fourth);
    fourth.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await fourth.serverClosed, 'closed without an answer').to.equal('');
    open[0]!.destroy();
    await open[0]!.serverClosed;
    // The server sees the close a moment later: wait until a new connection is accepted.
    let status = '';
    for (let i = 0; i < 50 && status !== 'HTTP/1.1 200 OK'; i++) {
      const next = await openSocket(t.url);
      sockets.push(next);
      status = await Promise.race([ask(next), next.serverClosed.then(() => 'closed')]);
      if (status !== 'HTTP/1.1 200 OK') await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).to.equal('HTTP/1.1 200 OK');
    for (const s of open.slice(1)) expect(await ask(s), 'the connections within the cap still work').to.equal('HTTP/1.1 200 OK');
  });

  it('loopback clients (a proxy on this host, the cluster proxy) are not counted by default', async function () {
    const open = [];
    for (let i = 0; i < 6; i++) open.push(await openSocket(unlimited.url));
    sockets.push(...open);
    for (const s of open) expect(await ask(s)).to.equal('HTTP/1.1 200 OK');
  });

  it('a request whose headers never finish is answered 408 and closed (headersTimeoutMs)', async function () {
    const limited = await openSocket(unlimited.url);
    sockets.push(limited);
    limited.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const answer = await limited.serverClosed;
    expect(answer.split('\r\n')[0]).to.equal('HTTP/1.1 408 Request Timeout');
  });
});
