import { expect } from 'chai';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import type { Logger } from '../../kernel/logger.js';
import type { AuthSecrets } from '../../plugins/auth/secrets.js';
import { LOCAL_MAX, LOCAL_TRUST_MS, CONTEXT_TRUST_MS, SessionsService } from '../../plugins/auth/sessions-service.js';
import type { UsersService } from '../../plugins/auth/users-service.js';
import type { User } from '../../plugins/auth/models/user.js';
import { responseCookie, useTestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';

/**
 * The spec's session validation layers (Authentication rule 7) on one instance: the auth context (60 s,
 * read-only requests), the in-memory session cache (10,000 entries, 24-hour trust), the shared cache,
 * the database. The cross-instance invalidation is tested in auth.test.ts (two instances, Redis).
 */
describe('session cache: the in-memory layers', function () {
  this.timeout(30000);
  let userId: string;
  const t = useTestKernel(
    { config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } } },
    {
      seed: async () => {
        const users = t.kernel.container.resolve<UsersService>('users');
        userId = (await users.create({ email: 'cache@example.com', password: PASSWORD, role: 'editor' }))._id;
      },
    },
  );

  const signIn = async (userAgent = 'cache-test') =>
    responseCookie(
      await t.request('/api/user/login', {
        method: 'POST',
        json: { email: 'cache@example.com', password: PASSWORD },
        headers: { 'user-agent': userAgent },
      }),
    )!;
  const sessionLookups = async () => {
    const c = (await t.kernel.cache!.stats()).byCategory.sessions;
    return (c?.hits ?? 0) + (c?.misses ?? 0);
  };

  it('has the spec values: 60 s auth context, 10,000 entries trusted 24 hours', function () {
    expect(CONTEXT_TRUST_MS).to.equal(60_000);
    expect(LOCAL_MAX).to.equal(10_000);
    expect(LOCAL_TRUST_MS).to.equal(24 * 3600 * 1000);
  });

  it('after one verification, reads and writes of that session are answered from memory (the shared cache is not asked)', async () => {
    const cookie = await signIn();
    expect((await t.request('/api/user/me', { headers: { cookie, 'user-agent': 'cache-test' } })).status).to.equal(200);
    const before = await sessionLookups();
    const write = await t.request('/api/user/update-user-attributes', {
      method: 'PUT',
      headers: { cookie, 'user-agent': 'cache-test' },
      json: { username: 'Cached' },
    });
    expect(write.status).to.equal(200);
    expect((await t.request('/api/user/me', { headers: { cookie, 'user-agent': 'cache-test' } })).status).to.equal(200);
    expect(await sessionLookups()).to.equal(before);
  });

  it('signing out ends the session at once although memory trusted it, for reads and writes', async () => {
    const cookie = await signIn('signout');
    const headers = { cookie, 'user-agent': 'signout' };
    expect((await t.request('/api/user/me', { headers })).status).to.equal(200);
    expect((await t.request('/api/user/logout', { method: 'POST', headers })).status).to.equal(200);
    expect((await t.request('/api/user/me', { headers })).status).to.equal(401);
    const write = await t.request('/api/user/update-user-attributes', { method: 'PUT', headers, json: { username: 'Gone' } });
    expect(write.status).to.equal(401);
  });

  it('holds at most its bound of sessions (the least recently verified go first) and still resolves every session', async () => {
    const c = t.kernel.container;
    const users = c.resolve<UsersService>('users');
    const small = new SessionsService(
      c.resolve('models'),
      users,
      c.resolve<AuthSecrets>('authSecrets'),
      c.resolve<CacheService>('cache'),
      c.resolve<Logger>('logger'),
      { ttlHours: 24, idleHours: 0, maxPerUser: 0, devicePolicy: 'allow-multiple' },
      undefined,
      3,
    );
    const user = (await users.findById(userId)) as User;
    const tokens: string[] = [];
    for (let i = 0; i < 6; i++) tokens.push((await small.create(user, { userAgent: `bound-${i}`, ip: '127.0.0.1' })).token);
    for (const token of tokens) {
      expect((await small.resolve(token, { ip: '127.0.0.1', userAgent: 'x', method: 'POST' }))?.userId).to.equal(userId);
      expect(small.localSize).to.be.at.most(3);
    }
    expect(small.localSize).to.equal(3);
  });
});
