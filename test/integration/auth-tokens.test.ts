import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { fixturePlugin, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';

const cookieOf = (res: TestResponse) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;

for (const variant of DB_VARIANTS) {
  describe(`auth: API keys, website tokens, re-authentication (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo')],
        config: { plugins: { options: { auth: { bcryptRounds: 4 } } } },
      },
      { variant },
    );

    async function signIn(email: string, role = 'editor', userAgent = 'agent-a'): Promise<{ id: string; cookie: string }> {
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      const existing = await t.kernel.sequelize.query<{ id: string }>('SELECT id FROM auth_users WHERE email = ?', {
        replacements: [email],
        type: QueryTypes.SELECT,
      });
      const id = existing[0]?.id ?? (await users.create({ email, password: PASSWORD, role }))._id;
      const res = await t.request('/api/user/login', {
        method: 'POST',
        json: { email, password: PASSWORD },
        headers: { 'user-agent': userAgent },
      });
      expect(res.status).to.equal(200);
      return { id, cookie: cookieOf(res) };
    }
    const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

    it('an API key acts with its own permissions only, within what its creator holds now', async function () {
      const { id, cookie } = await signIn('keys@example.com');
      const created = await t.request('/api/api-keys', {
        method: 'POST',
        headers: { cookie },
        json: { name: 'ci', permissions: ['content:read', 'content:write'] },
      });
      expect(created.status).to.equal(201);
      const key = (await created.json()).data;
      expect(key.key).to.match(/^sck_[A-Za-z0-9_-]{43}$/);
      expect(key.permissions).to.deep.equal(['content:read', 'content:write']);
      expect((await t.request('/api/echo/items/4', { headers: bearer(key.key) })).status).to.equal(200);
      expect((await t.request('/api/echo', { method: 'POST', headers: bearer(key.key), json: { name: 'x' } })).status).to.equal(201);
      expect((await t.request('/api/system/pool', { headers: bearer(key.key) })).status, 'system:read is not on the key').to.equal(403);
      // The creator is demoted: the key (held in the token cache by now) loses what the creator no longer has, at once.
      const admin = await signIn('keys-admin@example.com', 'admin');
      const demote = (role: string) =>
        t.request(`/api/user/${id}/role`, { method: 'PUT', headers: { cookie: admin.cookie }, json: { role } });
      expect((await demote('viewer')).status).to.equal(200);
      expect((await t.request('/api/echo', { method: 'POST', headers: bearer(key.key), json: { name: 'x' } })).status).to.equal(403);
      expect((await t.request('/api/echo/items/4', { headers: bearer(key.key) })).status).to.equal(200);
      expect((await demote('editor')).status).to.equal(200);
      expect((await t.request('/api/echo', { method: 'POST', headers: bearer(key.key), json: { name: 'x' } })).status).to.equal(201);
    });

    it('refuses to give a key a permission the creator lacks, or an unknown one', async function () {
      const { cookie } = await signIn('keys@example.com');
      const beyond = await t.request('/api/api-keys', {
        method: 'POST',
        headers: { cookie },
        json: { name: 'x', permissions: ['manage:system'] },
      });
      expect(beyond.status).to.equal(403);
      const unknown = await t.request('/api/api-keys', {
        method: 'POST',
        headers: { cookie },
        json: { name: 'x', permissions: ['rule:world'] },
      });
      expect(unknown.status).to.equal(400);
      const past = await t.request('/api/api-keys', {
        method: 'POST',
        headers: { cookie },
        json: { name: 'x', permissions: ['content:read'], expiresAt: '2020-01-01T00:00:00Z' },
      });
      expect(past.status).to.equal(400);
    });

    it('stores only hashes, lists without secrets, and revokes at once', async function () {
      const { cookie } = await signIn('keys@example.com');
      const key = (
        await (
          await t.request('/api/api-keys', {
            method: 'POST',
            headers: { cookie },
            json: { name: 'rotate-me', permissions: ['content:read'] },
          })
        ).json()
      ).data;
      const rows = await t.kernel.sequelize.query<{ key_hash: string }>('SELECT key_hash FROM auth_api_keys WHERE id = ?', {
        replacements: [key._id],
        type: QueryTypes.SELECT,
      });
      expect(rows[0]!.key_hash).to.equal(createHash('sha256').update(key.key).digest('hex'));
      const list = (await (await t.request('/api/api-keys', { headers: { cookie } })).json()).data;
      const listed = list.find((k: { _id: string }) => k._id === key._id);
      expect(listed).to.include({ name: 'rotate-me' });
      expect(JSON.stringify(list)).to.not.include(key.key.slice(4, 20));
      expect((await t.request(`/api/api-keys/${key._id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
      const after = await t.request('/api/echo/items/1', { headers: bearer(key.key) });
      expect(after.status).to.equal(401);
      expect((await after.json()).error).to.equal('AUTHENTICATION_REQUIRED');
      expect((await t.request(`/api/api-keys/${key._id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(404);
    });

    it('an expired key or token stops working', async function () {
      const { cookie } = await signIn('keys@example.com');
      const expiresAt = Date.now() + 1500;
      const key = (
        await (
          await t.request('/api/api-keys', {
            method: 'POST',
            headers: { cookie },
            json: { name: 'short', permissions: ['content:read'], expiresAt: new Date(expiresAt).toISOString() },
          })
        ).json()
      ).data;
      expect((await t.request('/api/echo/items/1', { headers: bearer(key.key) })).status).to.equal(200);
      // The key is cached now; once its expiry passes, the cached copy is refused too.
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 50));
      expect((await t.request('/api/echo/items/1', { headers: bearer(key.key) })).status).to.equal(401);
    });

    it('a website token acts as its creator, and dies with the creator being blocked', async function () {
      const { id, cookie } = await signIn('site@example.com');
      const created = await t.request('/api/website-tokens', { method: 'POST', headers: { cookie }, json: { name: 'blog frontend' } });
      expect(created.status).to.equal(201);
      const token = (await created.json()).data.token;
      const me = await t.request('/api/user/me', { headers: bearer(token) });
      expect(me.status).to.equal(200);
      expect((await me.json()).data).to.include({ email: 'site@example.com', role: 'editor' });
      expect((await t.request('/api/echo', { method: 'POST', headers: bearer(token), json: { name: 'x' } })).status).to.equal(201);
      const list = (await (await t.request('/api/website-tokens', { headers: { cookie } })).json()).data;
      expect(list).to.have.length(1);
      expect(list[0]).to.not.have.property('token');
      const admin = await signIn('site-admin@example.com', 'admin');
      const block = await t.request(`/api/user/${id}/block`, {
        method: 'POST',
        headers: { cookie: admin.cookie },
        json: { blocked: true },
      });
      expect(block.status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: bearer(token) })).status).to.equal(401);
    });

    it('revoking another session needs a fresh proof bound to the current session; the current one needs none', async function () {
      const a = await signIn('multi-device@example.com', 'editor', 'laptop');
      const b = await signIn('multi-device@example.com', 'editor', 'phone');
      const c = await signIn('multi-device@example.com', 'editor', 'tablet');
      const sessions = (await (await t.request('/api/user/sessions', { headers: { cookie: a.cookie } })).json()).data.sessions;
      const idOf = (agent: string) => sessions.find((s: { userAgent: string }) => s.userAgent === agent)._id;
      /** Revokes the phone's session with the cookie, and the re-authentication proof when given. */
      const revokePhone = (cookie: string, proof?: string) =>
        t.request(`/api/user/sessions/${idOf('phone')}`, {
          method: 'DELETE',
          headers: { cookie, ...(proof === undefined ? {} : { 'x-reauth-proof': proof }) },
        });
      const noProof = await revokePhone(a.cookie);
      expect(noProof.status).to.equal(403);
      expect((await noProof.json()).error).to.equal('REAUTH_REQUIRED');
      expect(
        (
          await t.request('/api/user/sessions/reauth', {
            method: 'POST',
            headers: { cookie: a.cookie },
            json: { password: 'wrong password' },
          })
        ).status,
      ).to.equal(401);
      const proofOfC = (
        await (
          await t.request('/api/user/sessions/reauth', { method: 'POST', headers: { cookie: c.cookie }, json: { password: PASSWORD } })
        ).json()
      ).data.proof;
      const foreign = await revokePhone(a.cookie, proofOfC);
      expect(foreign.status, "another session's proof").to.equal(403);
      const expired = `${Date.now() - 1000}.${proofOfC.split('.')[1]}`;
      expect((await revokePhone(c.cookie, expired)).status).to.equal(403);
      const reauth = await t.request('/api/user/sessions/reauth', {
        method: 'POST',
        headers: { cookie: a.cookie },
        json: { password: PASSWORD },
      });
      const { proof, expiresAt } = (await reauth.json()).data;
      expect(Date.parse(expiresAt) - Date.now()).to.be.within(4 * 60000, 5 * 60000);
      // A changed last character that only touches base64url padding bits is still a different proof.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const paddingFlip = proof.slice(0, -1) + alphabet[alphabet.indexOf(proof.at(-1)) ^ 1];
      expect((await revokePhone(a.cookie, paddingFlip)).status).to.equal(403);
      const ok = await revokePhone(a.cookie, proof);
      expect(ok.status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: { cookie: b.cookie } })).status).to.equal(401);
      const own = await t.request(`/api/user/sessions/${idOf('laptop')}`, { method: 'DELETE', headers: { cookie: a.cookie } });
      expect(own.status).to.equal(200);
      expect(own.headers.getSetCookie()[0]).to.match(/^session=;/);
      expect((await t.request('/api/user/me', { headers: { cookie: a.cookie } })).status).to.equal(401);
      expect((await t.request('/api/user/me', { headers: { cookie: c.cookie } })).status).to.equal(200);
    });

    it("admins list and revoke another user's sessions without proof; others may not", async function () {
      const user = await signIn('watched@example.com', 'viewer', 'desk');
      const admin = { cookie: (await signIn('session-admin@example.com', 'admin', 'admin-desk')).cookie };
      const editor = { cookie: (await signIn('session-editor@example.com', 'editor', 'editor-desk')).cookie };
      const list = await t.request(`/api/user/sessions?admin=1&userId=${user.id}`, { headers: admin });
      expect(list.status).to.equal(200);
      const [session] = (await list.json()).data.sessions;
      expect(session.userAgent).to.equal('desk');
      expect((await t.request(`/api/user/sessions?admin=1&userId=${user.id}`, { headers: editor })).status).to.equal(403);
      expect((await t.request(`/api/user/sessions/${session._id}?admin=1`, { method: 'DELETE', headers: editor })).status).to.equal(403);
      expect(
        (await t.request(`/api/user/sessions?admin=1&userId=${user.id}`, { identity: 'admin' })).status,
        'no session: a key or token may not',
      ).to.equal(403);
      expect((await t.request(`/api/user/sessions/${session._id}?admin=1`, { method: 'DELETE', headers: admin })).status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: { cookie: user.cookie } })).status).to.equal(401);
    });

    it('updates the username and merges preferences.theme', async function () {
      const { cookie } = await signIn('prefs@example.com');
      const first = await t.request('/api/user/update-user-attributes', {
        method: 'PUT',
        headers: { cookie },
        json: { username: 'Prefs', preferences: { theme: { density: 'compact' } } },
      });
      expect(first.status).to.equal(200);
      await t.request('/api/user/update-user-attributes', {
        method: 'PUT',
        headers: { cookie },
        json: { preferences: { theme: { reducedMotion: true } } },
      });
      const me = (await (await t.request('/api/user/me', { headers: { cookie } })).json()).data;
      expect(me.username).to.equal('Prefs');
      expect(me.preferences).to.deep.equal({ theme: { density: 'compact', reducedMotion: true } });
      expect((await t.request('/api/user/update-user-attributes', { method: 'PUT', json: { username: 'x' } })).status).to.equal(401);
    });
  });
}
