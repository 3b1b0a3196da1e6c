import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { startTestKernel, type TestKernel, type TestResponse } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { responseCookie } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';
const cookie = (res: TestResponse) => responseCookie(res);

async function kernelWith(auth: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({ config: { ...extra, plugins: { options: { auth: { bcryptRounds: 4, ...auth } } } } });
}

describe('session policies', function () {
  this.timeout(60000);
  const kernels: TestKernel[] = [];
  after(async () => {
    for (const k of kernels) await k.close();
  });

  async function setUp(auth: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const t = await kernelWith(auth, extra);
    kernels.push(t);
    await createUsers(t, { email: 'p@example.com', password: PASSWORD, role: 'viewer' });
    const login = async (userAgent: string, headers: Record<string, string> = {}) =>
      cookie(
        await t.request('/api/user/login', {
          method: 'POST',
          json: { email: 'p@example.com', password: PASSWORD },
          headers: { 'user-agent': userAgent, ...headers },
        }),
      )!;
    const alive = async (c: string) =>
      (await t.request('/api/user/me', { headers: { cookie: c, 'user-agent': 'probe' }, method: 'GET' })).status === 200;
    return { t, login, alive };
  }

  it('single-per-user: a new sign-in ends every other session of the user', async function () {
    const { login, alive } = await setUp({ sessionDevicePolicy: 'single-per-user' });
    const laptop = await login('laptop');
    const phone = await login('phone');
    expect(await alive(laptop)).to.equal(false);
    expect(await alive(phone)).to.equal(true);
  });

  it('single-per-device: a sign-in without a User-Agent ends no other session (it cannot tell devices apart)', async function () {
    const { login, alive, t } = await setUp({ sessionDevicePolicy: 'single-per-device' });
    const first = await login('');
    const second = await login('');
    expect(await alive(first)).to.equal(true);
    expect(await alive(second)).to.equal(true);
    // With the same User-Agent, the policy does end the earlier one.
    const phone = await login('phone');
    const again = await login('phone');
    expect(await alive(phone)).to.equal(false);
    expect(await alive(again)).to.equal(true);
    const rows = await t.kernel.sequelize.query<{ n: number }>("SELECT COUNT(*) AS n FROM auth_sessions WHERE user_agent = ''", {
      type: QueryTypes.SELECT,
    });
    expect(Number(rows[0]!.n)).to.equal(2);
  });

  it('SESSION_MAX_PER_USER evicts the least recently active session', async function () {
    const { t, login, alive } = await setUp({ sessionDevicePolicy: 'allow-multiple', sessionMaxPerUser: 2 });
    const a = await login('a');
    const b = await login('b');
    // Make a the most recently active one, then a third sign-in must evict b.
    await t.kernel.sequelize.query('UPDATE auth_sessions SET last_active_at = last_active_at + 5000 WHERE user_agent = ?', {
      replacements: ['a'],
    });
    const c = await login('c');
    expect(await alive(b)).to.equal(false);
    expect(await alive(a)).to.equal(true);
    expect(await alive(c)).to.equal(true);
  });

  it('an idle session is signed out after SESSION_IDLE_HOURS, an active one is not', async function () {
    const { t, login } = await setUp({ sessionDevicePolicy: 'allow-multiple', sessionIdleHours: 1 });
    const idle = await login('idle');
    const active = await login('active');
    await t.kernel.sequelize.query('UPDATE auth_sessions SET last_active_at = ? WHERE user_agent = ?', {
      replacements: [Date.now() - 2 * 3600e3, 'idle'],
    });
    // A write request skips the in-process layer, so the database's idle time decides at once.
    const post = (c: string) => t.request('/api/user/logout', { method: 'POST', headers: { cookie: c } });
    expect((await post(idle)).status).to.equal(401);
    expect((await post(active)).status).to.equal(200);
  });

  it('the cleanup task deletes expired sessions', async function () {
    const { t, login } = await setUp({ sessionDevicePolicy: 'allow-multiple' });
    await login('old');
    await login('new');
    await t.kernel.sequelize.query('UPDATE auth_sessions SET expires_at = ? WHERE user_agent = ?', {
      replacements: [Date.now() - 1000, 'old'],
    });
    const purged = await t.kernel.container.resolve<{ purgeExpired(): Promise<number> }>('sessions').purgeExpired();
    expect(purged).to.equal(1);
    const rows = await t.kernel.sequelize.query<{ user_agent: string }>('SELECT user_agent FROM auth_sessions', {
      type: QueryTypes.SELECT,
    });
    expect(rows.map((r) => r.user_agent)).to.deep.equal(['new']);
  });

  it('captures the client IP from X-Forwarded-For / X-Real-IP only behind a trusted proxy', async function () {
    const trusted = await setUp({}, { http: { trustProxy: true } });
    const viaProxy = await trusted.login('ua-1', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    const sessions = (await (await trusted.t.request('/api/user/sessions', { headers: { cookie: viaProxy } })).json()).data.sessions;
    expect(sessions[0].ip).to.equal('203.0.113.9');
    const realIp = await trusted.login('ua-2', { 'x-real-ip': '192.0.2.44' });
    const second = (await (await trusted.t.request('/api/user/sessions', { headers: { cookie: realIp } })).json()).data.sessions;
    expect(second.find((s: { current: boolean }) => s.current).ip).to.equal('192.0.2.44');
    const direct = await setUp({});
    const spoofed = await direct.login('ua-3', { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '192.0.2.44' });
    const own = (await (await direct.t.request('/api/user/sessions', { headers: { cookie: spoofed } })).json()).data.sessions;
    expect(own[0].ip).to.match(/127\.0\.0\.1$/);
  });
});
