import { expect } from 'chai';
import { generate } from 'otplib';
import { QueryTypes } from 'sequelize';
import { responseCookie, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const codeOf = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

/**
 * Issue 32 items 6 and 10: credentials are minted only in sudo mode (a recent proof of the password),
 * narrowed website tokens, keys and tokens revoked by a password reset (and on request by a change),
 * and a single-use 2fa_pending cookie.
 */
for (const variant of DB_VARIANTS) {
  describe(`sudo mode, narrowed tokens, revocation on password change (${variant.name})`, function () {
    this.timeout(90000);
    let n = 0;
    const t = useTestKernel(
      {
        db: variant.name,
        config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      },
      { variant },
    );

    const post = (path: string, cookie: string | null, json?: unknown, headers: Record<string, string> = {}) =>
      t.request(path, { method: 'POST', headers: { ...(cookie ? { cookie } : {}), ...headers }, ...(json === undefined ? {} : { json }) });
    const login = (email: string, password = PASSWORD) => post('/api/user/login', null, { email, password });

    async function newUser(role = 'editor'): Promise<{ id: string; email: string; cookie: string }> {
      const email = `sudo-${++n}@example.com`;
      const { _id } = await t.kernel.container
        .resolve<{ create(i: object): Promise<{ _id: string }> }>('users')
        .create({ email, password: PASSWORD, role });
      const res = await login(email);
      expect(res.status).to.equal(200);
      return { id: _id, email, cookie: responseCookie(res)! };
    }
    /** Time passes: the session signed in with its password `minutes` ago. */
    async function age(userId: string, minutes: number): Promise<void> {
      await t.kernel.sequelize.query('UPDATE auth_sessions SET password_at = ? WHERE user_id = ?', {
        replacements: [Date.now() - minutes * 60_000, userId],
      });
    }
    async function proofFor(cookie: string, password = PASSWORD): Promise<string> {
      const res = await post('/api/user/sessions/reauth', cookie, { password });
      expect(res.status).to.equal(200);
      return (await res.json()).data.proof;
    }
    async function enable2fa(cookie: string): Promise<{ secret: string; backupCodes: string[] }> {
      const setup = (await (await post('/api/auth/2fa/setup', cookie)).json()).data;
      const res = await post('/api/auth/2fa/verify-setup', cookie, {
        secret: setup.secret,
        verificationCode: await codeOf(setup.secret),
        backupCodes: setup.backupCodes,
      });
      expect(res.status).to.equal(200);
      return setup;
    }
    function expectReauth(res: TestResponse, body: any, what: string) {
      expect(res.status, what).to.equal(403);
      expect(res.headers.get('x-reauth-required'), what).to.equal('1');
      if ('success' in body) expect(body, what).to.include({ success: false, error: 'REAUTH_REQUIRED' });
    }

    it('16 minutes after a password sign-in, minting keys, tokens, invitations and passkeys answers 403 REAUTH_REQUIRED; a fresh proof lets each through', async function () {
      const admin = await newUser('admin');
      // Within the window (just signed in with the password): allowed.
      expect((await post('/api/website-tokens', admin.cookie, { name: 'fresh' })).status).to.equal(201);
      await age(admin.id, 16);
      const attempts: Array<[string, unknown, number]> = [
        ['/api/website-tokens', { name: 'stolen session' }, 201],
        ['/api/api-keys', { name: 'stolen session', permissions: ['content:read'] }, 201],
        ['/api/token/create-token', { email: 'new-admin@example.com', role: 'admin' }, 200],
        ['/api/token', { email: 'new-admin-2@example.com', role: 'admin' }, 200],
        ['/api/auth/passkeys/register/options', undefined, 200],
      ];
      for (const [path, json] of attempts) {
        const res = await post(path, admin.cookie, json);
        expectReauth(res, await res.json(), path);
      }
      // A wrong or forged proof is no proof.
      const forged = await post('/api/website-tokens', admin.cookie, { name: 'x' }, { 'x-reauth-proof': `${Date.now() + 60_000}.AAAA` });
      expectReauth(forged, await forged.json(), 'forged proof');
      // Another session's proof does not fit this one.
      const other = await login(admin.email);
      const othersProof = await proofFor(responseCookie(other)!);
      const foreign = await post('/api/website-tokens', admin.cookie, { name: 'x' }, { 'x-reauth-proof': othersProof });
      expectReauth(foreign, await foreign.json(), "another session's proof");
      const proof = await proofFor(admin.cookie);
      for (const [path, json, status] of attempts) {
        expect((await post(path, admin.cookie, json, { 'x-reauth-proof': proof })).status, path).to.equal(status);
      }
    });

    it('disabling 2FA and regenerating backup codes need sudo mode too: 403 {message} with X-Reauth-Required, then a proof', async function () {
      const user = await newUser();
      await enable2fa(user.cookie);
      await age(user.id, 16);
      for (const path of ['/api/auth/2fa/backup-codes', '/api/auth/2fa/disable']) {
        const res = await post(path, user.cookie);
        const body = await res.json();
        expectReauth(res, body, path);
        expect(body).to.have.keys(['message']);
      }
      const [row] = await t.kernel.sequelize.query<{ two_factor_enabled: number | boolean }>(
        'SELECT two_factor_enabled FROM auth_users WHERE id = ?',
        { replacements: [user.id], type: QueryTypes.SELECT },
      );
      expect(Boolean(row!.two_factor_enabled), 'still on').to.equal(true);
      const proof = await proofFor(user.cookie);
      const regenerated = await post('/api/auth/2fa/backup-codes', user.cookie, undefined, { 'x-reauth-proof': proof });
      expect(regenerated.status).to.equal(200);
      const { backupCodes } = (await regenerated.json()).data;
      // A sign-in with the password and the second factor opens the window again.
      const first = await login(user.email);
      const pending = responseCookie(first, '2fa_pending')!;
      const verified = await post('/api/auth/2fa/verify', pending, { userId: user.id, code: backupCodes[0] });
      expect((await verified.json()).success).to.equal(true);
      expect((await post('/api/auth/2fa/disable', responseCookie(verified)!)).status).to.equal(200);
    });

    it('a magic-link session is no proof of the password: it needs X-Reauth-Proof at once', async function () {
      const user = await newUser();
      const { token } = await t.kernel.container
        .resolve<{ issue(kind: string, i: object): Promise<{ token: string }> }>('emailTokens')
        .issue('magic', { email: user.email, tenantId: 'default', userId: user.id, ttlMs: 60_000 });
      const signedIn = await post('/api/user/magic-link/verify', null, { token });
      expect(signedIn.status).to.equal(200);
      const cookie = responseCookie(signedIn)!;
      const refused = await post('/api/website-tokens', cookie, { name: 'from a link' });
      expectReauth(refused, await refused.json(), 'magic-link session');
      const ok = await post('/api/website-tokens', cookie, { name: 'from a link' }, { 'x-reauth-proof': await proofFor(cookie) });
      expect(ok.status).to.equal(201);
    });

    it("a narrowed website token acts with only its permissions (an admin's is no admin); one the creator lacks is 400", async function () {
      const admin = await newUser('admin');
      const created = await post('/api/website-tokens', admin.cookie, { name: 'read only', permissions: ['content:read'] });
      expect(created.status).to.equal(201);
      const token = (await created.json()).data;
      expect(token.permissions).to.deep.equal(['content:read']);
      const bearer = { authorization: `Bearer ${token.token}` };
      const makeAdmin = await t.request('/api/user/create-user', {
        method: 'POST',
        headers: bearer,
        json: { email: 'escalated@example.com', password: PASSWORD, role: 'admin' },
      });
      expect(makeAdmin.status, 'a read-only token creates no admin').to.equal(403);
      expect((await t.request('/api/user/list', { headers: bearer })).status, 'user:manage is not on the token').to.equal(403);
      expect((await t.request('/api/user/me', { headers: bearer })).status).to.equal(200);
      // The full token still acts as the admin (the spec's rule).
      const full = (await (await post('/api/website-tokens', admin.cookie, { name: 'full' })).json()).data;
      expect(full.permissions).to.equal(null);
      const listed = (await (await t.request('/api/website-tokens', { headers: { cookie: admin.cookie } })).json()).data;
      expect(listed.find((r: { _id: string }) => r._id === token._id).permissions).to.deep.equal(['content:read']);
      const editor = await newUser('editor');
      const beyond = await post('/api/website-tokens', editor.cookie, { name: 'x', permissions: ['user:manage'] });
      expect(beyond.status).to.equal(400);
      expect(await beyond.json()).to.include({ success: false, error: 'VALIDATION_ERROR' });
      const unknown = await post('/api/website-tokens', editor.cookie, { name: 'x', permissions: ['no:such'] });
      expect(unknown.status).to.equal(400);
    });

    it('a password reset revokes every API key and website token of the user; a change does when asked (revokeTokens)', async function () {
      const user = await newUser();
      const mint = async (cookie: string) => ({
        key: (await (await post('/api/api-keys', cookie, { name: 'k', permissions: ['content:read'] })).json()).data.key as string,
        token: (await (await post('/api/website-tokens', cookie, { name: 'w' })).json()).data.token as string,
      });
      const works = async (value: string) =>
        (await t.request('/api/user/me', { headers: { authorization: `Bearer ${value}` } })).status !== 401;
      const first = await mint(user.cookie);
      expect(await works(first.token)).to.equal(true);
      // A change without revokeTokens keeps them.
      const kept = await post('/api/user/change-password', user.cookie, { currentPassword: PASSWORD, newPassword: 'second password 1' });
      expect(kept.status).to.equal(200);
      expect((await kept.json()).data).to.include({ revokedApiKeys: 0, revokedWebsiteTokens: 0 });
      expect(await works(first.token)).to.equal(true);
      const rotated = responseCookie(kept)!;
      // With revokeTokens they go, at once.
      const changed = await post('/api/user/change-password', rotated, {
        currentPassword: 'second password 1',
        newPassword: PASSWORD,
        revokeTokens: true,
      });
      expect(changed.status).to.equal(200);
      expect((await changed.json()).data).to.include({ revokedApiKeys: 1, revokedWebsiteTokens: 1 });
      expect(await works(first.token), 'website token after the change').to.equal(false);
      expect(await works(first.key), 'API key after the change').to.equal(false);
      // A reset always revokes them.
      const second = await mint(responseCookie(changed)!);
      expect(await works(second.key)).to.equal(true);
      const { token: reset } = await t.kernel.container
        .resolve<{ issue(kind: string, i: object): Promise<{ token: string }> }>('emailTokens')
        .issue('reset', { email: user.email, tenantId: 'default', userId: user.id, ttlMs: 60_000 });
      expect((await post('/api/user/reset-password', null, { token: reset, password: 'third password 1' })).status).to.equal(200);
      expect(await works(second.token), 'website token after the reset').to.equal(false);
      expect(await works(second.key), 'API key after the reset').to.equal(false);
    });

    it('the 2fa_pending cookie is single use: replayed after a successful second factor it signs nobody in', async function () {
      const user = await newUser();
      const { backupCodes } = await enable2fa(user.cookie);
      const first = await login(user.email);
      const pending = responseCookie(first, '2fa_pending')!;
      const ok = await post('/api/auth/2fa/verify', pending, { userId: user.id, code: backupCodes[0] });
      expect((await ok.json()).success).to.equal(true);
      expect(responseCookie(ok)).to.not.equal(null);
      expect(
        ok.headers.getSetCookie().some((c) => /^2fa_pending=;/.test(c)),
        'the cookie is cleared',
      ).to.equal(true);
      // The same cookie again, with another valid backup code: nothing pending any more.
      const replay = await post('/api/auth/2fa/verify', pending, { userId: user.id, code: backupCodes[1] });
      const body = await replay.json();
      expect(replay.status).to.equal(200);
      expect(body.success).to.equal(false);
      expect(responseCookie(replay), 'no session from a used pending sign-in').to.equal(null);
    });
  });
}

describe('sudo mode window setting (CMS_REAUTH_WINDOW_SECONDS=0)', function () {
  this.timeout(60000);
  const t = useTestKernel({
    config: { plugins: { options: { auth: { bcryptRounds: 4 } } } },
    env: { CMS_REAUTH_WINDOW_SECONDS: '0' },
  });

  it('asks for the proof every time, even right after the password sign-in', async function () {
    await createUsers(t, { email: 'zero@example.com', password: PASSWORD, role: 'editor' });
    const res = await t.request('/api/user/login', { method: 'POST', json: { email: 'zero@example.com', password: PASSWORD } });
    const cookie = responseCookie(res)!;
    const refused = await t.request('/api/api-keys', {
      method: 'POST',
      headers: { cookie },
      json: { name: 'k', permissions: ['content:read'] },
    });
    expect(refused.status).to.equal(403);
    expect((await refused.json()).error).to.equal('REAUTH_REQUIRED');
    const proof = (
      await (await t.request('/api/user/sessions/reauth', { method: 'POST', headers: { cookie }, json: { password: PASSWORD } })).json()
    ).data.proof;
    const ok = await t.request('/api/api-keys', {
      method: 'POST',
      headers: { cookie, 'x-reauth-proof': proof },
      json: { name: 'k', permissions: ['content:read'] },
    });
    expect(ok.status).to.equal(201);
  });
});
