import { expect } from 'chai';
import { createUsers, signInCookie } from '../helpers/users.js';
import { get, useTestKernel, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { readToken, seedBlog, SDK_KERNEL, EDITOR } from '../helpers/sdk-blog.js';

// CORS for the client SDK in browsers (issue 39): CMS_CORS_ORIGINS / `http.corsOrigins` lets the pages of listed
// origins read the API with a bearer credential. Off by default (no CORS header at all); on, only listed origins,
// only /api/ (not the session's sign-in ceremonies), preflights answered, never Access-Control-Allow-Credentials, and
// the CSRF check of cookie sign-ins unchanged. HTTP headers only: no database behaviour, so SQLite alone.

const SITE = 'https://site.example';
const OTHER = 'https://evil.example';
const corsHeaders = (res: TestResponse) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));

/** A preflight as a browser sends it before a cross-origin request with these headers. */
const preflight = (t: TestKernel, path: string, origin: string, method = 'POST', headers = 'authorization, content-type') =>
  get(`${t.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

describe('CORS: off by default (sqlite)', function () {
  let token: string;
  const t = useTestKernel(SDK_KERNEL, { seed: async () => void (token = await readToken((await seedBlog(t)).admin)) });

  it('sends no CORS header to any origin, on answers or preflights', async function () {
    const res = await get(`${t.url}/api/collections/posts`, { headers: { origin: SITE, authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(corsHeaders(res)).to.deep.equal([]);
    expect(res.headers.get('vary') ?? '').to.not.match(/origin/i);
    const pre = await preflight(t, '/api/collections/posts', SITE);
    expect(pre.status).to.not.equal(204);
    expect(corsHeaders(pre)).to.deep.equal([]);
  });
});

describe('CORS: CMS_CORS_ORIGINS lists the origins whose pages may call the API with a token (sqlite)', function () {
  let token: string;
  const config = { ...SDK_KERNEL.config, http: { corsOrigins: [SITE, 'http://127.0.0.1:5173'] } };
  const t = useTestKernel({ ...SDK_KERNEL, config }, { seed: async () => void (token = await readToken((await seedBlog(t)).admin)) });
  const read = (origin: string, auth = `Bearer ${token}`) =>
    get(`${t.url}/api/collections/posts?status=published`, { headers: { origin, authorization: auth } });

  it('answers a listed origin with its own origin, the readable headers, Vary: Origin and no credentials', async function () {
    const res = await read(SITE);
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(SITE);
    expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    expect(exposed).to.include.members(['etag', 'retry-after', 'x-request-id']);
    expect(res.headers.get('etag')).to.be.a('string');
    expect(res.headers.get('vary')).to.match(/origin/i);
    expect((await res.json()).data.items).to.have.length(2);
  });

  it('gives no CORS header to an origin not listed (another host, another port, another scheme)', async function () {
    for (const origin of [OTHER, 'https://site.example:8443', 'http://site.example', 'null']) {
      const res = await read(origin);
      expect(res.status, origin).to.equal(200); // the server answers; the browser keeps it from the page
      expect(corsHeaders(res), origin).to.deep.equal([]);
      const pre = await preflight(t, '/api/collections/posts', origin);
      expect(corsHeaders(pre), origin).to.deep.equal([]);
    }
  });

  it('answers the preflight of a listed origin: 204, methods, the headers the SDK sends, a max age, no credentials', async function () {
    const pre = await preflight(t, '/api/collections/posts', SITE, 'PATCH', 'authorization, content-type, idempotency-key');
    expect(pre.status).to.equal(204);
    expect(pre.headers.get('access-control-allow-origin')).to.equal(SITE);
    expect(pre.headers.get('access-control-allow-credentials')).to.equal(null);
    const methods = (pre.headers.get('access-control-allow-methods') ?? '').split(',');
    expect(methods).to.include.members(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).to.include.members(['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id']);
    expect(pre.headers.get('access-control-max-age')).to.equal('600');
  });

  it('keeps the headers on error answers, so a page reads the error code (a refused token, an unknown collection)', async function () {
    const refused = await read(SITE, 'Bearer not-a-token');
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('access-control-allow-origin')).to.equal(SITE);
    expect((await refused.json()).error).to.equal('AUTHENTICATION_REQUIRED');
    const missing = await get(`${t.url}/api/collections/no-such-collection`, {
      headers: { origin: SITE, authorization: `Bearer ${token}` },
    });
    expect(missing.status).to.equal(404);
    expect((await missing.json()).error).to.equal('COLLECTION_NOT_FOUND');
    expect(missing.headers.get('access-control-allow-origin')).to.equal(SITE);
  });

  it("leaves the session's ceremonies and pages outside /api/ without CORS", async function () {
    for (const path of [
      '/api/user/login',
      '/api/user/logout',
      '/api/auth/2fa/verify',
      '/api/auth/passkeys/login/options',
      '/api/setup/status',
    ]) {
      expect(corsHeaders(await preflight(t, path, SITE)), path).to.deep.equal([]);
    }
    const login = await get(`${t.url}/api/user/login`, {
      method: 'POST',
      headers: { origin: SITE, 'content-type': 'application/json' },
      body: JSON.stringify({ email: EDITOR.email, password: EDITOR.password }),
    });
    expect(corsHeaders(login)).to.deep.equal([]);
    expect(corsHeaders(await get(`${t.url}/admin/`, { headers: { origin: SITE } }))).to.deep.equal([]);
  });

  it('still refuses an unsafe request signed in by the session cookie from a listed origin (CSRF_REJECTED)', async function () {
    await createUsers(t, { email: 'csrf@example.com', password: 'a long enough passphrase', role: 'admin' });
    const cookie = (await signInCookie(t, 'csrf@example.com', 'a long enough passphrase'))!;
    const res = await get(`${t.url}/api/collections/posts`, {
      method: 'POST',
      headers: { origin: SITE, 'sec-fetch-site': 'cross-site', cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'forged' }),
    });
    expect(res.status).to.equal(403);
    expect((await res.json()).error).to.equal('CSRF_REJECTED');
    expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
  });
});
