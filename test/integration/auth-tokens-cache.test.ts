import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { fixturePlugin, type TestKernel, useTestKernel, useTwoInstances } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * API keys and website tokens resolved through the layered cache (plugins/auth/bearer-cache.ts): what
 * the shared cache holds, that made-up values are never cached, that last use is not a write per request,
 * and that every change of what a key or token may do applies at once, on one instance and across two
 * sharing MariaDB and Redis.
 */
const PASSWORD = 'correct horse battery';
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4 } } } };
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

interface TokensProbe {
  localSize: number;
}

async function signIn(t: TestKernel, email: string, role = 'editor'): Promise<{ id: string; cookie: string }> {
  const existing = await t.kernel.sequelize.query<{ id: string }>('SELECT id FROM auth_users WHERE email = ?', {
    replacements: [email],
    type: QueryTypes.SELECT,
  });
  const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
  const id = existing[0]?.id ?? (await users.create({ email, password: PASSWORD, role }))._id;
  const res = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
  expect(res.status, `sign-in of ${email}`).to.equal(200);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;
  return { id, cookie };
}

async function websiteToken(t: TestKernel, cookie: string, name = 'site'): Promise<{ _id: string; token: string }> {
  const res = await t.request('/api/website-tokens', { method: 'POST', headers: { cookie }, json: { name } });
  expect(res.status).to.equal(201);
  return (await res.json()).data;
}

async function apiKey(t: TestKernel, cookie: string, permissions: string[]): Promise<{ _id: string; key: string }> {
  const res = await t.request('/api/api-keys', { method: 'POST', headers: { cookie }, json: { name: 'ci', permissions } });
  expect(res.status).to.equal(201);
  return (await res.json()).data;
}

/** Polls until `check` holds or `ms` pass; resolves whether it held (no timing is asserted beyond the bound). */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The cached value must carry who and what, never the value or its hash. */
function expectNoSecret(cached: unknown, value: string): void {
  expect(cached, 'a cached entry').to.be.an('object');
  const text = JSON.stringify(cached);
  expect(text).to.not.include(value);
  expect(text).to.not.include(value.slice(4, 24));
  expect(text).to.not.include(sha256(value));
  expect(Object.keys(cached as object).sort()).to.deep.equal(
    ['expiresAt', 'id', 'keyPermissions', 'keyScope', 'kind', 'lastUsedAt', 'role', 'rolePermissions', 'tenantId', 'userId'].sort(),
  );
}

for (const variant of DB_VARIANTS) {
  describe(`auth: the API key and website token cache (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-echo')], config: CONFIG }, { variant });

    const tokens = () => t.kernel.container.resolve<TokensProbe>('tokens');

    it('the shared cache holds who a key or token acts as, keyed by its hash, never the value or the hash', async function () {
      const { cookie } = await signIn(t, 'cache-view@example.com');
      const site = await websiteToken(t, cookie);
      const key = await apiKey(t, cookie, ['content:read']);
      expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status).to.equal(200);
      expect((await t.request('/api/echo/items/1', { headers: bearer(key.key) })).status).to.equal(200);
      const cachedSite = await t.kernel.cache!.get<Record<string, unknown>>('tokens', sha256(site.token));
      expectNoSecret(cachedSite, site.token);
      expect(cachedSite).to.include({ kind: 'website-token', id: site._id, role: 'editor' });
      const cachedKey = await t.kernel.cache!.get<Record<string, unknown>>('tokens', sha256(key.key));
      expectNoSecret(cachedKey, key.key);
      expect(cachedKey).to.include({ kind: 'api-key', id: key._id });
      expect(cachedKey!.keyPermissions).to.deep.equal(['content:read']);
    });

    it('made-up bearer values are refused and cached nowhere, so a flood of them cannot grow memory', async function () {
      const { cookie } = await signIn(t, 'cache-flood@example.com');
      const site = await websiteToken(t, cookie);
      expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status).to.equal(200);
      const held = tokens().localSize;
      const setsBefore = (await t.kernel.cache!.stats()).byCategory.tokens?.sets ?? 0;
      for (let round = 0; round < 10; round++) {
        const statuses = await Promise.all(
          Array.from({ length: 30 }, (_, i) => {
            const value = (i % 2 ? 'sck_' : '') + randomBytes(32).toString('base64url');
            return t.request('/api/echo/items/1', { headers: bearer(value) }).then((r) => r.status);
          }),
        );
        expect(statuses.every((s) => s === 401)).to.equal(true);
      }
      expect(tokens().localSize, 'entries in memory').to.equal(held);
      expect((await t.kernel.cache!.stats()).byCategory.tokens?.sets ?? 0, 'shared cache writes').to.equal(setsBefore);
      expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status, 'the real token still works').to.equal(200);
    });

    it('last use is written once, not on every request', async function () {
      const { cookie } = await signIn(t, 'cache-used@example.com');
      const site = await websiteToken(t, cookie);
      const lastUsed = async () =>
        (
          await t.kernel.sequelize.query<{ last_used_at: number | string | null }>(
            'SELECT last_used_at FROM auth_website_tokens WHERE id = ?',
            { replacements: [site._id], type: QueryTypes.SELECT },
          )
        )[0]!.last_used_at;
      expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status).to.equal(200);
      expect(await within(2000, async () => (await lastUsed()) !== null), 'last use recorded').to.equal(true);
      const first = Number(await lastUsed());
      for (let i = 0; i < 20; i++) expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 100)); // a write would have been sent by now
      expect(Number(await lastUsed())).to.equal(first);
      const listed = (await (await t.request('/api/website-tokens', { headers: { cookie } })).json()).data;
      expect(listed.find((x: { _id: string }) => x._id === site._id).lastUsedAt).to.equal(new Date(first).toISOString());
    });

    it('a cached token stops at once when revoked, or when its user is deleted', async function () {
      const admin = await signIn(t, 'cache-admin@example.com', 'admin');
      const { id, cookie } = await signIn(t, 'cache-gone@example.com');
      const site = await websiteToken(t, cookie);
      const other = await websiteToken(t, cookie, 'other');
      for (const v of [site.token, other.token]) expect((await t.request('/api/user/me', { headers: bearer(v) })).status).to.equal(200);
      expect((await t.request(`/api/website-tokens/${site._id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: bearer(site.token) })).status).to.equal(401);
      expect(await t.kernel.cache!.get('tokens', sha256(site.token)), 'the shared entry is gone').to.equal(undefined);
      expect((await t.request(`/api/user/${id}`, { method: 'DELETE', headers: { cookie: admin.cookie } })).status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: bearer(other.token) })).status).to.equal(401);
    });

    it("a change of the guest role's permissions reaches the token of a user holding that role", async function () {
      const { cookie } = await signIn(t, 'cache-guest@example.com', 'guest');
      const site = await websiteToken(t, cookie);
      const permissions = async () => (await (await t.request('/api/user/me', { headers: bearer(site.token) })).json()).data.permissions;
      expect(await permissions()).to.not.include('content:read:cachetest');
      const users = t.kernel.container.resolve<{ setGuestGrant(t: string, p: string, g: boolean): Promise<string[]> }>('users');
      await users.setGuestGrant('default', 'content:read:cachetest', true);
      expect(await permissions()).to.include('content:read:cachetest');
      await users.setGuestGrant('default', 'content:read:cachetest', false);
      expect(await permissions()).to.not.include('content:read:cachetest');
    });
  });
}

describe('auth: the API key and website token cache across two instances sharing MariaDB and Redis', function () {
  this.timeout(60000);
  const [a, b] = useTwoInstances({ plugins: [fixturePlugin('test-echo')], config: CONFIG }, 'tokshared');

  /** Uses the value on B twice: the second answer comes from B's memory (the shared cache is not asked). */
  async function cachedOnB(value: string, path = '/api/user/me'): Promise<void> {
    expect((await b!.request(path, { headers: bearer(value) })).status).to.equal(200);
    const before = (await b!.kernel.cache!.stats()).byCategory.tokens!;
    expect((await b!.request(path, { headers: bearer(value) })).status).to.equal(200);
    const after = (await b!.kernel.cache!.stats()).byCategory.tokens!;
    expect(after.hits + after.misses, 'answered from memory').to.equal(before.hits + before.misses);
  }

  it('a token revoked on A is refused by B within a second; the Redis entry holds no secret', async function () {
    const { cookie } = await signIn(a!, 'two-revoke@example.com');
    const site = await websiteToken(a!, cookie);
    await cachedOnB(site.token);
    expectNoSecret(await b!.kernel.cache!.get('tokens', sha256(site.token)), site.token);
    expect((await a!.request(`/api/website-tokens/${site._id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    expect(
      await within(1000, async () => (await b!.request('/api/user/me', { headers: bearer(site.token) })).status === 401),
      'refused on B',
    ).to.equal(true);
    const key = await apiKey(a!, cookie, ['content:read']);
    await cachedOnB(key.key, '/api/echo/items/1');
    expect((await a!.request(`/api/api-keys/${key._id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    expect(
      await within(1000, async () => (await b!.request('/api/echo/items/1', { headers: bearer(key.key) })).status === 401),
      'the key refused on B',
    ).to.equal(true);
  });

  it("a role change on A applies to the user's token and key on B; a block on A refuses them on B", async function () {
    const admin = await signIn(a!, 'two-admin@example.com', 'admin');
    const { id, cookie } = await signIn(a!, 'two-user@example.com');
    const site = await websiteToken(a!, cookie);
    const key = await apiKey(a!, cookie, ['content:read', 'content:write']);
    await cachedOnB(site.token);
    await cachedOnB(key.key, '/api/echo/items/1');
    const write = () => b!.request('/api/echo', { method: 'POST', headers: bearer(key.key), json: { name: 'x' } });
    expect((await write()).status).to.equal(201);

    const role = await a!.request(`/api/user/${id}/role`, { method: 'PUT', headers: { cookie: admin.cookie }, json: { role: 'viewer' } });
    expect(role.status).to.equal(200);
    expect(
      await within(
        1000,
        async () => (await (await b!.request('/api/user/me', { headers: bearer(site.token) })).json()).data?.role === 'viewer',
      ),
      'the token acts as a viewer on B',
    ).to.equal(true);
    expect(await within(1000, async () => (await write()).status === 403), 'the key lost content:write on B').to.equal(true);
    expect((await b!.request('/api/echo/items/1', { headers: bearer(key.key) })).status).to.equal(200);

    const block = await a!.request(`/api/user/${id}/block`, { method: 'POST', headers: { cookie: admin.cookie }, json: { blocked: true } });
    expect(block.status).to.equal(200);
    expect(
      await within(1000, async () => (await b!.request('/api/user/me', { headers: bearer(site.token) })).status === 401),
      'the token refused on B',
    ).to.equal(true);
    expect(
      await within(1000, async () => (await b!.request('/api/echo/items/1', { headers: bearer(key.key) })).status === 401),
      'the key refused on B',
    ).to.equal(true);
  });
});
