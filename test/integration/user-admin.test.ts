import { expect } from 'chai';
import type { EventBus } from '../../kernel/events.js';
import { fixturePlugin, startTestKernel, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { createApiKey } from '../helpers/users.js';
import { responseCookie } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const cookie = (res: TestResponse) => responseCookie(res);

for (const variant of DB_VARIANTS) {
  describe(`user administration (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo')],
        config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      },
      { variant },
    );

    async function userWithSessionAndKey(email: string, role = 'editor') {
      const { _id } = await t.kernel.container
        .resolve<{ create(i: object): Promise<{ _id: string }> }>('users')
        .create({ email, password: PASSWORD, role });
      const session = cookie(await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } }))!;
      const key = await createApiKey(t, session, 'k', ['content:read']);
      return { id: _id, session, key };
    }
    const works = async (headers: Record<string, string>) => (await t.request('/api/echo/items/1', { headers })).status;

    it("lists the tenant's users with search and paging, for user:manage only", async function () {
      await userWithSessionAndKey('alpha@example.com');
      await userWithSessionAndKey('beta@example.com', 'viewer');
      const res = await t.request('/api/user/list?search=alpha&limit=500', { identity: 'admin' });
      expect(res.status).to.equal(200);
      const data = (await res.json()).data;
      expect(data.limit).to.equal(100);
      expect(data.items.map((u: { email: string }) => u.email)).to.deep.equal(['alpha@example.com']);
      expect(data.items[0]).to.include({ role: 'editor', blocked: false, is2FAEnabled: false });
      expect(data.items[0]).to.not.have.property('password_hash');
      expect((await t.request('/api/user/list', { identity: 'editor' })).status).to.equal(403);
    });

    it('blocking ends sessions, keys and sign-in at once; unblocking allows sign-in again', async function () {
      const u = await userWithSessionAndKey('gamma@example.com');
      expect(await works({ cookie: u.session })).to.equal(200);
      expect(await works({ authorization: `Bearer ${u.key}` })).to.equal(200);
      const block = await t.request(`/api/user/${u.id}/block`, { method: 'POST', identity: 'admin', json: { blocked: true } });
      expect(block.status).to.equal(200);
      expect((await block.json()).data).to.deep.equal({ _id: u.id, blocked: true, revokedSessions: 1 });
      expect(await works({ cookie: u.session })).to.equal(401);
      expect(await works({ authorization: `Bearer ${u.key}` })).to.equal(401);
      const refused = await t.request('/api/user/login', { method: 'POST', json: { email: 'gamma@example.com', password: PASSWORD } });
      expect((await refused.json()).error).to.equal('ACCOUNT_BLOCKED');
      await t.request(`/api/user/${u.id}/block`, { method: 'POST', identity: 'admin', json: { blocked: false } });
      expect(
        (await t.request('/api/user/login', { method: 'POST', json: { email: 'gamma@example.com', password: PASSWORD } })).status,
      ).to.equal(200);
      expect(await works({ authorization: `Bearer ${u.key}` }), 'the key works again with its creator').to.equal(200);
    });

    it('deleting removes the user with their sessions and keys', async function () {
      const u = await userWithSessionAndKey('delta@example.com');
      const res = await t.request(`/api/user/${u.id}`, { method: 'DELETE', identity: 'admin' });
      expect(res.status).to.equal(200);
      expect((await res.json()).data).to.deep.equal({ deleted: true, revokedSessions: 1 });
      expect(await works({ cookie: u.session })).to.equal(401);
      expect(await works({ authorization: `Bearer ${u.key}` })).to.equal(401);
      expect((await t.request(`/api/user/${u.id}`, { method: 'DELETE', identity: 'admin' })).status).to.equal(404);
      const list = (await (await t.request('/api/user/list?search=delta', { identity: 'admin' })).json()).data;
      expect(list.total).to.equal(0);
    });

    it('publishes user-management events without credential material: create, update, block, delete', async function () {
      const seen: Array<{ name: string; payload: any }> = [];
      const off = t.kernel.container.resolve<EventBus>('events').subscribe('*', (e) => {
        if (e.name.startsWith('on:user_')) seen.push({ name: e.name, payload: e.payload });
      });
      try {
        const u = await userWithSessionAndKey('events@example.com', 'viewer');
        await t.request('/api/user/update-user-attributes', {
          method: 'PUT',
          headers: { cookie: u.session },
          json: { username: 'renamed' },
        });
        await t.request(`/api/user/${u.id}/block`, { method: 'POST', identity: 'admin', json: { blocked: true } });
        await t.request(`/api/user/${u.id}`, { method: 'DELETE', identity: 'admin' });
        const mine = seen.filter((e) => e.payload.user._id === u.id);
        expect(mine.map((e) => e.name)).to.deep.equal(['on:user_create', 'on:user_update', 'on:user_update', 'on:user_delete']);
        expect(mine[0]!.payload).to.deep.equal({
          tenantId: 'default',
          user: { _id: u.id, email: 'events@example.com', username: 'events', role: 'viewer' },
        });
        expect(mine[1]!.payload.user.username).to.equal('renamed');
        expect(mine[2]!.payload.blocked).to.equal(true);
        expect(JSON.stringify(seen)).to.not.match(/password|hash|secret/i);
      } finally {
        off();
      }
    });

    it("summarises the tenant's users and who is online, for the dashboard", async function () {
      const users = t.kernel.container.resolve<{ summary(tenant: string): Promise<any> }>('users');
      const before = await users.summary('default');
      const u = await userWithSessionAndKey('online@example.com', 'viewer');
      for (let i = 0; i < 2; i++)
        await t.request('/api/user/login', { method: 'POST', json: { email: 'online@example.com', password: 'wrong password' } });
      const after = await users.summary('default');
      expect(after.total).to.equal(before.total + 1);
      expect(after.byRole.viewer).to.equal((before.byRole.viewer ?? 0) + 1);
      expect(after.failedAttempts).to.equal(before.failedAttempts + 2);
      expect(after.createdLast30Days).to.equal(before.createdLast30Days + 1);
      const online = await t.kernel.container.resolve<{ online(tenant: string): Promise<any[]> }>('sessions').online('default');
      const mine = online.find((o) => o.userId === u.id);
      expect(mine).to.include({ sessions: 1 });
      expect(Date.parse(mine.since)).to.be.closeTo(Date.now(), 60000);
      expect(Date.parse(mine.expiresAt)).to.be.greaterThan(Date.now());
      expect((await users.summary('another-tenant')).total).to.equal(0);
    });

    it("lists the roles and changes a user's role: the signed-in session sees it at once; unknown roles 400", async function () {
      const roles = await t.request('/api/user/roles', { identity: 'admin' });
      expect(roles.status).to.equal(200);
      const names = ((await roles.json()).data as Array<{ name: string; permissions: string[] }>).map((r) => r.name);
      expect(names).to.include.members(['admin', 'editor', 'viewer']);
      expect((await t.request('/api/user/roles', { identity: 'editor' })).status).to.equal(403);

      const u = await userWithSessionAndKey('role-change@example.com', 'viewer');
      const me = async () =>
        (await (await t.request('/api/user/me', { headers: { cookie: u.session } })).json()).data as {
          role: string;
          permissions: string[];
        };
      expect((await me()).role).to.equal('viewer');
      expect((await me()).permissions).to.not.include('content:write');
      const changed = await t.request(`/api/user/${u.id}/role`, { method: 'PUT', identity: 'admin', json: { role: 'editor' } });
      expect(changed.status).to.equal(200);
      expect((await changed.json()).data).to.deep.equal({ _id: u.id, role: 'editor' });
      expect((await me()).role, 'the cached session follows the new role at once').to.equal('editor');
      expect((await me()).permissions).to.include('content:write');
      const listed = (await (await t.request('/api/user/list?search=role-change', { identity: 'admin' })).json()).data.items[0];
      expect(listed.role).to.equal('editor');

      const unknown = await t.request(`/api/user/${u.id}/role`, { method: 'PUT', identity: 'admin', json: { role: 'overlord' } });
      expect(unknown.status).to.equal(400);
      expect((await unknown.json()).error).to.equal('VALIDATION_ERROR');
      expect((await t.request(`/api/user/${u.id}/role`, { method: 'PUT', identity: 'editor', json: { role: 'viewer' } })).status).to.equal(
        403,
      );
    });

    it('keeps the last active admin (no block, delete or demotion), and nobody blocks or deletes themselves', async function () {
      const admin = await userWithSessionAndKey('only-admin@example.com', 'admin');
      const block = await t.request(`/api/user/${admin.id}/block`, { method: 'POST', identity: 'admin', json: { blocked: true } });
      expect(block.status).to.equal(409);
      expect((await t.request(`/api/user/${admin.id}`, { method: 'DELETE', identity: 'admin' })).status).to.equal(409);
      const self = await t.request(`/api/user/${admin.id}`, { method: 'DELETE', headers: { cookie: admin.session } });
      expect(self.status).to.equal(400);
      // ...nor gives up the admin role.
      const demote = await t.request(`/api/user/${admin.id}/role`, { method: 'PUT', identity: 'admin', json: { role: 'editor' } });
      expect(demote.status).to.equal(409);
      expect((await demote.json()).error).to.equal('CONFLICT');
    });

    it("keeps the admin UI's language as the user's preference (a language tag or null), 400 for anything else", async function () {
      const u = await userWithSessionAndKey('language@example.com', 'viewer');
      const put = (preferences: object) =>
        t.request('/api/user/update-user-attributes', { method: 'PUT', headers: { cookie: u.session }, json: { preferences } });
      expect((await put({ locale: 'de' })).status).to.equal(200);
      const me = async () => (await (await t.request('/api/user/me', { headers: { cookie: u.session } })).json()).data;
      expect((await me()).preferences.locale).to.equal('de');
      for (const bad of [42, '', 'german language', 'de_DE;drop', 'x'.repeat(40)]) {
        const res = await put({ locale: bad });
        expect(res.status, JSON.stringify(bad)).to.equal(400);
        expect((await res.json()).error).to.equal('VALIDATION_ERROR');
      }
      expect((await me()).preferences.locale, 'a refused value changes nothing').to.equal('de');
      expect((await put({ locale: null })).status).to.equal(200);
      expect((await me()).preferences.locale, "null: the browser's language again").to.equal(null);
    });

    it('a session used from another client is only logged, never acted on', async function () {
      const u = await userWithSessionAndKey('roaming@example.com');
      const elsewhere = await t.request('/api/user/me', {
        headers: { cookie: u.session, 'user-agent': 'A completely different browser/9.9' },
      });
      expect(elsewhere.status).to.equal(200);
    });
  });
}

describe('session settings from System Settings', function () {
  this.timeout(60000);
  it('SESSION_DEVICE_POLICY and SESSION_TTL_HOURS in the settings store take effect', async function () {
    const t = await startTestKernel({
      setup: true,
      config: {
        plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'owner@example.com', password: 'owner password' } } } },
      },
    });
    try {
      const settings = t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings');
      await settings.set('SESSION_DEVICE_POLICY', 'allow-multiple');
      await settings.set('SESSION_TTL_HOURS', 2);
      const login = () =>
        t.request('/api/user/login', { method: 'POST', json: { email: 'owner@example.com', password: 'owner password' } });
      const first = await login();
      const second = await login();
      const expires = /expires=([^;]+)/i.exec(first.headers.getSetCookie().find((c) => c.startsWith('session='))!)![1]!;
      expect(Date.parse(expires) - Date.now()).to.be.within(2 * 3600e3 - 120e3, 2 * 3600e3 + 1e3);
      for (const res of [first, second])
        expect((await t.request('/api/user/me', { headers: { cookie: cookie(res)! } })).status).to.equal(200);
    } finally {
      await t.close();
    }
  });
});
