import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { fixturePlugin, type TestKernel, type TestResponse, useTestKernel, useTwoInstances } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { CLIENT_COOKIE, clientCookieKey, signClientId } from '../../kernel/http/client-cookie.js';

const AUTH_OPTIONS = { plugins: { options: { auth: { bcryptRounds: 4 } } } };
const PASSWORD = 'correct horse battery';

function sessionCookie(res: TestResponse): string | null {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  return cookie ?? null;
}
const cookieValue = (setCookie: string) => setCookie.split(';')[0]!.slice('session='.length);

async function createUser(t: TestKernel, email: string, role = 'editor'): Promise<string> {
  const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
  return (await users.create({ email, password: PASSWORD, role }))._id;
}

const login = (t: TestKernel, email: string, password = PASSWORD, userAgent = 'test-agent/1.0', cookie?: string) =>
  t.request('/api/user/login', {
    method: 'POST',
    json: { email, password },
    headers: { 'user-agent': userAgent, ...(cookie ? { cookie } : {}) },
  });

const LINUX_FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0';
const IOS_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1';
/** Signs in with PASSWORD from `userAgent`: the new session cookie's value. */
const sessionFrom = async (t: TestKernel, email: string, userAgent: string) =>
  cookieValue(sessionCookie(await login(t, email, PASSWORD, userAgent))!);

/** The account's device cookie a completed sign-in set on this client (`name=value`). */
function deviceCookie(res: TestResponse, userId: string): string {
  const name = `device_${createHash('sha256').update(userId).digest('hex').slice(0, 12)}=`;
  const set = res.headers.getSetCookie().find((c) => c.startsWith(name));
  expect(set, 'a device cookie').to.not.equal(undefined);
  return set!.split(';')[0]!;
}

/** A browser's signed rate-limit cookie (rl_client), as the rate limiter hands it out: one per simulated client. */
function clientCookie(t: TestKernel, seed: string): string {
  const id = createHash('sha256').update(seed).digest('base64url').slice(0, 22);
  return `${CLIENT_COOKIE}=${id}.${signClientId(id, clientCookieKey(t.config.secrets))}`;
}

for (const variant of DB_VARIANTS) {
  describe(`auth: sign-in, lockout and sessions (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')], config: AUTH_OPTIONS }, { variant });

    const userRow = async (id: string) =>
      (
        await t.kernel.sequelize.query<{ failed_attempts: number; lockout_until: string | null }>(
          'SELECT failed_attempts, lockout_until FROM auth_users WHERE id = ?',
          { replacements: [id], type: QueryTypes.SELECT },
        )
      )[0]!;
    /** The per-client counts of an account (auth_login_failures), most failures first. */
    const clientRows = async (id: string) =>
      t.kernel.sequelize.query<{ client_hash: string; failures: number; lockout_until: string | null }>(
        'SELECT client_hash, failures, lockout_until FROM auth_login_failures WHERE user_id = ? ORDER BY failures DESC',
        { replacements: [id], type: QueryTypes.SELECT },
      );
    const magicLink = async (id: string, email: string) =>
      (
        await t.kernel.container
          .resolve<{ issue(kind: string, i: object): Promise<{ token: string }> }>('emailTokens')
          .issue('magic', { tenantId: 'default', email, userId: id, ttlMs: 15 * 60 * 1000 })
      ).token;

    it('signs in, sets an HttpOnly SameSite=Lax session cookie, and the cookie identifies the user', async function () {
      await createUser(t, 'ada@example.com');
      const res = await login(t, 'Ada@Example.com');
      expect(res.status).to.equal(200);
      const body = await res.json();
      expect(body.success).to.equal(true);
      expect(body.data.user).to.include({ email: 'ada@example.com', username: 'ada', role: 'editor' });
      expect(body.data.user).to.have.keys(['_id', 'email', 'username', 'role']);
      const cookie = sessionCookie(res)!;
      expect(cookie).to.match(/^session=[A-Za-z0-9_-]{43}; /);
      expect(cookie.toLowerCase()).to.include('httponly').and.include('samesite=lax').and.include('path=/');
      const me = await t.request('/api/user/me', { headers: { cookie: `session=${cookieValue(cookie)}` } });
      expect(me.status).to.equal(200);
      const data = (await me.json()).data;
      expect(data).to.include({ email: 'ada@example.com', role: 'editor', is2FAEnabled: false });
      expect(data.permissions).to.include('content:write');
      expect(data.preferences).to.deep.equal({});
    });

    it('answers unknown email and wrong password identically, doing the same hashing work', async function () {
      await createUser(t, 'bob@example.com');
      const pool = t.kernel.pool!;
      let before = pool.stats().completed;
      const unknown = await login(t, 'nobody@example.com', 'whatever-password');
      const unknownWork = pool.stats().completed - before;
      before = pool.stats().completed;
      const wrong = await login(t, 'bob@example.com', 'wrong-password');
      const wrongWork = pool.stats().completed - before;
      expect(unknown.status).to.equal(401);
      expect(wrong.status).to.equal(401);
      expect(await unknown.json()).to.deep.equal(await wrong.json());
      expect(unknownWork, 'a password verification ran for the unknown email').to.be.at.least(1);
      expect(wrongWork).to.equal(1);
      expect(sessionCookie(wrong)).to.equal(null);
    });

    it('locks after 5 consecutive failures from unknown clients (the 5th answers 401), refuses even the right password, then unlocks on expiry', async function () {
      const id = await createUser(t, 'carol@example.com');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await login(t, 'carol@example.com', `wrong-${i}`)).status);
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401]);
      const locked = await login(t, 'carol@example.com');
      expect(locked.status).to.equal(403);
      const body = await locked.json();
      expect(body.error).to.equal('ACCOUNT_LOCKED');
      expect(body.retryAfterSeconds).to.be.within(890, 900);
      expect(body.message).to.match(/15 minutes/);
      // The spec's fields: failedAttempts and lockoutUntil of the user.
      const row = await userRow(id);
      expect(Number(row.failed_attempts)).to.equal(5);
      expect(Number(row.lockout_until)).to.be.greaterThan(Date.now());
      await t.kernel.sequelize.query('UPDATE auth_users SET lockout_until = ? WHERE id = ?', { replacements: [Date.now() - 1000, id] });
      expect((await login(t, 'carol@example.com')).status).to.equal(200);
      expect(await userRow(id)).to.deep.include({ lockout_until: null });
      expect(Number((await userRow(id)).failed_attempts)).to.equal(0);
    });

    it('counts 20 concurrent wrong passwords atomically: one lock, never more than 5 failures', async function () {
      const id = await createUser(t, 'dave@example.com');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => login(t, 'dave@example.com', `wrong-password-${i}`)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).to.have.length(5);
      expect(statuses.filter((s) => s === 403)).to.have.length(15);
      const row = await userRow(id);
      expect(Number(row.failed_attempts)).to.equal(5);
      expect(Number(row.lockout_until)).to.be.greaterThan(Date.now());
    });

    it('an attacker rotating rate-limit cookies (4 x 5 failures) locks unknown clients only: the owner signs in on their device, which keeps its own count', async function () {
      const id = await createUser(t, 'admin-target@example.com', 'admin');
      // The owner signed in on this browser before: it holds the account's device cookie.
      const device = deviceCookie(await login(t, 'admin-target@example.com', PASSWORD, 'owner/1.0'), id);
      expect(device).to.match(/^device_[0-9a-f]{12}=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
      const statuses: number[] = [];
      for (let c = 0; c < 4; c++)
        for (let i = 0; i < 5; i++)
          statuses.push((await login(t, 'admin-target@example.com', `guess-${c}-${i}`, 'evil/1.0', clientCookie(t, `bot-${c}`))).status);
      expect(statuses).to.deep.equal([...Array(5).fill(401), ...Array(15).fill(403)]);
      const locked = await login(t, 'admin-target@example.com', PASSWORD, 'evil/1.0', clientCookie(t, 'bot-fresh'));
      expect(locked.status).to.equal(403);
      const body = await locked.json();
      expect(body).to.include({ success: false, error: 'ACCOUNT_LOCKED' });
      expect(body.retryAfterSeconds).to.be.within(890, 900);
      // A forged device cookie, or one of another account, is an unknown client.
      const forged = `${device.split('=')[0]}=${'A'.repeat(22)}.${'B'.repeat(43)}`;
      expect((await login(t, 'admin-target@example.com', PASSWORD, 'evil/1.0', forged)).status).to.equal(403);
      const otherId = await createUser(t, 'attacker-own@example.com');
      const othersDevice = deviceCookie(await login(t, 'attacker-own@example.com'), otherId);
      expect((await login(t, 'admin-target@example.com', PASSWORD, 'evil/1.0', othersDevice)).status).to.equal(403);
      // The real admin, on their device, signs in with the right password.
      const signedIn = await login(t, 'admin-target@example.com', PASSWORD, 'owner/1.0', device);
      expect(signedIn.status).to.equal(200);
      expect(sessionCookie(signedIn)).to.not.equal(null);
      // The device counts on its own: its 5th failure locks the device, stored as a keyed hash only.
      for (let i = 0; i < 5; i++)
        expect((await login(t, 'admin-target@example.com', `typo-${i}`, 'owner/1.0', device)).status).to.equal(401);
      expect((await login(t, 'admin-target@example.com', PASSWORD, 'owner/1.0', device)).status).to.equal(403);
      const clients = await clientRows(id);
      expect(clients.map((c) => Number(c.failures))).to.deep.equal([5]);
      expect(clients[0]!.client_hash).to.match(/^[A-Za-z0-9_-]{43}$/);
    });

    it('an email with no account is counted and locked like an account: the same 401s, then the same 403 ACCOUNT_LOCKED', async function () {
      await createUser(t, 'real-person@example.com');
      const answers = async (email: string) => {
        const out: Array<{ status: number; body: Record<string, unknown> }> = [];
        for (let i = 0; i < 6; i++) {
          const res = await login(t, email, `guess-${i}`, 'evil/1.0');
          out.push({ status: res.status, body: await res.json() });
        }
        return out;
      };
      const real = await answers('real-person@example.com');
      const ghost = await answers('no-such-person@example.com');
      expect(ghost.map((a) => a.status)).to.deep.equal([401, 401, 401, 401, 401, 403]);
      expect(ghost.map((a) => a.status)).to.deep.equal(real.map((a) => a.status));
      for (let i = 0; i < 6; i++) {
        expect(Object.keys(ghost[i]!.body).sort()).to.deep.equal(Object.keys(real[i]!.body).sort());
        expect({ ...ghost[i]!.body, retryAfterSeconds: 0 }).to.deep.equal({ ...real[i]!.body, retryAfterSeconds: 0 });
      }
      expect(ghost[5]!.body).to.include({ error: 'ACCOUNT_LOCKED' });
      // Nothing stores the email itself.
      const rows = await t.kernel.sequelize.query<{ user_id: string }>('SELECT user_id FROM auth_login_failures', {
        type: QueryTypes.SELECT,
      });
      for (const r of rows) expect(r.user_id).to.not.include('no-such-person');
    });

    it('a magic link signs in through the lock of unknown clients and clears the count', async function () {
      const id = await createUser(t, 'spread@example.com');
      for (let i = 0; i < 5; i++) await login(t, 'spread@example.com', `guess-${i}`, 'bot/1.0', clientCookie(t, `bot-${i}`));
      expect((await login(t, 'spread@example.com', PASSWORD, 'owner/1.0')).status).to.equal(403);
      const viaLink = await t.request('/api/user/magic-link/verify', {
        method: 'POST',
        json: { token: await magicLink(id, 'spread@example.com') },
      });
      expect(viaLink.status).to.equal(200);
      expect((await viaLink.json()).data.user.email).to.equal('spread@example.com');
      expect(await userRow(id)).to.deep.include({ lockout_until: null });
      expect(Number((await userRow(id)).failed_attempts)).to.equal(0);
      expect((await login(t, 'spread@example.com', PASSWORD, 'owner/1.0')).status).to.equal(200);
    });

    it("a magic link signs in a device whose own lock is running, and clears that device's count", async function () {
      const id = await createUser(t, 'forgetful@example.com');
      const me = deviceCookie(await login(t, 'forgetful@example.com', PASSWORD, 'me/1.0'), id);
      for (let i = 0; i < 5; i++) await login(t, 'forgetful@example.com', `typo-${i}`, 'me/1.0', me);
      expect((await login(t, 'forgetful@example.com', PASSWORD, 'me/1.0', me)).status).to.equal(403);
      const viaLink = await t.request('/api/user/magic-link/verify', {
        method: 'POST',
        json: { token: await magicLink(id, 'forgetful@example.com') },
        headers: { cookie: me },
      });
      expect(viaLink.status).to.equal(200);
      expect(await clientRows(id)).to.deep.equal([]);
      expect((await login(t, 'forgetful@example.com', PASSWORD, 'me/1.0', me)).status).to.equal(200);
    });

    it("a success on a device clears its count and the account's, not another device's", async function () {
      const id = await createUser(t, 'two-browsers@example.com');
      const a = deviceCookie(await login(t, 'two-browsers@example.com', PASSWORD, 'a/1.0'), id);
      const b = deviceCookie(await login(t, 'two-browsers@example.com', PASSWORD, 'b/1.0'), id);
      expect(a).to.not.equal(b);
      for (let i = 0; i < 4; i++) expect((await login(t, 'two-browsers@example.com', 'nope-nope', 'a/1.0', a)).status).to.equal(401);
      for (let i = 0; i < 3; i++) expect((await login(t, 'two-browsers@example.com', 'nope-nope', 'b/1.0', b)).status).to.equal(401);
      for (let i = 0; i < 2; i++) expect((await login(t, 'two-browsers@example.com', 'nope-nope', 'x/1.0')).status).to.equal(401);
      expect(Number((await userRow(id)).failed_attempts), 'unknown clients only').to.equal(2);
      expect((await login(t, 'two-browsers@example.com', PASSWORD, 'a/1.0', a)).status).to.equal(200);
      expect(Number((await userRow(id)).failed_attempts)).to.equal(0);
      expect((await clientRows(id)).map((c) => Number(c.failures))).to.deep.equal([3]);
      for (let i = 0; i < 4; i++) expect((await login(t, 'two-browsers@example.com', 'nope-nope', 'a/1.0', a)).status).to.equal(401);
      for (let i = 0; i < 2; i++) expect((await login(t, 'two-browsers@example.com', 'nope-nope', 'b/1.0', b)).status).to.equal(401);
      expect((await login(t, 'two-browsers@example.com', PASSWORD, 'b/1.0', b)).status).to.equal(403);
      expect((await login(t, 'two-browsers@example.com', PASSWORD, 'a/1.0', a)).status).to.equal(200);
    });

    it('prunes device counts without a failure for 24 hours, but never a running lock', async function () {
      const id = await createUser(t, 'stale@example.com');
      const one = deviceCookie(await login(t, 'stale@example.com', PASSWORD, 'x/1.0'), id);
      const two = deviceCookie(await login(t, 'stale@example.com', PASSWORD, 'y/1.0'), id);
      await login(t, 'stale@example.com', 'nope-nope', 'x/1.0', one);
      for (let i = 0; i < 5; i++) await login(t, 'stale@example.com', 'nope-nope', 'y/1.0', two);
      await t.kernel.sequelize.query('UPDATE auth_login_failures SET updated_at = ? WHERE user_id = ?', {
        replacements: [Date.now() - 25 * 3600 * 1000, id],
      });
      const users = t.kernel.container.resolve<{ purgeClientFailures(): Promise<number> }>('users');
      expect(await users.purgeClientFailures()).to.be.at.least(1);
      expect((await clientRows(id)).map((c) => Number(c.failures))).to.deep.equal([5]);
    });

    it('a success resets the count of failures', async function () {
      const id = await createUser(t, 'erin@example.com');
      for (let i = 0; i < 4; i++) await login(t, 'erin@example.com', 'nope-nope');
      expect((await login(t, 'erin@example.com')).status).to.equal(200);
      expect(Number((await userRow(id)).failed_attempts)).to.equal(0);
      for (let i = 0; i < 4; i++) expect((await login(t, 'erin@example.com', 'nope-nope')).status).to.equal(401);
    });

    it('logs out: the session is revoked, the cookie cleared, and the old cookie no longer works', async function () {
      await createUser(t, 'frank@example.com');
      const token = cookieValue(sessionCookie(await login(t, 'frank@example.com'))!);
      const headers = { cookie: `session=${token}` };
      expect((await t.request('/api/user/me', { headers })).status).to.equal(200);
      const out = await t.request('/api/user/logout', { method: 'POST', headers });
      expect(out.status).to.equal(200);
      expect(sessionCookie(out)).to.match(/^session=;/);
      const after = await t.request('/api/user/me', { headers });
      expect(after.status).to.equal(401);
      expect(sessionCookie(after), 'a dead cookie is deleted').to.match(/^session=;/);
      expect((await t.request('/api/user/logout', { method: 'POST' })).status).to.equal(401);
    });

    it('keeps credential material out of the cached session snapshot', async function () {
      await createUser(t, 'gina@example.com');
      const token = cookieValue(sessionCookie(await login(t, 'gina@example.com'))!);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${token}` } })).status).to.equal(200);
      const idHash = createHash('sha256').update(token).digest('hex');
      const cached = await t.kernel.cache!.get<Record<string, unknown>>('sessions', idHash);
      expect(cached).to.have.keys(['sessionId', 'idHash', 'userId', 'tenantId', 'role', 'permissions', 'expiresAt']);
      const text = JSON.stringify(cached);
      expect(text).to.not.include(token);
      expect(text).to.not.match(/\$2[aby]\$/);
      const stored = await t.kernel.sequelize.query<{ id_hash: string }>('SELECT id_hash FROM auth_sessions', { type: QueryTypes.SELECT });
      expect(stored.map((r) => r.id_hash))
        .to.include(idHash)
        .and.not.include(token);
    });

    it('single-per-device: a new sign-in from the same user agent ends the previous one; another device keeps its own', async function () {
      await createUser(t, 'hank@example.com');
      const first = await sessionFrom(t, 'hank@example.com', LINUX_FIREFOX);
      const phone = await sessionFrom(t, 'hank@example.com', IOS_SAFARI);
      const second = await sessionFrom(t, 'hank@example.com', LINUX_FIREFOX);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${first}` } })).status).to.equal(401);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${phone}` } })).status).to.equal(200);
      const list = await t.request('/api/user/sessions', { headers: { cookie: `session=${second}` } });
      const sessions = (await list.json()).data.sessions;
      expect(sessions).to.have.length(2);
      expect(sessions.filter((s: { current: boolean }) => s.current)).to.have.length(1);
      expect(sessions.map((s: { device: string }) => s.device).sort()).to.deep.equal(['Firefox on Linux', 'Safari on iOS']);
    });

    it('changes the password with the current one: this session stays (rotated to a new cookie), the others end, the old password stops working', async function () {
      await createUser(t, 'iris@example.com');
      const laptop = await sessionFrom(t, 'iris@example.com', LINUX_FIREFOX);
      const phone = await sessionFrom(t, 'iris@example.com', IOS_SAFARI);
      const change = (json: unknown) =>
        t.request('/api/user/change-password', { method: 'POST', json, headers: { cookie: `session=${laptop}` } });
      const wrong = await change({ currentPassword: 'not my password', newPassword: 'a brand new password' });
      expect(wrong.status).to.equal(401);
      expect((await wrong.json()).error).to.equal('INVALID_CREDENTIALS');
      expect((await change({ currentPassword: PASSWORD, newPassword: 'short' })).status).to.equal(400);
      const ok = await change({ currentPassword: PASSWORD, newPassword: 'a brand new password' });
      expect(ok.status).to.equal(200);
      expect((await ok.json()).data).to.deep.equal({ changed: true, revokedSessions: 1, revokedApiKeys: 0, revokedWebsiteTokens: 0 });
      // Rotation: the answer carries a new session cookie; the value from before the change is dead.
      const rotated = cookieValue(sessionCookie(ok)!);
      expect(rotated).to.be.a('string').and.not.equal(laptop);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${rotated}` } })).status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${laptop}` } })).status).to.equal(401);
      const mine = (await (await t.request('/api/user/sessions', { headers: { cookie: `session=${rotated}` } })).json()).data.sessions;
      expect(mine.map((s: { device: string; current: boolean }) => [s.device, s.current])).to.deep.equal([['Firefox on Linux', true]]);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${phone}` } })).status).to.equal(401);
      expect((await login(t, 'iris@example.com')).status).to.equal(401);
      expect((await login(t, 'iris@example.com', 'a brand new password')).status).to.equal(200);
      // Guests and API keys cannot use it.
      expect(
        (await t.request('/api/user/change-password', { method: 'POST', json: { currentPassword: 'x', newPassword: 'yyyyyyyy' } })).status,
      ).to.equal(401);
    });

    it('a blocked user loses every session at once and cannot sign in', async function () {
      const id = await createUser(t, 'ivy@example.com');
      const token = cookieValue(sessionCookie(await login(t, 'ivy@example.com'))!);
      await t.kernel.sequelize.query('UPDATE auth_users SET blocked = ? WHERE id = ?', { replacements: [true, id] });
      await t.kernel.container.resolve<{ revokeAllForUser(id: string): Promise<number> }>('sessions').revokeAllForUser(id);
      expect((await t.request('/api/user/me', { headers: { cookie: `session=${token}` } })).status).to.equal(401);
      const res = await login(t, 'ivy@example.com');
      expect(res.status).to.equal(403);
      expect((await res.json()).error).to.equal('ACCOUNT_BLOCKED');
    });

    it('creates users for admins only, with a password policy and a clear conflict', async function () {
      const create = (identity: string, json: object) => t.request('/api/user/create-user', { method: 'POST', identity, json });
      const ok = await create('admin', { email: 'new@example.com', password: 'longenough', role: 'viewer' });
      expect(ok.status).to.equal(201);
      expect((await ok.json()).data).to.include({ email: 'new@example.com', username: 'new', role: 'viewer' });
      const again = await create('admin', { email: 'NEW@example.com', password: 'longenough', role: 'viewer' });
      expect(again.status).to.equal(409);
      expect((await again.json()).error).to.equal('USER_EXISTS');
      const short = await create('admin', { email: 'short@example.com', password: 'short', role: 'viewer' });
      expect(short.status).to.equal(400);
      expect((await short.json()).message).to.include('at least 8 characters');
      expect((await create('admin', { email: 'r@example.com', password: 'longenough', role: 'emperor' })).status).to.equal(400);
      expect((await create('editor', { email: 'e@example.com', password: 'longenough', role: 'viewer' })).status).to.equal(403);
      expect(
        (
          await t.request('/api/user/create-user', {
            method: 'POST',
            json: { email: 'g@example.com', password: 'longenough', role: 'viewer' },
          })
        ).status,
      ).to.equal(401);
      expect((await login(t, 'new@example.com', 'longenough')).status).to.equal(200);
    });

    it('an unknown or forged cookie is a guest (and the cookie is deleted)', async function () {
      const res = await t.request('/api/user/me', { headers: { cookie: 'session=forged-value-that-is-not-a-session' } });
      expect(res.status).to.equal(401);
      expect(sessionCookie(res)).to.match(/^session=;/);
    });
  });
}

describe('auth across two instances sharing the database and Redis', function () {
  this.timeout(60000);
  const [a, b] = useTwoInstances({ config: AUTH_OPTIONS }, 'authshared');

  it("lockout counts are shared: unknown clients locked through one instance are locked on the other, the owner's device is not", async function () {
    const id = await createUser(a!, 'shared-lock@example.com');
    const device = deviceCookie(await login(b!, 'shared-lock@example.com', PASSWORD, 'owner/1.0'), id);
    for (let i = 0; i < 5; i++) {
      const via = i % 2 === 0 ? a! : b!;
      expect((await login(via, 'shared-lock@example.com', `guess-${i}`, 'evil/1.0', clientCookie(a!, `shared-${i}`))).status).to.equal(401);
    }
    expect((await login(b!, 'shared-lock@example.com', PASSWORD, 'evil/1.0')).status).to.equal(403);
    expect((await login(a!, 'shared-lock@example.com', PASSWORD, 'evil/1.0')).status).to.equal(403);
    expect((await login(a!, 'shared-lock@example.com', PASSWORD, 'owner/1.0', device)).status).to.equal(200);
  });

  it('a session made on one instance works on the other, and logging out on one ends it on both at once', async function () {
    await createUser(a!, 'multi@example.com');
    const token = cookieValue(sessionCookie(await login(a!, 'multi@example.com'))!);
    const headers = { cookie: `session=${token}` };
    expect((await b!.request('/api/user/me', { headers })).status).to.equal(200);
    // B now holds the session in its in-process layer: the next request does not even ask Redis.
    const before = (await b!.kernel.cache!.stats()).byCategory.sessions;
    expect((await b!.request('/api/user/me', { headers })).status).to.equal(200);
    const after = (await b!.kernel.cache!.stats()).byCategory.sessions;
    expect(after!.hits + after!.misses).to.equal(before!.hits + before!.misses);
    expect((await a!.request('/api/user/me', { headers })).status).to.equal(200);
    expect((await a!.request('/api/user/logout', { method: 'POST', headers })).status).to.equal(200);
    // The revocation reaches B's memory through Redis pub/sub within milliseconds.
    const deadline = Date.now() + 2000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) {
      status = (await b!.request('/api/user/me', { headers })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).to.equal(401);
  });

  /** Polls B until `check` holds or 2 s pass; returns whether it held. */
  async function within2s(check: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + 2000;
    for (;;) {
      if (await check()) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("the session cache (24-hour trust) serves B's writes from memory, and a role change or a block through A applies on B at once", async function () {
    await createUser(a!, 'boss@example.com', 'admin');
    const bossCookie = `session=${cookieValue(sessionCookie(await login(a!, 'boss@example.com'))!)}`;
    const userId = await createUser(a!, 'wes@example.com', 'editor');
    const headers = { cookie: `session=${cookieValue(sessionCookie(await login(a!, 'wes@example.com'))!)}` };
    const me = async () => (await b!.request('/api/user/me', { headers })).json();
    expect((await me()).data.role).to.equal('editor');
    // A write through B after the first verification: answered from B's memory, Redis is not asked.
    const before = (await b!.kernel.cache!.stats()).byCategory.sessions!;
    const write = await b!.request('/api/user/update-user-attributes', { method: 'PUT', headers, json: { username: 'Wes' } });
    expect(write.status).to.equal(200);
    const after = (await b!.kernel.cache!.stats()).byCategory.sessions!;
    expect(after.hits + after.misses).to.equal(before.hits + before.misses);

    const role = await a!.request(`/api/user/${userId}/role`, { method: 'PUT', headers: { cookie: bossCookie }, json: { role: 'viewer' } });
    expect(role.status).to.equal(200);
    expect(await within2s(async () => (await me()).data?.role === 'viewer'), 'the new role on B').to.equal(true);
    const block = await a!.request(`/api/user/${userId}/block`, {
      method: 'POST',
      headers: { cookie: bossCookie },
      json: { blocked: true },
    });
    expect(block.status).to.equal(200);
    expect(
      await within2s(
        async () =>
          (await b!.request('/api/user/update-user-attributes', { method: 'PUT', headers, json: { username: 'W' } })).status === 401,
      ),
      'the blocked user refused by B',
    ).to.equal(true);
  });
});
