import { expect } from 'chai';
import { generate } from 'otplib';
import { BUILT_IN_ROLES } from '../../plugins/auth/roles.js';
import { fixturePlugin, startTestKernel, useTestKernel } from '../helpers/kernel.js';
import { createApiKey } from '../helpers/users.js';
import { responseCookie } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';
const cookie = responseCookie;

describe('identity hardening', function () {
  this.timeout(60000);
  const t = useTestKernel({
    plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo')],
    config: {
      http: { trustProxy: true },
      rateLimit: { enabled: true },
      plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } },
    },
  });

  const users = () => t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
  async function signIn(email: string, role: string): Promise<string> {
    await users().create({ email, password: PASSWORD, role });
    return cookie(await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } }))!;
  }

  it("an API key or website token cannot mint credentials or read the account's sessions", async function () {
    const session = await signIn('owner@example.com', 'admin');
    const key = await createApiKey(t, session, 'narrow', ['content:read']);
    const token = (
      await (await t.request('/api/website-tokens', { method: 'POST', headers: { cookie: session }, json: { name: 'site' } })).json()
    ).data.token;
    for (const bearer of [key, token]) {
      const h = { authorization: `Bearer ${bearer}` };
      expect((await t.request('/api/website-tokens', { method: 'POST', headers: h, json: { name: 'escalate' } })).status).to.equal(403);
      expect(
        (await t.request('/api/api-keys', { method: 'POST', headers: h, json: { name: 'x', permissions: ['content:read'] } })).status,
      ).to.equal(403);
      expect((await t.request('/api/api-keys', { headers: h })).status).to.equal(403);
      expect((await t.request('/api/user/sessions', { headers: h })).status).to.equal(403);
      expect((await t.request('/api/user/sessions/reauth', { method: 'POST', headers: h, json: { password: PASSWORD } })).status).to.equal(
        403,
      );
    }
    expect(
      (await t.request('/api/echo/items/1', { headers: { authorization: `Bearer ${key}` } })).status,
      'the key still does its job',
    ).to.equal(200);
  });

  it('user:manage does not grant more than the caller holds; only admins touch admin accounts', async function () {
    await t.kernel.sequelize.query("UPDATE auth_roles SET permissions = ? WHERE name = 'editor' AND tenant_id = 'default'", {
      replacements: [JSON.stringify(['content:read', 'content:write', 'user:manage'])],
    });
    try {
      const manager = await signIn('manager@example.com', 'editor');
      const create = (role: string, email: string) =>
        t.request('/api/user/create-user', {
          method: 'POST',
          headers: { cookie: manager },
          json: { email, password: 'long enough pw', role },
        });
      expect((await create('admin', 'want-admin@example.com')).status).to.equal(403);
      expect((await create('viewer', 'fine@example.com')).status, 'viewer has media:read the manager lacks').to.equal(403);
      expect((await create('editor', 'peer@example.com')).status).to.equal(201);
      expect(
        (
          await t.request('/api/token/create-token', {
            method: 'POST',
            headers: { cookie: manager },
            json: { email: 'inv@example.com', role: 'admin' },
          })
        ).status,
      ).to.equal(403);
      const { _id: adminId } = await users().create({ email: 'protected-admin@example.com', password: PASSWORD, role: 'admin' });
      await users().create({ email: 'second-admin@example.com', password: PASSWORD, role: 'admin' });
      expect(
        (await t.request(`/api/user/${adminId}/block`, { method: 'POST', headers: { cookie: manager }, json: { blocked: true } })).status,
      ).to.equal(403);
      expect((await t.request(`/api/user/${adminId}`, { method: 'DELETE', headers: { cookie: manager } })).status).to.equal(403);
    } finally {
      await t.kernel.sequelize.query("UPDATE auth_roles SET permissions = ? WHERE name = 'editor' AND tenant_id = 'default'", {
        replacements: [JSON.stringify(BUILT_IN_ROLES.editor!.permissions)],
      });
    }
  });

  it('behind a trusted proxy only the proxy-appended X-Forwarded-For entry counts for rate limits', async function () {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await t.request('/api/open/limited', { headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` } })).status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });

  it('a rejected password does not use up a reset link, nor an existing account an invitation', async function () {
    const { _id } = await users().create({ email: 'keeps-link@example.com', password: PASSWORD, role: 'viewer' });
    const tokens = t.kernel.container.resolve<{ issue(k: string, i: object): Promise<{ token: string }> }>('emailTokens');
    const { token } = await tokens.issue('reset', { email: 'keeps-link@example.com', userId: _id, tenantId: 'default', ttlMs: 60000 });
    const tooLong = await t.request('/api/user/reset-password', { method: 'POST', json: { token, password: 'é'.repeat(40) } });
    expect(tooLong.status).to.equal(400);
    expect(
      (await t.request('/api/user/reset-password', { method: 'POST', json: { token, password: 'a fine new password' } })).status,
    ).to.equal(200);
    const invite = (
      await (
        await t.request('/api/token/create-token', {
          method: 'POST',
          identity: 'admin',
          json: { email: 'keeps-link@example.com', role: 'viewer' },
        })
      ).json()
    ).data.token;
    const taken = await t.request('/api/user/register', { method: 'POST', json: { token: invite, password: 'long enough pw' } });
    expect(taken.status).to.equal(409);
    expect((await t.request(`/api/token/${invite}`)).status, 'the invitation is still valid').to.equal(200);
  });

  it('two different backup codes used at the same time both work', async function () {
    const session = await signIn('codes@example.com', 'viewer');
    const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
    await t.request('/api/auth/2fa/verify-setup', {
      method: 'POST',
      headers: { cookie: session },
      json: { secret: setup.secret, verificationCode: await generate({ secret: setup.secret }), backupCodes: setup.backupCodes },
    });
    const attempts = await Promise.all(
      setup.backupCodes.slice(0, 3).map(async (code: string) => {
        const first = await t.request('/api/user/login', { method: 'POST', json: { email: 'codes@example.com', password: PASSWORD } });
        const { userId } = (await first.json()).data;
        return t.request('/api/auth/2fa/verify', {
          method: 'POST',
          headers: { cookie: cookie(first, '2fa_pending')! },
          json: { userId, code },
        });
      }),
    );
    const bodies = await Promise.all(attempts.map((r) => r.json()));
    expect(bodies.map((b) => b.success)).to.deep.equal([true, true, true]);
  });
});

describe('setup hardening', function () {
  this.timeout(60000);
  it('a seed that ends after completion does not reopen setup; bad credentials are redirected like anything else', async function () {
    const t = await startTestKernel({ setup: true, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } });
    try {
      const bearer = await t.request('/api/user/me', { headers: { authorization: 'Bearer sck_not-a-key' }, redirect: 'manual' });
      expect(bearer.status).to.equal(302);
      expect((await t.request('/api/openapi.json', { redirect: 'manual' })).status).to.equal(302);
      const setup = t.kernel.container.resolve<{ seed(target: object): Promise<void>; seeded(): Promise<void> }>('setup');
      const target = { type: 'sqlite', database: 'cms.sqlite' };
      await t.request('/api/setup/seed-db', { method: 'POST', json: target });
      await setup.seeded();
      expect(
        (await t.request('/api/setup/complete', { method: 'POST', json: { email: 'first@example.com', password: 'long enough pw' } }))
          .status,
      ).to.equal(200);
      await setup.seed({ ...target, host: '', port: 3306, username: '', password: '' });
      expect((await (await t.request('/api/setup/status')).json()).data.state).to.equal('ready');
      const second = await t.request('/api/setup/complete', {
        method: 'POST',
        json: { email: 'second@example.com', password: 'long enough pw' },
      });
      expect(second.status).to.equal(403);
    } finally {
      await t.close();
    }
  });
});
