import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { responseCookie } from '../helpers/kernel.js';

const cookie = (res: TestResponse) => responseCookie(res);
const ACME = { 'x-forwarded-host': 'acme.test' };

describe('multi-tenant mode', function () {
  this.timeout(60000);
  const t = useTestKernel({
    plugins: [fixturePlugin('test-identity')],
    config: {
      multiTenant: true,
      http: { trustProxy: true },
      plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } },
    },
  });

  const login = (email: string, password: string, headers: Record<string, string> = {}) =>
    t.request('/api/user/login', { method: 'POST', json: { email, password }, headers });

  it('admins of the default tenant create tenants with hostnames, roles and a first admin', async function () {
    const res = await t.request('/api/tenants', {
      method: 'POST',
      identity: 'admin',
      json: { id: 'acme', name: 'Acme', hostnames: ['ACME.test'], admin: { email: 'boss@acme.test', password: 'acme admin password' } },
    });
    expect(res.status).to.equal(201);
    const data = (await res.json()).data;
    expect(data).to.deep.include({ id: 'acme', name: 'Acme', hostnames: ['acme.test'] });
    expect(data.admin).to.include({ email: 'boss@acme.test', role: 'admin' });
    const dup = await t.request('/api/tenants', {
      method: 'POST',
      identity: 'admin',
      json: { id: 'other', name: 'O', hostnames: ['acme.test'], admin: { email: 'x@other.test', password: 'long enough pw' } },
    });
    expect(dup.status).to.equal(409);
    expect((await t.request('/api/tenants', { identity: 'editor' })).status).to.equal(403);
    const list = (await (await t.request('/api/tenants', { identity: 'admin' })).json()).data;
    expect(list.map((x: { id: string }) => x.id)).to.deep.equal(['default', 'acme']);
  });

  it('the same email is two different users; the hostname picks the tenant at sign-in', async function () {
    const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
    await users.create({ email: 'same@example.com', password: 'default tenant pw', role: 'editor' });
    await users.create({ email: 'same@example.com', password: 'acme tenant pw', role: 'viewer', tenantId: 'acme' });
    expect((await login('same@example.com', 'acme tenant pw')).status, 'acme password on the default host').to.equal(401);
    const acme = await login('same@example.com', 'acme tenant pw', ACME);
    expect(acme.status).to.equal(200);
    expect((await acme.json()).data.user.role).to.equal('viewer');
    const def = await login('same@example.com', 'default tenant pw');
    expect((await def.json()).data.user.role).to.equal('editor');
  });

  it("two tenants never see each other's users, sessions, keys or invitations", async function () {
    const boss = cookie(await login('boss@acme.test', 'acme admin password', ACME))!;
    const acmeUsers = (await (await t.request('/api/user/list', { headers: { cookie: boss } })).json()).data.items
      .map((u: { email: string }) => u.email)
      .sort();
    expect(acmeUsers).to.deep.equal(['boss@acme.test', 'same@example.com']);
    const defaultUsers = (await (await t.request('/api/user/list', { identity: 'admin' })).json()).data.items.map(
      (u: { email: string }) => u.email,
    );
    expect(defaultUsers).to.not.include('boss@acme.test');

    const defaultSession = cookie(await login('same@example.com', 'default tenant pw'))!;
    const own = (await (await t.request('/api/user/sessions', { headers: { cookie: defaultSession } })).json()).data.sessions;
    const defaultUserId = (await (await t.request('/api/user/me', { headers: { cookie: defaultSession } })).json()).data._id;
    expect((await t.request(`/api/user/sessions?admin=1&userId=${defaultUserId}`, { headers: { cookie: boss } })).status).to.equal(404);
    expect((await t.request(`/api/user/sessions/${own[0]._id}?admin=1`, { method: 'DELETE', headers: { cookie: boss } })).status).to.equal(
      404,
    );
    expect(
      (await t.request(`/api/user/${defaultUserId}/block`, { method: 'POST', headers: { cookie: boss }, json: { blocked: true } })).status,
    ).to.equal(404);
    expect((await t.request('/api/user/me', { headers: { cookie: defaultSession } })).status).to.equal(200);

    await t.request('/api/api-keys', {
      method: 'POST',
      headers: { cookie: defaultSession },
      json: { name: 'default-key', permissions: ['content:read'] },
    });
    const acmeKeys = (await (await t.request('/api/api-keys', { headers: { cookie: boss } })).json()).data;
    expect(acmeKeys.map((k: { name: string }) => k.name)).to.not.include('default-key');

    await t.request('/api/token/create-token', {
      method: 'POST',
      headers: { cookie: boss },
      json: { email: 'new@acme.test', role: 'viewer' },
    });
    const defaultInvites = (await (await t.request('/api/token/list', { identity: 'admin' })).json()).data;
    expect(defaultInvites.map((i: { email: string }) => i.email)).to.not.include('new@acme.test');
    const acmeInvites = (await (await t.request('/api/token/list', { headers: { cookie: boss } })).json()).data;
    expect(acmeInvites.map((i: { email: string }) => i.email)).to.include('new@acme.test');
  });

  it('tenant admins cannot manage tenants', async function () {
    const boss = cookie(await login('boss@acme.test', 'acme admin password', ACME))!;
    expect((await t.request('/api/tenants', { headers: { cookie: boss } })).status).to.equal(403);
  });
});

describe('single-tenant mode', function () {
  it('refuses tenant management with 409 and keeps everything in the default tenant', async function () {
    const t = await startTestKernel({ plugins: [fixturePlugin('test-identity')] });
    try {
      const res = await t.request('/api/tenants', { identity: 'admin' });
      expect(res.status).to.equal(409);
      expect((await res.json()).message).to.include('MULTI_TENANT');
    } finally {
      await t.close();
    }
  });
});
