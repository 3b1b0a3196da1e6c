import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { generate } from 'otplib';
import { responseCookie as cookie, startTestKernel, tempDir, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';

const PASSWORD = 'correct horse battery';

/** A port nobody listens on, so the relying party's origin (http://localhost:<port>) is known before boot. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const variant of DB_VARIANTS) {
  describe(`passkeys (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    let origin: string;
    let n = 0;

    before(async function () {
      requireVariant(this, variant);
      const port = await freePort();
      origin = `http://localhost:${port}`;
      // No passkey options: the relying party comes from the instance's own address (loopback -> localhost).
      t = await startTestKernel({
        db: variant.name,
        config: { port, plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      });
      expect(t.url).to.equal(`http://127.0.0.1:${port}`);
    });
    after(async () => t?.close());

    const users = () => t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
    const post = (path: string, json: unknown, session?: string) =>
      t.request(path, { method: 'POST', json, headers: session ? { cookie: session } : {} });

    async function newUser(role = 'editor'): Promise<{ id: string; email: string; session: string }> {
      const email = `passkey-${++n}@example.com`;
      const { _id } = await users().create({ email, password: PASSWORD, role });
      const login = await post('/api/user/login', { email, password: PASSWORD });
      expect(login.status).to.equal(200);
      return { id: _id, email, session: cookie(login, 'session')! };
    }

    async function registerPasskey(session: string, name?: string) {
      const soft = new SoftAuthenticator();
      const options = await post('/api/auth/passkeys/register/options', {}, session);
      expect(options.status).to.equal(200);
      const response = soft.createCredential((await options.json()).data, origin);
      const res = await post('/api/auth/passkeys/register/verify', { response, ...(name ? { name } : {}) }, session);
      expect(res.status, JSON.stringify(await res.clone().json())).to.equal(201);
      return { soft, passkey: (await res.json()).data.passkey, response };
    }

    const verify = (response: unknown, challengeCookie: string | null) =>
      t.request('/api/auth/passkeys/login/verify', {
        method: 'POST',
        json: { response },
        headers: challengeCookie ? { cookie: challengeCookie } : {},
      });

    /** A fresh client (no cookies but the challenge cookie it is given): options, then an assertion built by `sign`. */
    async function passkeyLogin(
      soft: SoftAuthenticator,
      opts: { email?: string; userVerified?: boolean; sign?: (options: any) => unknown } = {},
    ): Promise<{ res: TestResponse; response: any; challengeCookie: string; options: any }> {
      const optionsRes = await post('/api/auth/passkeys/login/options', opts.email ? { email: opts.email } : {});
      expect(optionsRes.status).to.equal(200);
      const challengeCookie = cookie(optionsRes, 'passkey_challenge')!;
      expect(challengeCookie, 'challenge cookie').to.be.a('string');
      const options = (await optionsRes.json()).data;
      const response = opts.sign ? opts.sign(options) : soft.getAssertion(options, origin, { userVerified: opts.userVerified });
      return { res: await verify(response, challengeCookie), response, challengeCookie, options };
    }

    async function expectRefused(res: TestResponse, what: string): Promise<string> {
      expect(res.status, what).to.equal(401);
      const body = await res.json();
      expect(body.error, what).to.equal('PASSKEY_VERIFICATION_FAILED');
      expect(cookie(res, 'session'), `${what}: no session`).to.equal(null);
      return body.message;
    }

    it('a signed-in user registers a passkey, lists it, and signs in with it from a fresh client, with and without email', async function () {
      const { email, session } = await newUser();
      const optionsRes = await post('/api/auth/passkeys/register/options', {}, session);
      const options = (await optionsRes.json()).data;
      expect(options.rp).to.deep.equal({ name: 'CMS', id: 'localhost' });
      expect(options.user.name).to.equal(email);
      expect(options).to.include({ attestation: 'none' });
      expect(options.authenticatorSelection).to.include({ residentKey: 'preferred', userVerification: 'preferred' });
      expect(options.excludeCredentials).to.deep.equal([]);

      const soft = new SoftAuthenticator();
      const created = await post(
        '/api/auth/passkeys/register/verify',
        { response: soft.createCredential(options, origin), name: 'Laptop' },
        session,
      );
      expect(created.status).to.equal(201);
      const { passkey } = (await created.json()).data;
      expect(passkey).to.include({ name: 'Laptop', lastUsedAt: null, deviceType: 'singleDevice', backedUp: false });
      expect(passkey._id).to.be.a('string');

      const again = (await (await post('/api/auth/passkeys/register/options', {}, session)).json()).data;
      expect(
        again.excludeCredentials.map((c: { id: string }) => c.id),
        'existing passkeys are excluded',
      ).to.deep.equal([soft.id]);
      const list = await t.request('/api/auth/passkeys', { headers: { cookie: session } });
      expect((await list.json()).data.passkeys).to.deep.equal([passkey]);

      const withEmail = await passkeyLogin(soft, { email });
      expect(withEmail.options.allowCredentials.map((c: { id: string }) => c.id)).to.deep.equal([soft.id]);
      expect(withEmail.res.status).to.equal(200);
      expect((await withEmail.res.json()).data.user).to.include({ email });
      const me = await t.request('/api/user/me', { headers: { cookie: cookie(withEmail.res, 'session')! } });
      expect(me.status).to.equal(200);
      expect((await me.json()).data.email).to.equal(email);

      const discoverable = await passkeyLogin(soft);
      expect(discoverable.options.allowCredentials).to.deep.equal([]);
      expect(discoverable.res.status).to.equal(200);
      const me2 = await t.request('/api/user/me', { headers: { cookie: cookie(discoverable.res, 'session')! } });
      expect((await me2.json()).data.email).to.equal(email);

      const [used] = (await (await t.request('/api/auth/passkeys', { headers: { cookie: session } })).json()).data.passkeys;
      expect(used.lastUsedAt).to.be.a('string');
    });

    it('registration needs a session (a guest gets 401); a replayed or foreign-origin registration answers 400', async function () {
      expect((await post('/api/auth/passkeys/register/options', {})).status).to.equal(401);
      const { session } = await newUser();
      const { response } = await registerPasskey(session);
      expect((await post('/api/auth/passkeys/register/verify', { response })).status, 'guest').to.equal(401);
      const replay = await post('/api/auth/passkeys/register/verify', { response }, session);
      expect(replay.status).to.equal(400);
      expect(await replay.json()).to.deep.include({ error: 'PASSKEY_REGISTRATION_FAILED' });

      const options = (await (await post('/api/auth/passkeys/register/options', {}, session)).json()).data;
      const foreign = await post(
        '/api/auth/passkeys/register/verify',
        { response: new SoftAuthenticator().createCredential(options, 'http://evil.example') },
        session,
      );
      expect(foreign.status).to.equal(400);
      const body = await foreign.json();
      expect(body.error).to.equal('PASSKEY_REGISTRATION_FAILED');
      expect(body.message)
        .to.include('origin')
        .and.not.match(/\n\s+at /);
      expect((await (await t.request('/api/auth/passkeys', { headers: { cookie: session } })).json()).data.passkeys).to.have.length(1);
    });

    it('refuses a replayed assertion with the same or a new challenge cookie, and a counter that goes backwards', async function () {
      const { session } = await newUser();
      const { soft } = await registerPasskey(session);
      const first = await passkeyLogin(soft);
      expect(first.res.status).to.equal(200);
      await expectRefused(await verify(first.response, first.challengeCookie), 'same response, same challenge cookie');
      const fresh = await passkeyLogin(soft, { sign: () => first.response });
      await expectRefused(fresh.res, 'same response, new challenge cookie');
      soft.counter = 0;
      await expectRefused((await passkeyLogin(soft)).res, 'counter wound back');
    });

    it('refuses an assertion answered after its challenge expired', async function () {
      const { session } = await newUser();
      const { soft } = await registerPasskey(session);
      const optionsRes = await post('/api/auth/passkeys/login/options', {});
      const options = (await optionsRes.json()).data;
      await t.kernel.sequelize.query('UPDATE auth_passkey_challenges SET expires_at = ? WHERE challenge = ?', {
        replacements: [Date.now() - 1000, options.challenge],
      });
      await expectRefused(await verify(soft.getAssertion(options, origin), cookie(optionsRes, 'passkey_challenge')), 'expired challenge');
      expect((await passkeyLogin(soft)).res.status, 'a new challenge works').to.equal(200);
    });

    it('answers one 401 for another key, another RP ID or origin, a tampered clientDataJSON, or no challenge cookie', async function () {
      const { email, session } = await newUser();
      const { soft } = await registerPasskey(session);
      const forger = new SoftAuthenticator({ credentialId: soft.credentialId });
      forger.userHandle = soft.userHandle;
      const messages = new Set<string>();
      forger.counter = soft.counter + 100;
      messages.add(
        await expectRefused((await passkeyLogin(soft, { email, sign: (o) => forger.getAssertion(o, origin) })).res, 'another key'),
      );
      messages.add(
        await expectRefused(
          (await passkeyLogin(soft, { sign: (o) => soft.getAssertion({ ...o, rpId: 'evil.example' }, origin) })).res,
          'another RP ID',
        ),
      );
      messages.add(
        await expectRefused((await passkeyLogin(soft, { sign: (o) => soft.getAssertion(o, 'http://evil.example') })).res, 'another origin'),
      );
      const tampered = (o: any) => {
        const a = soft.getAssertion(o, origin);
        const data = JSON.parse(Buffer.from(a.response.clientDataJSON, 'base64url').toString());
        a.response.clientDataJSON = Buffer.from(JSON.stringify({ ...data, crossOrigin: false, extra: 'x' })).toString('base64url');
        return a;
      };
      messages.add(await expectRefused((await passkeyLogin(soft, { sign: tampered })).res, 'tampered clientDataJSON'));
      const options = (await (await post('/api/auth/passkeys/login/options', {})).json()).data;
      messages.add(await expectRefused(await verify(soft.getAssertion(options, origin), null), 'no challenge cookie'));
      messages.add(
        await expectRefused(
          (await passkeyLogin(soft, { sign: (o) => ({ ...soft.getAssertion(o, origin), id: 'AAAA', rawId: 'AAAA' }) })).res,
          'unknown credential',
        ),
      );
      expect([...messages], 'one message for every failure').to.have.length(1);
      expect((await passkeyLogin(soft)).res.status, 'the genuine passkey still works').to.equal(200);
    });

    it("another user cannot rename or delete a user's passkey; the owner can, and a deleted passkey no longer signs in", async function () {
      const owner = await newUser();
      const other = await newUser();
      const { soft, passkey } = await registerPasskey(owner.session, 'Phone');
      const path = `/api/auth/passkeys/${passkey._id}`;
      const rename = await t.request(path, { method: 'PATCH', json: { name: 'Mine now' }, headers: { cookie: other.session } });
      expect(rename.status).to.equal(404);
      expect((await rename.json()).error).to.equal('PASSKEY_NOT_FOUND');
      const remove = await t.request(path, { method: 'DELETE', headers: { cookie: other.session } });
      expect(remove.status).to.equal(404);
      expect((await (await t.request('/api/auth/passkeys', { headers: { cookie: other.session } })).json()).data.passkeys).to.deep.equal(
        [],
      );
      expect((await passkeyLogin(soft)).res.status, 'still works').to.equal(200);

      const renamed = await t.request(path, { method: 'PATCH', json: { name: '  Work phone ' }, headers: { cookie: owner.session } });
      expect((await renamed.json()).data.passkey.name).to.equal('Work phone');
      const deleted = await t.request(path, { method: 'DELETE', headers: { cookie: owner.session } });
      expect(await deleted.json()).to.deep.equal({ success: true, data: { deleted: true } });
      await expectRefused((await passkeyLogin(soft)).res, 'deleted passkey');
      expect((await t.request(path, { method: 'DELETE', headers: { cookie: owner.session } })).status).to.equal(404);
    });

    it('with 2FA on, a user-verified assertion signs in directly and one without user verification asks for the second factor', async function () {
      const { id, session } = await newUser();
      const { soft } = await registerPasskey(session);
      const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
      const enabled = await post(
        '/api/auth/2fa/verify-setup',
        {
          secret: setup.secret,
          verificationCode: await generate({ secret: setup.secret, epoch: Math.floor(Date.now() / 1000) }),
          backupCodes: setup.backupCodes,
        },
        session,
      );
      expect(enabled.status).to.equal(200);

      const verified = await passkeyLogin(soft, { userVerified: true });
      expect(verified.res.status).to.equal(200);
      expect((await verified.res.json()).data.user._id).to.equal(id);
      expect((await t.request('/api/user/me', { headers: { cookie: cookie(verified.res, 'session')! } })).status).to.equal(200);

      const presenceOnly = await passkeyLogin(soft, { userVerified: false });
      expect(presenceOnly.res.status).to.equal(200);
      expect((await presenceOnly.res.json()).data).to.deep.equal({ requires2FA: true, userId: id });
      expect(cookie(presenceOnly.res, 'session'), 'no session before the second factor').to.equal(null);
      expect(cookie(presenceOnly.res, '2fa_pending')).to.be.a('string');
    });

    it("login options for an unknown email look like a real user's and stay the same", async function () {
      const { email, session } = await newUser();
      await registerPasskey(session);
      const optionsFor = async (who: string) => {
        const res = await post('/api/auth/passkeys/login/options', { email: who });
        expect(res.status).to.equal(200);
        expect(cookie(res, 'passkey_challenge')).to.be.a('string');
        return (await res.json()).data;
      };
      const real = await optionsFor(email);
      const unknown = await optionsFor('nobody-here@example.com');
      expect(Object.keys(unknown).sort()).to.deep.equal(Object.keys(real).sort());
      expect(unknown.allowCredentials).to.have.length(real.allowCredentials.length);
      expect(Object.keys(unknown.allowCredentials[0]).sort()).to.deep.equal(Object.keys(real.allowCredentials[0]).sort());
      expect(unknown.allowCredentials[0].id).to.match(/^[A-Za-z0-9_-]{40,}$/);
      expect((await optionsFor('Nobody-Here@example.com')).allowCredentials, 'stable across requests').to.deep.equal(
        unknown.allowCredentials,
      );
      expect(unknown.challenge).to.not.equal(real.challenge);
    });

    it("a blocked user's passkey is refused with ACCOUNT_BLOCKED, and a deleted user's passkeys stop working", async function () {
      const admin = await newUser('admin');
      const { id, session } = await newUser();
      const { soft } = await registerPasskey(session);
      const block = await post(`/api/user/${id}/block`, { blocked: true }, admin.session);
      expect(block.status).to.equal(200);
      const blocked = (await passkeyLogin(soft)).res;
      expect(blocked.status).to.equal(403);
      expect((await blocked.json()).error).to.equal('ACCOUNT_BLOCKED');
      const removed = await t.request(`/api/user/${id}`, { method: 'DELETE', headers: { cookie: admin.session } });
      expect(removed.status).to.equal(200);
      await expectRefused((await passkeyLogin(soft)).res, 'deleted user');
    });

    it('management routes need a session; bad input answers 400, never 500', async function () {
      expect((await t.request('/api/auth/passkeys')).status).to.equal(401);
      const { session } = await newUser();
      const badId = await t.request('/api/auth/passkeys/not-a-uuid', { method: 'DELETE', headers: { cookie: session } });
      expect(badId.status).to.equal(400);
      const garbage = await post(
        '/api/auth/passkeys/register/verify',
        { response: { id: 'x', rawId: 'x', type: 'public-key', response: {} } },
        session,
      );
      expect(garbage.status).to.equal(400);
      expect((await garbage.json()).error).to.equal('VALIDATION_ERROR');
      const { soft } = await registerPasskey(session);
      const garbageAssertion = () => ({
        id: soft.id,
        rawId: soft.id,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
      });
      await expectRefused((await passkeyLogin(soft, { sign: garbageAssertion })).res, 'garbage assertion');
    });
  });
}

describe('passkey options', function () {
  this.timeout(60000);

  it('invalid plugin options stop the boot with a message naming the option', async function () {
    const dataDir = tempDir();
    try {
      let error: Error | null = null;
      await startTestKernel({
        dataDir,
        config: { plugins: { options: { 'auth-passkeys': { userVerification: 'always', rpId: 'https://example.com' } } } },
      }).catch((err) => {
        error = err;
      });
      expect(String(error)).to.include("plugins.options['auth-passkeys']").and.include('userVerification').and.include('rpId');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rpId and origin from the options bind registration to that site', async function () {
    const t = await startTestKernel({
      config: {
        plugins: {
          options: {
            auth: { bcryptRounds: 4 },
            'auth-passkeys': { rpName: 'Acme', rpId: 'example.com', origin: 'https://cms.example.com' },
          },
        },
      },
    });
    try {
      await createUsers(t, { email: 'rp@example.com', password: PASSWORD, role: 'viewer' });
      const session = cookie(
        await t.request('/api/user/login', { method: 'POST', json: { email: 'rp@example.com', password: PASSWORD } }),
        'session',
      )!;
      const optionsOf = async () =>
        (await (await t.request('/api/auth/passkeys/register/options', { method: 'POST', headers: { cookie: session } })).json()).data;
      const options = await optionsOf();
      expect(options.rp).to.deep.equal({ name: 'Acme', id: 'example.com' });
      const local = await t.request('/api/auth/passkeys/register/verify', {
        method: 'POST',
        headers: { cookie: session },
        json: { response: new SoftAuthenticator().createCredential(options, t.url) },
      });
      expect(local.status, 'the instance address is not the configured origin').to.equal(400);
      const site = await t.request('/api/auth/passkeys/register/verify', {
        method: 'POST',
        headers: { cookie: session },
        json: { response: new SoftAuthenticator().createCredential(await optionsOf(), 'https://cms.example.com') },
      });
      expect(site.status).to.equal(201);
    } finally {
      await t.close();
    }
  });
});
