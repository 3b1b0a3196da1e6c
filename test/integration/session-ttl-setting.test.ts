import { expect } from 'chai';
import { fixturePlugin, responseCookie, useTestKernel } from '../helpers/kernel.js';

const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const HOUR = 3600 * 1000;

interface Settings {
  set(key: string, value: unknown, tenantId?: string): Promise<void>;
}

describe('SESSION_TTL_HOURS (System Setting): the lifetime of new sessions', function () {
  this.timeout(60000);
  const settings = () => t.kernel.container.resolve<Settings>('settings');
  /** Signs in as the owner from `userAgent`: the answer of POST /api/user/login. */
  const signIn = (userAgent: string) =>
    t.request('/api/user/login', { method: 'POST', json: { email: EMAIL, password: PASSWORD }, headers: { 'user-agent': userAgent } });
  /** Signs in and returns the new session's lifetime in hours (expiresAt - createdAt, from GET /api/user/sessions). */
  const signInLifetimeHours = async (userAgent: string): Promise<number> => {
    const login = await signIn(userAgent);
    expect(login.status).to.equal(200);
    const cookie = responseCookie(login)!;
    const res = await t.request('/api/user/sessions', { headers: { cookie, 'user-agent': userAgent } });
    expect(res.status).to.equal(200);
    const current = (await res.json()).data.sessions.find((s: { current: boolean }) => s.current);
    return (Date.parse(current.expiresAt) - Date.parse(current.createdAt)) / HOUR;
  };

  const t = useTestKernel({
    setup: true,
    plugins: [fixturePlugin('test-identity')],
    config: { plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: EMAIL, password: PASSWORD } } } } },
  });

  it('the seeded 24 hours apply at sign-in', async () => {
    expect(await signInLifetimeHours('first')).to.be.closeTo(24, 0.01);
  });

  it('a changed value applies to the next sign-in at once; existing sessions keep their expiry', async () => {
    const before = await signIn('kept');
    const keptCookie = responseCookie(before)!;
    await settings().set('SESSION_TTL_HOURS', 2);
    expect(await signInLifetimeHours('second')).to.be.closeTo(2, 0.01);
    await settings().set('SESSION_TTL_HOURS', 5);
    expect(await signInLifetimeHours('third')).to.be.closeTo(5, 0.01);
    const kept = (
      await (await t.request('/api/user/sessions', { headers: { cookie: keptCookie, 'user-agent': 'kept' } })).json()
    ).data.sessions.find((s: { current: boolean }) => s.current);
    expect((Date.parse(kept.expiresAt) - Date.parse(kept.createdAt)) / HOUR).to.be.closeTo(24, 0.01);
  });

  it('a password change rotates the session: a new cookie whose lifetime is the setting at the change', async () => {
    const login = await signIn('rotating');
    const oldCookie = responseCookie(login)!;
    await settings().set('SESSION_TTL_HOURS', 4);
    const change = await t.request('/api/user/change-password', {
      method: 'POST',
      headers: { cookie: oldCookie, 'user-agent': 'rotating' },
      json: { currentPassword: PASSWORD, newPassword: PASSWORD },
    });
    expect(change.status).to.equal(200);
    const newCookie = responseCookie(change)!;
    expect(newCookie).to.not.equal(oldCookie);
    expect((await t.request('/api/user/me', { headers: { cookie: oldCookie, 'user-agent': 'rotating' } })).status).to.equal(401);
    const current = (
      await (await t.request('/api/user/sessions', { headers: { cookie: newCookie, 'user-agent': 'rotating' } })).json()
    ).data.sessions.find((s: { current: boolean }) => s.current);
    expect((Date.parse(current.expiresAt) - Date.parse(current.createdAt)) / HOUR).to.be.closeTo(4, 0.01);
    expect(Date.parse(current.expiresAt) - Date.now()).to.be.greaterThan(3.9 * HOUR);
  });

  it('applies to the session a sign-up opens', async () => {
    await settings().set('SESSION_TTL_HOURS', 3);
    const invite = await t.request('/api/token/create-token', {
      method: 'POST',
      identity: 'admin',
      json: { email: 'new@example.com', role: 'viewer' },
    });
    const token = (await invite.json()).data.token;
    const signup = await t.request('/api/user/register', {
      method: 'POST',
      json: { token, password: PASSWORD },
      headers: { 'user-agent': 'signup' },
    });
    expect(signup.status).to.equal(201);
    const cookie = responseCookie(signup)!;
    const sessions = (await (await t.request('/api/user/sessions', { headers: { cookie, 'user-agent': 'signup' } })).json()).data.sessions;
    const current = sessions.find((s: { current: boolean }) => s.current);
    expect((Date.parse(current.expiresAt) - Date.parse(current.createdAt)) / HOUR).to.be.closeTo(3, 0.01);
  });
});
