import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';

interface Settings {
  set(key: string, value: unknown, tenantId?: string): Promise<void>;
}

describe('demo mode (DEMO_MODE, DEMO_MAX_USERS): sign-up limit per tenant', function () {
  this.timeout(60000);
  let t: TestKernel;
  const settings = () => t.kernel.container.resolve<Settings>('settings');
  const invite = async (email: string): Promise<string> => {
    const res = await t.request('/api/token/create-token', { method: 'POST', identity: 'admin', json: { email, role: 'viewer' } });
    expect(res.status).to.equal(200);
    return (await res.json()).data.token;
  };
  const register = (token: string) => t.request('/api/user/register', { method: 'POST', json: { token, password: PASSWORD } });

  before(async () => {
    // Headless setup: seeded settings and one user (the admin).
    t = await startTestKernel({
      setup: true,
      plugins: [fixturePlugin('test-identity')],
      config: { plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'owner@example.com', password: PASSWORD } } } } },
    });
  });
  after(async () => t?.close());

  it('seeds DEMO_MODE off and DEMO_MAX_USERS 100', async () => {
    const s = t.kernel.container.resolve<{ get(key: string): Promise<unknown> }>('settings');
    expect(await s.get('DEMO_MODE')).to.equal(false);
    expect(await s.get('DEMO_MAX_USERS')).to.equal(100);
  });

  it('with DEMO_MODE on, sign-up past DEMO_MAX_USERS answers 403 DEMO_USER_LIMIT and leaves the invitation usable', async () => {
    await settings().set('DEMO_MAX_USERS', 2);
    await settings().set('DEMO_MODE', true);
    // One user (the admin) exists: a second one fits, a third does not.
    expect((await register(await invite('second@example.com'))).status).to.equal(201);
    const token = await invite('third@example.com');
    const refused = await register(token);
    expect(refused.status).to.equal(403);
    const body = await refused.json();
    expect(body).to.include({ success: false, error: 'DEMO_USER_LIMIT', maxUsers: 2 });
    expect(body.message).to.match(/at most 2 users/);
    // Refused before the invitation is claimed: it still works once there is room.
    const resolved = await t.request('/api/token/resolve', { method: 'POST', json: { token } });
    expect((await resolved.json()).data).to.include({ valid: true, userExists: false });
    await settings().set('DEMO_MAX_USERS', 3);
    expect((await register(token)).status).to.equal(201);
  });

  it('with DEMO_MODE off there is no limit', async () => {
    await settings().set('DEMO_MAX_USERS', 1);
    await settings().set('DEMO_MODE', false);
    expect((await register(await invite('fourth@example.com'))).status).to.equal(201);
  });
});
