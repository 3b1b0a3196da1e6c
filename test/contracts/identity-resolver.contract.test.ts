import { expect } from 'chai';
import { identityResolverContract, type CredentialSample } from '../../testing/index.js';
import { fixturePlugin, responseCookie, useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * The contract every registered identity resolver meets (testing/identity-resolver.ts, which plugin authors
 * run against their own resolver), each one called directly with a real Koa context (inside a request
 * scope, as the kernel calls it) and, for garbage, over HTTP too:
 * - a request without credentials is answered by exactly one resolver, the guest fallback, which runs
 *   last and answers a guest identity; every other resolver answers null;
 * - a request carrying one kind of credential (a session cookie, an API key, the fixture's
 *   x-test-identity header) is recognised by exactly one non-fallback resolver, the others answer null,
 *   and every non-fallback resolver recognises one of these samples (a new resolver adds its sample here);
 * - garbage credentials never make a resolver throw, except the documented 401 refusal
 *   (AUTHENTICATION_REQUIRED) of a bearer value that matches nothing; a non-fallback resolver answers
 *   them null, the fallback a guest; over HTTP they never get a 5xx nor a protected route;
 * - every identity answered is well formed (kind, userId, role, permissions, tenantId).
 */
const PASSWORD = 'resolver contract password';

for (const variant of DB_VARIANTS) {
  describe(`identity resolver contract (${variant.name})`, function () {
    this.timeout(60000);
    /** One request per kind of credential, valid. */
    const samples: CredentialSample[] = [];

    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { auth: { bcryptRounds: 4 } } } },
      },
      {
        variant,
        seed: async () => {
          await createUsers(t, { email: 'resolvers@example.com', password: PASSWORD, role: 'editor' });
          const cookie = responseCookie(
            await t.request('/api/user/login', { method: 'POST', json: { email: 'resolvers@example.com', password: PASSWORD } }),
          );
          expect(cookie, 'session cookie').to.be.a('string');
          const key = await t.request('/api/api-keys', {
            method: 'POST',
            headers: { cookie: cookie! },
            json: { name: 'contract', permissions: ['content:read'] },
          });
          expect(key.status, 'API key created').to.equal(201);
          samples.push(
            { kind: 'session cookie', headers: { cookie: cookie! } },
            { kind: 'API key', headers: { authorization: `Bearer ${(await key.json()).data.key}` } },
            { kind: 'x-test-identity', headers: { 'x-test-identity': 'viewer' } },
          );
        },
      },
    );

    identityResolverContract({ t, samples: () => samples });
  });
}
