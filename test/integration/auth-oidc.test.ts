import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { QueryTypes } from 'sequelize';
import { responseCookie, startTestKernel, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { optionsSchema, resolveProviders } from '../../plugins/auth-oidc/provider-settings.js';

const PASSWORD = 'correct horse battery';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface TestAccount {
  email: string;
  email_verified: boolean;
}

/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1: confidential clients that must use PKCE, ID
 * tokens carrying email and email_verified, consent granted automatically, and a login step that
 * signs in whichever account the test names in `nextLogin`.
 */
async function startProvider(port: number, clients: Array<{ id: string; secret: string; redirectUri: string }>) {
  const accounts = new Map<string, TestAccount>();
  const control = { nextLogin: '' };
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      redirect_uris: [c.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: [{ ...key, kid: 'test-key', alg: 'RS256', use: 'sig' }] as never },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
      const account = accounts.get(sub);
      return account
        ? { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: account.email_verified }) }
        : undefined;
    },
    // First-party clients: consent is granted without asking.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void handle(req, res);
    provider.interactionFinished(req, res, { login: { accountId: control.nextLogin } }, { mergeWithLastSubmission: false }).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { accounts, control, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A browser: manual redirects and one cookie jar per origin. */
class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  jar(origin: string): Map<string, string> {
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new Map()));
    return jar;
  }

  async get(url: string): Promise<TestResponse> {
    const jar = this.jar(new URL(url).origin);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const name = pair!.slice(0, pair!.indexOf('='));
      const value = pair!.slice(pair!.indexOf('=') + 1);
      const expires = attributes.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('expires='));
      if (!value || (expires && Date.parse(expires.slice(8)) <= Date.now())) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  }
}

describe('auth-oidc: provider configuration', function () {
  const providers = (env: Record<string, string>, options: object = {}) => resolveProviders(optionsSchema.parse(options), env);
  const byId = (list: ReturnType<typeof providers>, id: string) => list.find((p) => p.id === id)!;

  it('enables the well-known providers from their secrets alone; without them they are listed inactive', function () {
    const none = providers({});
    expect(none.map((p) => [p.id, p.active])).to.deep.equal([
      ['google', false],
      ['microsoft', false],
      ['gitlab', false],
      ['oidc', false],
    ]);
    const env = {
      GOOGLE_CLIENT_ID: 'g-id',
      GOOGLE_CLIENT_SECRET: 'g-secret',
      MICROSOFT_CLIENT_ID: 'm-id',
      MICROSOFT_CLIENT_SECRET: 'm-secret',
      MICROSOFT_TENANT: 'contoso.onmicrosoft.com',
      GITLAB_CLIENT_ID: 'gl-id',
      GITLAB_CLIENT_SECRET: 'gl-secret',
      GITLAB_ISSUER: 'https://git.example.com',
      OIDC_ISSUER: 'https://sso.example.com/realms/staff',
      OIDC_CLIENT_ID: 'o-id',
      OIDC_CLIENT_SECRET: 'o-secret',
      OIDC_DISPLAY_NAME: 'Staff SSO',
    };
    const all = providers(env);
    expect(byId(all, 'google')).to.include({
      active: true,
      issuer: 'https://accounts.google.com',
      clientId: 'g-id',
      clientSecret: 'g-secret',
      allowSignUp: false,
      defaultRole: 'viewer',
    });
    expect(byId(all, 'microsoft')).to.include({ active: true, issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0' });
    expect(byId(providers({ MICROSOFT_CLIENT_ID: 'm', MICROSOFT_CLIENT_SECRET: 's' }), 'microsoft').issuer).to.equal(
      'https://login.microsoftonline.com/common/v2.0',
    );
    expect(byId(all, 'gitlab')).to.include({ active: true, issuer: 'https://git.example.com' });
    expect(byId(all, 'oidc')).to.include({ active: true, issuer: 'https://sso.example.com/realms/staff', displayName: 'Staff SSO' });
    expect(byId(providers({ GOOGLE_CLIENT_ID: 'g-id' }), 'google').active, 'an id without its secret').to.equal(false);
  });

  it("takes a configured provider's secret from OIDC_<ID>_CLIENT_SECRET, and lets it replace a preset", function () {
    const options = {
      providers: {
        'staff-sso': { issuer: 'https://sso.example.com', clientId: 'cms' },
        google: { issuer: 'https://accounts.google.com', clientId: 'mine', allowSignUp: true },
      },
    };
    expect(byId(providers({}, options), 'staff-sso').active).to.equal(false);
    const list = providers({ OIDC_STAFF_SSO_CLIENT_SECRET: 'from-env', OIDC_GOOGLE_CLIENT_SECRET: 'g' }, options);
    expect(byId(list, 'staff-sso')).to.include({ active: true, clientSecret: 'from-env' });
    expect(list.filter((p) => p.id === 'google')).to.have.length(1);
    expect(byId(list, 'google')).to.include({ clientId: 'mine', allowSignUp: true, active: true });
  });

  it('refuses plain-http issuers (unless allowInsecureRequests), an admin default role, scopes without openid and unknown keys', function () {
    const bad = (provider: object) =>
      optionsSchema.safeParse({ providers: { x: { issuer: 'https://idp.example.com', clientId: 'c', ...provider } } }).success;
    expect(bad({})).to.equal(true);
    expect(bad({ issuer: 'http://idp.example.com' })).to.equal(false);
    expect(bad({ issuer: 'http://127.0.0.1:9', allowInsecureRequests: true })).to.equal(true);
    expect(bad({ defaultRole: 'admin' })).to.equal(false);
    expect(bad({ scopes: ['email'] })).to.equal(false);
    expect(bad({ clientSecrets: 'typo' })).to.equal(false);
    expect(() => providers({ OIDC_ISSUER: 'http://sso.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' })).to.throw(/https/);
  });
});

describe('auth-oidc: providers configured in System Settings', function () {
  this.timeout(60000);
  it('activates the Google and OpenID presets from the settings an admin sets, at once and without a restart', async function () {
    const t = await startTestKernel({
      setup: true,
      config: {
        plugins: {
          options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'ops@example.com', password: 'configured password' } } },
        },
      },
    });
    try {
      const settings = t.kernel.container.resolve<{ set(key: string, value: unknown): Promise<void> }>('settings');
      // Read once before: the providers are kept 30 s, and a changed setting must not wait for that.
      const before = (await (await t.request('/api/get-tokens-provided')).json()).data;
      expect(before.google.active).to.equal(false);
      await settings.set('OAUTH_GOOGLE_CLIENT_ID', 'google-id');
      await settings.set('OAUTH_GOOGLE_CLIENT_SECRET', 'google-secret');
      await settings.set('OIDC_ISSUER_URL', 'https://sso.example.com/realms/staff');
      await settings.set('OIDC_CLIENT_ID', 'cms');
      await settings.set('OIDC_CLIENT_SECRET', 'sso-secret');
      const mapping = (await (await t.request('/api/get-tokens-provided')).json()).data;
      expect(mapping.google).to.deep.include({ active: true, startUrl: '/api/auth/oidc/google/start' });
      expect(mapping.oidc).to.deep.include({ active: true, startUrl: '/api/auth/oidc/oidc/start' });
      expect(mapping.gitlab.active).to.equal(false);
      expect(JSON.stringify(mapping), 'secrets never reach the answer').to.not.match(/google-secret|sso-secret/);
    } finally {
      await t.close();
    }
  });
});

for (const variant of DB_VARIANTS) {
  describe(`auth-oidc: sign-in with an OpenID provider (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    let op: Awaited<ReturnType<typeof startProvider>>;
    let cmsUrl: string;
    let downPort: number;
    let n = 0;
    const closers: Array<() => Promise<unknown>> = [];

    before(async function () {
      requireVariant(this, variant);
      const [cmsPort, opPort] = [await freePort(), await freePort()];
      downPort = await freePort();
      cmsUrl = `http://127.0.0.1:${cmsPort}`;
      const callback = (id: string) => `${cmsUrl}/api/auth/oidc/${id}/callback`;
      op = await startProvider(opPort, [
        { id: 'cms', secret: 'cms-secret', redirectUri: callback('test') },
        { id: 'cms-open', secret: 'open-secret', redirectUri: callback('open') },
      ]);
      closers.push(op.close);
      const issuer = `http://127.0.0.1:${opPort}`;
      // The secret of `open` comes from the environment, as an operator keeps it out of the config file
      // (read at request time, so it stays set until the suite ends).
      process.env.OIDC_OPEN_CLIENT_SECRET = 'open-secret';
      t = await startTestKernel({
        db: variant.name,
        config: {
          port: cmsPort,
          plugins: {
            options: {
              auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' },
              'auth-oidc': {
                publicUrl: cmsUrl,
                providers: {
                  test: { issuer, clientId: 'cms', clientSecret: 'cms-secret', displayName: 'Test IdP', allowInsecureRequests: true },
                  open: { issuer, clientId: 'cms-open', displayName: 'Open IdP', allowSignUp: true, allowInsecureRequests: true },
                  down: {
                    issuer: `http://127.0.0.1:${downPort}`,
                    clientId: 'cms',
                    clientSecret: 'cms-secret',
                    allowInsecureRequests: true,
                  },
                  unset: { issuer: 'https://idp.example.com', clientId: 'cms' },
                },
              },
            },
          },
        },
      });
    });
    after(async () => {
      delete process.env.OIDC_OPEN_CLIENT_SECRET;
      await t?.close();
      for (const close of closers) await close();
    });

    const users = () =>
      t.kernel.container.resolve<{
        create(i: object): Promise<{ _id: string }>;
        setBlocked(id: string, blocked: boolean): Promise<void>;
        delete(id: string): Promise<void>;
      }>('users');

    /** An account at the provider, and (unless cmsUser is false) a user here with the same email. */
    async function person(options: { verified?: boolean; cmsUser?: boolean } = {}) {
      const name = `person${++n}`;
      const email = `${name}@example.com`;
      op.accounts.set(`sub-${name}`, { email, email_verified: options.verified ?? true });
      const userId = options.cmsUser === false ? null : (await users().create({ email, password: PASSWORD, role: 'editor' }))._id;
      return { sub: `sub-${name}`, email, userId };
    }

    /** Starts a sign-in in the browser and walks the provider's redirects up to (not into) our callback. */
    async function toCallback(browser: Browser, provider: string, sub: string, returnTo = '/dashboard'): Promise<string> {
      op.control.nextLogin = sub;
      const start = await browser.get(`${cmsUrl}/api/auth/oidc/${provider}/start?returnTo=${encodeURIComponent(returnTo)}`);
      expect(start.status, await start.clone().text()).to.equal(302);
      let location = start.headers.get('location')!;
      for (let hop = 0; hop < 10; hop++) {
        if (location.startsWith(`${cmsUrl}/api/auth/oidc/${provider}/callback?`)) return location;
        const res = await browser.get(location);
        expect([302, 303], `${location}: ${await res.clone().text()}`).to.include(res.status);
        location = new URL(res.headers.get('location')!, location).href;
      }
      throw new Error('the provider never redirected back');
    }

    async function signIn(provider: string, sub: string, returnTo = '/dashboard') {
      const browser = new Browser();
      const callback = await toCallback(browser, provider, sub, returnTo);
      return { browser, callback, res: await browser.get(callback) };
    }

    const me = async (session: string | null) => (await t.request('/api/user/me', { headers: session ? { cookie: session } : {} })).json();
    const links = (sub: string) =>
      t.kernel.sequelize.query<{ user_id: string; email: string | null }>(
        'SELECT user_id, email FROM auth_oidc_identities WHERE subject = ?',
        { replacements: [sub], type: QueryTypes.SELECT },
      );

    async function expectRefused(res: TestResponse, status: number, code: string) {
      expect(res.status).to.equal(status);
      expect((await res.json()).error).to.equal(code);
      expect(responseCookie(res, 'session'), 'no session').to.equal(null);
    }

    it('lists the configured providers as active with a start URL, and unconfigured ones as inactive', async function () {
      const res = await t.request('/api/get-tokens-provided');
      expect(res.status).to.equal(200);
      const { data } = await res.json();
      expect(data.test).to.deep.equal({ displayName: 'Test IdP', type: 'oidc', active: true, startUrl: '/api/auth/oidc/test/start' });
      expect(data.open).to.include({ active: true, startUrl: '/api/auth/oidc/open/start' });
      expect(data.unset).to.include({ active: false, startUrl: null });
      expect(data.google).to.deep.equal({ displayName: 'Google', type: 'oidc', active: false, startUrl: null });
      expect(data).to.include.keys(['microsoft', 'gitlab', 'oidc']);
      expect(JSON.stringify(data)).to.not.include('secret');
      await expectRefused(await t.request('/api/auth/oidc/google/start'), 404, 'OIDC_PROVIDER_NOT_FOUND');
      await expectRefused(await t.request('/api/auth/oidc/unset/start'), 404, 'OIDC_PROVIDER_NOT_FOUND');
      await expectRefused(await t.request('/api/auth/oidc/nope/callback?code=x&state=y'), 404, 'OIDC_PROVIDER_NOT_FOUND');
    });

    it('start sends the browser to the provider with state, nonce and an S256 PKCE challenge', async function () {
      const res = await new Browser().get(`${cmsUrl}/api/auth/oidc/test/start`);
      expect(res.status).to.equal(302);
      const to = new URL(res.headers.get('location')!);
      expect(to.searchParams.get('client_id')).to.equal('cms');
      expect(to.searchParams.get('redirect_uri')).to.equal(`${cmsUrl}/api/auth/oidc/test/callback`);
      expect(to.searchParams.get('scope')).to.equal('openid email profile');
      expect(to.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(to.searchParams.get('nonce')).to.be.a('string').with.length.above(20);
      expect(to.searchParams.get('state')).to.match(/^[\w-]+\.[\w-]{43}$/);
      expect(res.headers.getSetCookie().find((c) => c.startsWith('oidc_flow=')))
        .to.match(/httponly/i)
        .and.match(/samesite=lax/i);
    });

    it('signs in an existing user whose verified email matches, with a working session, then redirects to returnTo', async function () {
      const alice = await person();
      const { res } = await signIn('test', alice.sub, '/content/posts?tab=drafts');
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('/content/posts?tab=drafts');
      const session = responseCookie(res, 'session');
      expect(session).to.be.a('string');
      expect((await me(session)).data).to.include({ _id: alice.userId, email: alice.email, role: 'editor' });
      expect(
        res.headers.getSetCookie().find((c) => c.startsWith('oidc_flow=;')),
        'the flow cookie is cleared',
      ).to.be.a('string');
      const [link] = await links(alice.sub);
      expect(link).to.deep.include({ user_id: alice.userId, email: alice.email });
      const columns = Object.keys(await t.kernel.sequelize.getQueryInterface().describeTable('auth_oidc_identities'));
      expect(columns.join(',')).to.not.match(/token/);
    });

    it('signs in through the stored link even after the email at the provider changed', async function () {
      const alice = await person();
      expect((await signIn('test', alice.sub)).res.status).to.equal(302);
      op.accounts.set(alice.sub, { email: 'someone.else@elsewhere.test', email_verified: false });
      const { res } = await signIn('test', alice.sub);
      expect(res.status).to.equal(302);
      expect((await me(responseCookie(res, 'session'))).data).to.include({ _id: alice.userId, email: alice.email });
      expect((await links(alice.sub))[0]!.email).to.equal('someone.else@elsewhere.test');
    });

    it('refuses an unverified email that matches a user (no link), and an unknown identity when sign-up is off', async function () {
      const bob = await person({ verified: false });
      await expectRefused((await signIn('test', bob.sub)).res, 403, 'OIDC_NO_ACCOUNT');
      expect(await links(bob.sub)).to.deep.equal([]);
      const stranger = await person({ cmsUser: false });
      await expectRefused((await signIn('test', stranger.sub)).res, 403, 'OIDC_NO_ACCOUNT');
      // Sign-up does not let an unverified address claim an account either.
      const unverified = await person({ verified: false, cmsUser: false });
      await expectRefused((await signIn('open', unverified.sub)).res, 403, 'OIDC_NO_ACCOUNT');
    });

    it('allowSignUp creates a user with the default role (viewer) and links it', async function () {
      const carol = await person({ cmsUser: false });
      const { res } = await signIn('open', carol.sub);
      expect(res.status).to.equal(302);
      const user = (await me(responseCookie(res, 'session'))).data;
      expect(user).to.include({ email: carol.email, role: 'viewer' });
      expect(await links(carol.sub)).to.have.length(1);
      const password = await t.request('/api/user/login', { method: 'POST', json: { email: carol.email, password: PASSWORD } });
      expect(password.status, 'the random password is unknown').to.equal(401);
    });

    it('drops a link whose user was deleted and treats the identity as unknown', async function () {
      const dave = await person({ cmsUser: false });
      const first = (await me(responseCookie((await signIn('open', dave.sub)).res, 'session'))).data;
      await users().delete(first._id);
      const again = await signIn('open', dave.sub);
      expect(again.res.status).to.equal(302);
      const second = (await me(responseCookie(again.res, 'session'))).data;
      expect(second._id).to.not.equal(first._id);
      expect((await links(dave.sub)).map((l) => l.user_id)).to.deep.equal([second._id]);
    });

    it("refuses a tampered state (any character, the signature's last included) and accepts the untouched one", async function () {
      const erin = await person();
      const browser = new Browser();
      const callback = await toCallback(browser, 'test', erin.sub);
      const state = new URL(callback).searchParams.get('state')!;
      const swap = (s: string, i: number) => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const at = alphabet.indexOf(s[i]!);
        return s.slice(0, i) + alphabet[at ^ 1] + s.slice(i + 1); // flips the lowest bit: padding bits in the last character
      };
      for (const i of [3, state.indexOf('.') - 1, state.length - 1]) {
        const url = new URL(callback);
        url.searchParams.set('state', swap(state, i));
        await expectRefused(await browser.get(url.href), 400, 'OIDC_STATE_INVALID');
      }
      const ok = await browser.get(callback);
      expect(ok.status).to.equal(302);
      expect(responseCookie(ok, 'session')).to.be.a('string');
    });

    it('refuses an expired state even when correctly signed', async function () {
      const secrets = t.kernel.container.resolve<{ sign(text: string): Promise<string> }>('authSecrets');
      const resign = async (callback: string, expires: number) => {
        const url = new URL(callback);
        const payload = JSON.parse(Buffer.from(url.searchParams.get('state')!.split('.')[0]!, 'base64url').toString());
        const changed = Buffer.from(JSON.stringify({ ...payload, e: expires })).toString('base64url');
        url.searchParams.set('state', `${changed}.${await secrets.sign(`oidc-state.${changed}`)}`);
        return url.href;
      };
      const erin = await person();
      const expired = new Browser();
      await expectRefused(
        await expired.get(await resign(await toCallback(expired, 'test', erin.sub), Date.now() - 1000)),
        400,
        'OIDC_STATE_INVALID',
      );
      // The same re-signing with a future expiry is accepted: only the expiry made the difference.
      const fresh = new Browser();
      const res = await fresh.get(await resign(await toCallback(fresh, 'test', erin.sub), Date.now() + 60000));
      expect(res.status).to.equal(302);
    });

    it("refuses a callback from another browser (no cookie, or another sign-in's cookie)", async function () {
      const frank = await person();
      const starter = new Browser();
      const callback = await toCallback(starter, 'test', frank.sub);
      await expectRefused(await new Browser().get(callback), 400, 'OIDC_STATE_INVALID');
      const other = new Browser();
      await toCallback(other, 'test', frank.sub);
      await expectRefused(await other.get(callback), 400, 'OIDC_STATE_INVALID');
      expect((await starter.get(callback)).status).to.equal(302);
    });

    it('refuses a replayed callback', async function () {
      const gina = await person();
      const browser = new Browser();
      const callback = await toCallback(browser, 'test', gina.sub);
      const flowCookie = browser.jar(cmsUrl).get('oidc_flow')!;
      expect((await browser.get(callback)).status).to.equal(302);
      await expectRefused(await browser.get(callback), 400, 'OIDC_STATE_INVALID');
      const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: `oidc_flow=${flowCookie}` } });
      await expectRefused(replay as TestResponse, 400, 'OIDC_CALLBACK_FAILED');
    });

    it('reports a provider error with its code, and refuses a returnTo outside this site', async function () {
      const error = await new Browser().get(
        `${cmsUrl}/api/auth/oidc/test/callback?error=access_denied&error_description=%3Cb%3Enope%3C%2Fb%3E&state=x`,
      );
      expect(error.status).to.equal(400);
      const body = await error.json();
      expect(body).to.include({ error: 'OIDC_PROVIDER_ERROR', providerError: 'access_denied' });
      expect(body.message).to.not.include('nope');
      for (const returnTo of [
        '//evil.example',
        '/\\evil.example',
        'https://evil.example/',
        'dashboard',
        '/\t/evil.example',
        '/%5Cevil.example',
        '/%09/evil.example',
      ]) {
        const res = await t.request(`/api/auth/oidc/test/start?returnTo=${encodeURIComponent(returnTo)}`, { redirect: 'manual' });
        expect(res.status, returnTo).to.equal(400);
        expect(
          res.headers.getSetCookie().find((c) => c.startsWith('oidc_flow=')),
          'no flow started',
        ).to.equal(undefined);
      }
    });

    it('a user with 2FA gets the pending-2FA cookie and no session', async function () {
      const hana = await person();
      await t.kernel.sequelize.query('UPDATE auth_users SET two_factor_enabled = ? WHERE id = ?', { replacements: [true, hana.userId] });
      const { res } = await signIn('test', hana.sub, '/media');
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal(`/login?requires2FA=1&userId=${encodeURIComponent(hana.userId!)}&returnTo=%2Fmedia`);
      expect(responseCookie(res, '2fa_pending')).to.be.a('string');
      expect(responseCookie(res, 'session')).to.equal(null);
    });

    it('a blocked user is refused', async function () {
      const ivan = await person();
      await users().setBlocked(ivan.userId!, true);
      await expectRefused((await signIn('test', ivan.sub)).res, 403, 'ACCOUNT_BLOCKED');
    });

    it('an unreachable provider answers 502 without details, and is tried again on the next request', async function () {
      const res = await t.request('/api/auth/oidc/down/start', { redirect: 'manual' });
      expect(res.status).to.equal(502);
      const body = await res.json();
      expect(body.error).to.equal('OIDC_PROVIDER_UNAVAILABLE');
      expect(body.message)
        .to.match(/cannot be reached/)
        .and.not.match(/\n\s+at |ECONNREFUSED/);
      const late = await startProvider(downPort, [
        { id: 'cms', secret: 'cms-secret', redirectUri: `${cmsUrl}/api/auth/oidc/down/callback` },
      ]);
      closers.push(late.close);
      expect((await t.request('/api/auth/oidc/down/start', { redirect: 'manual' })).status).to.equal(302);
    });

    it('lists and unlinks your own linked identities only', async function () {
      const jack = await person();
      const kim = await person();
      const jackSession = responseCookie((await signIn('test', jack.sub)).res, 'session')!;
      const kimSession = responseCookie((await signIn('test', kim.sub)).res, 'session')!;
      const list = async (session: string) =>
        (await (await t.request('/api/auth/oidc/identities', { headers: { cookie: session } })).json()).data;
      const [identity] = await list(jackSession);
      expect(identity)
        .to.include({ provider: 'test', email: jack.email })
        .and.have.keys(['_id', 'provider', 'email', 'createdAt', 'lastLoginAt']);
      const unlink = (session: string) =>
        t.request(`/api/auth/oidc/identities/${identity._id}`, { method: 'DELETE', headers: { cookie: session } });
      expect((await unlink(kimSession)).status, "someone else's").to.equal(404);
      const done = await unlink(jackSession);
      expect(done.status).to.equal(200);
      expect((await done.json()).data).to.deep.equal({ unlinked: true });
      expect(await list(jackSession)).to.deep.equal([]);
      expect((await unlink(jackSession)).status).to.equal(404);
      expect(await list(kimSession)).to.have.length(1);
      expect((await t.request('/api/auth/oidc/identities')).status, 'guests').to.equal(401);
    });
  });
}
