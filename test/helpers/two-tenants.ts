import { expect } from 'chai';
import { fixturePlugin, responseCookie, startTestKernel, type TestKernel, type TestResponse } from './kernel.js';

/** The status and the parsed JSON body of a response. */
export const statusAndJson = async (res: Response | TestResponse) => ({ status: res.status, body: await res.json() });

/** A request as the default tenant's admin (the test identity): a GET of `path`, or a POST of `body` to it. */
export const asDefaultAdmin = (t: TestKernel, path: string, body?: unknown) =>
  t.request(path, body === undefined ? { identity: 'admin' } : { method: 'POST', json: body, identity: 'admin' });

/** Requests to tenant t2 arrive on its hostname through the trusted proxy header. */
export const T2_HOST = { 'x-forwarded-host': 't2.test' };

/**
 * A kernel with MULTI_TENANT on, the test-identity plugin (identity: 'admin' is the default tenant's
 * admin) and a second tenant `t2` whose own admin has signed in for real on t2's hostname.
 * Returns the kernel and that admin's session cookie. `setupAdmin`: with the setup plugin (settings),
 * set up headlessly with this default-tenant admin.
 */
export async function startTwoTenantKernel(
  db: 'sqlite' | 'mariadb',
  extra: { setupAdmin?: { email: string; password: string } } = {},
): Promise<{ t: TestKernel; t2Cookie: string }> {
  const t = await startTestKernel({
    db,
    setup: extra.setupAdmin !== undefined,
    plugins: [fixturePlugin('test-identity')],
    config: {
      multiTenant: true,
      http: { trustProxy: true },
      plugins: {
        options: {
          auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' },
          ...(extra.setupAdmin ? { setup: { admin: extra.setupAdmin } } : {}),
        },
      },
    },
  });
  const tenant = await t.request('/api/tenants', {
    method: 'POST',
    identity: 'admin',
    json: { id: 't2', name: 'Tenant two', hostnames: ['t2.test'], admin: { email: 'boss@t2.test', password: 'tenant two admin password' } },
  });
  expect(tenant.status, await tenant.clone().text()).to.equal(201);
  const login = await t.request('/api/user/login', {
    method: 'POST',
    json: { email: 'boss@t2.test', password: 'tenant two admin password' },
    headers: T2_HOST,
  });
  expect(login.status, await login.clone().text()).to.equal(200);
  const t2Cookie = responseCookie(login)!;
  const me = await t.request('/api/user/me', { headers: { ...T2_HOST, cookie: t2Cookie } });
  expect((await me.json()).data).to.include({ role: 'admin' });
  return { t, t2Cookie };
}
