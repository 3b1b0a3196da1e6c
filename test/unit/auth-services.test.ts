import { strict as assert } from 'node:assert';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import type { Identity } from '../../kernel/http/identity.js';
import { WorkerPool } from '../../kernel/pool.js';
import { AccountBlockedError, AccountLockedError, InvalidCredentialsError, UserExistsError } from '../../plugins/auth/errors.js';
import { AUTH_MIGRATIONS } from '../../plugins/auth/migrations.js';
import { ApiKey } from '../../plugins/auth/models/api-key.js';
import { EmailToken } from '../../plugins/auth/models/email-token.js';
import { Role } from '../../plugins/auth/models/role.js';
import { Session } from '../../plugins/auth/models/session.js';
import { Tenant } from '../../plugins/auth/models/tenant.js';
import { User } from '../../plugins/auth/models/user.js';
import { WebsiteToken } from '../../plugins/auth/models/website-token.js';
import { AuthSecrets } from '../../plugins/auth/secrets.js';
import { SessionsService, type SessionOptions } from '../../plugins/auth/sessions-service.js';
import { TokensService } from '../../plugins/auth/tokens-service.js';
import { LOCKOUT_MS, MAX_FAILED_ATTEMPTS, UsersService, type LockScope, type SignInNotes } from '../../plugins/auth/users-service.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';
import { modelOf } from '../../kernel/db/models.js';

/**
 * The auth plugin's users (passwords, lockout), sessions and tokens services, called directly on a real
 * SQLite file with the plugin's models and migrations (built-in roles seeded), the real worker pool
 * (bcrypt at 4 rounds) and the real in-memory cache.
 */
describe('unit: auth services (users, lockout, sessions, tokens)', function () {
  let db: UnitDb;
  let pool: WorkerPool;
  let cache: CacheService;
  let users: UsersService;
  let tokens: TokensService;
  const client = { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0', ip: '192.0.2.1' };
  const defaults: SessionOptions = { ttlHours: 24, idleHours: 0, maxPerUser: 0, devicePolicy: 'allow-multiple' };
  const sessionsWith = (over: Partial<SessionOptions> = {}) =>
    new SessionsService(db.models, users, new AuthSecrets(db.sequelize, {}), cache, db.logger, { ...defaults, ...over });
  let n = 0;
  const newUser = async (role = 'editor', password = 'correct horse 1') => {
    const u = await users.create({ email: `user${++n}@example.com`, password, role });
    return (await users.findById(u._id))!;
  };
  const asIdentity = (u: User): Identity => ({ kind: 'user', userId: u.id, role: u.role, permissions: [], tenantId: u.tenant_id });

  before(async function () {
    this.timeout(10000);
    db = await openUnitDb({
      plugins: [{ id: 'auth', models: [User, Role, Session, ApiKey, WebsiteToken, EmailToken, Tenant], migrations: AUTH_MIGRATIONS }],
    });
    pool = new WorkerPool({ maxThreads: 1, idleTimeoutMs: 60000 });
    cache = await CacheService.create({ prefix: 'unit', defaultTtlSeconds: 60, logger: db.logger });
    users = new UsersService(db.models, pool, { bcryptRounds: 4 });
    tokens = new TokensService(db.models, { cache, logger: db.logger });
    users.onIdentityChange(tokens); // as the auth plugin wires them: role, block and delete reach the token cache
    await pool.hashPassword('warm up the worker', 4);
  });
  after(async () => {
    await pool?.close();
    await cache?.close();
    await db?.close();
  });

  describe('users and passwords', () => {
    it('creates a user with a lower-cased email and a derived username, never storing the password', async () => {
      const u = await users.create({ email: '  Alice@Example.COM ', password: 'long enough pw', role: 'viewer' });
      assert.deepEqual(
        { email: u.email, username: u.username, role: u.role },
        { email: 'alice@example.com', username: 'alice', role: 'viewer' },
      );
      const row = (await users.findById(u._id))!;
      assert.notEqual(row.password_hash, 'long enough pw');
      assert.match(row.password_hash, /^\$2[aby]\$/);
    });

    it('refuses a duplicate email (409), a short password and an unknown role, naming the field', async () => {
      await assert.rejects(users.create({ email: 'ALICE@example.com', password: 'another pw 1', role: 'viewer' }), UserExistsError);
      await assert.rejects(
        users.create({ email: 'b@example.com', password: 'short', role: 'viewer' }),
        (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'body.password',
      );
      await assert.rejects(users.create({ email: 'b@example.com', password: 'x'.repeat(73), role: 'viewer' }), ValidationError);
      await assert.rejects(
        users.create({ email: 'b@example.com', password: 'long enough pw', role: 'wizard' }),
        (err: unknown) => err instanceof ValidationError && err.issues[0]?.path === 'body.role',
      );
    });

    it('authenticates the right password (any email case) and refuses a wrong one or an unknown email alike', async () => {
      const u = await newUser();
      assert.equal((await users.authenticate(u.email.toUpperCase(), 'correct horse 1')).id, u.id);
      await assert.rejects(users.authenticate(u.email, 'wrong password'), InvalidCredentialsError);
      await assert.rejects(users.authenticate('nobody@example.com', 'whatever pw'), InvalidCredentialsError);
    });

    it(`locks the account after ${MAX_FAILED_ATTEMPTS} failures; even the right password is then refused with the time left`, async () => {
      const u = await newUser();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
        await assert.rejects(users.authenticate(u.email, `wrong ${i}`), InvalidCredentialsError);
      await assert.rejects(users.authenticate(u.email, 'correct horse 1'), (err: unknown) => {
        assert.ok(err instanceof AccountLockedError);
        const retry = (err as AccountLockedError).extra.retryAfterSeconds as number;
        assert.ok(retry > LOCKOUT_MS / 1000 - 5 && retry <= LOCKOUT_MS / 1000, `retryAfterSeconds ${retry}`);
        return true;
      });
      assert.ok((await users.lockedForSeconds(u.id)) > 0);
      const row = (await users.findById(u.id))!;
      assert.equal(Number(row.failed_attempts), MAX_FAILED_ATTEMPTS, 'never counts past the limit');
    });

    it('fewer failures than the limit do not lock, and a success resets the count', async () => {
      const u = await newUser();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS - 1; i++)
        await assert.rejects(users.authenticate(u.email, 'nope nope'), InvalidCredentialsError);
      await users.authenticate(u.email, 'correct horse 1');
      assert.equal(Number((await users.findById(u.id))!.failed_attempts), 0);
      await assert.rejects(users.authenticate(u.email, 'nope nope'), InvalidCredentialsError);
      assert.equal(await users.lockedForSeconds(u.id), 0);
    });

    it('an expired lock lets the user in again with a fresh count', async () => {
      const u = await newUser();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) await assert.rejects(users.authenticate(u.email, 'wrong pw!'));
      // Callers naming no client are unknown clients: the spec's count and lock of the user row.
      assert.ok(Number((await users.findById(u.id))!.lockout_until) > Date.now());
      await modelOf(db.models, User).update({ lockout_until: Date.now() - 1000 }, { where: { id: u.id } });
      assert.equal((await users.authenticate(u.email, 'correct horse 1')).id, u.id);
      const row = (await users.findById(u.id))!;
      assert.equal(Number(row.failed_attempts), 0);
      assert.equal(row.lockout_until, null);
    });

    it(`a known device counts on its own: ${MAX_FAILED_ATTEMPTS} failures of unknown clients do not lock it, and its own ${MAX_FAILED_ATTEMPTS} lock only it`, async () => {
      const u = await newUser();
      let locked: LockScope[] = [];
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) {
        const notes: SignInNotes = {};
        await assert.rejects(users.authenticate(u.email, 'wrong pw!', 'default', notes), InvalidCredentialsError);
        locked = notes.lockedNow ?? [];
      }
      assert.deepEqual(locked, ['account'], 'the last failure locks the account for unknown clients');
      const notes: SignInNotes = {};
      await assert.rejects(users.authenticate(u.email, 'correct horse 1', 'default', notes), AccountLockedError);
      assert.equal(notes.lockedScope, 'account');
      assert.equal((await users.authenticate(u.email, 'correct horse 1', 'default', {}, 'device-a')).id, u.id, 'the device is not locked');
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
        await assert.rejects(users.authenticate(u.email, 'wrong pw!', 'default', {}, 'device-a'), InvalidCredentialsError);
      await assert.rejects(users.authenticate(u.email, 'correct horse 1', 'default', {}, 'device-a'), AccountLockedError);
      assert.ok((await users.lockedForSeconds(u.id, 'device-a')) > 0);
      assert.equal(await users.lockedForSeconds(u.id, 'device-b'), 0);
      await users.setPassword(u.id, 'brand new password');
      assert.equal(
        (await users.authenticate(u.email, 'brand new password', 'default', {}, 'device-a')).id,
        u.id,
        'a reset clears every lock',
      );
      assert.equal((await users.authenticate(u.email, 'brand new password')).id, u.id);
    });

    it('an email with no account locks like an account after the same failures', async () => {
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
        await assert.rejects(users.authenticate('ghost@example.com', 'wrong pw!'), InvalidCredentialsError);
      await assert.rejects(users.authenticate('ghost@example.com', 'wrong pw!'), AccountLockedError);
    });

    it('setPassword() (reset) replaces the password and clears a lockout', async () => {
      const u = await newUser();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) await assert.rejects(users.authenticate(u.email, 'wrong pw!'));
      await users.setPassword(u.id, 'brand new password');
      assert.equal((await users.authenticate(u.email, 'brand new password')).id, u.id);
      await assert.rejects(users.authenticate(u.email, 'correct horse 1'), InvalidCredentialsError);
    });

    it('a blocked user with the right password is refused as blocked', async () => {
      const u = await newUser();
      await users.setBlocked(u.id, true);
      await assert.rejects(users.authenticate(u.email, 'correct horse 1'), AccountBlockedError);
    });
  });

  describe('user list', () => {
    it('lists the tenant users newest first, searchable by email or username', async () => {
      const u = await users.create({
        email: 'searchable.person@example.com',
        password: 'long enough pw',
        role: 'viewer',
        username: 'findme',
      });
      const byEmail = await users.list('default', { page: 1, limit: 10, search: 'searchable.person' });
      assert.deepEqual(
        byEmail.items.map((x) => x._id),
        [u._id],
      );
      assert.deepEqual(
        (await users.list('default', { page: 1, limit: 10, search: 'FINDME' })).items.map((x) => x._id),
        [u._id],
      );
      assert.equal((await users.list('other-tenant', { page: 1, limit: 10 })).total, 0);
    });

    // Regression: SQLite's LIKE has no default escape character (kernel/text/like-contains.ts).
    it('a search containing _ finds the user whose email contains it (SQLite)', async () => {
      const u = await users.create({ email: 'first_last@example.com', password: 'long enough pw', role: 'viewer' });
      assert.deepEqual(
        (await users.list('default', { page: 1, limit: 10, search: 'first_last' })).items.map((x) => x._id),
        [u._id],
      );
    });
  });

  describe('sessions', () => {
    it('a new session resolves to its user, role and the role permissions', async () => {
      const sessions = sessionsWith();
      const u = await newUser('editor');
      const { token } = await sessions.create(u, client);
      const snap = await sessions.resolve(token);
      assert.equal(snap?.userId, u.id);
      assert.equal(snap?.role, 'editor');
      assert.ok(snap?.permissions.includes('content:write'));
      assert.equal(await sessions.resolve('not-a-token'), null);
    });

    it('the token is not stored: the row is keyed by its SHA-256', async () => {
      const sessions = sessionsWith();
      const { token, session } = await sessions.create(await newUser(), client);
      assert.notEqual(session.id_hash, token);
      assert.equal(await modelOf(db.models, Session).findOne({ where: { id_hash: token } }), null);
    });

    it('a revoked session no longer resolves, even after it was cached', async () => {
      const sessions = sessionsWith();
      const { token, session } = await sessions.create(await newUser(), client);
      assert.ok(await sessions.resolve(token), 'resolved (and cached) once');
      await sessions.revokeByHash(session.id_hash);
      assert.equal(await sessions.resolve(token), null);
      assert.equal(await sessions.resolve(token, { ...client, method: 'POST' }), null);
    });

    it('an expired session does not resolve and is deleted', async () => {
      const sessions = sessionsWith();
      const { token, session } = await sessions.create(await newUser(), client);
      assert.ok(Number(session.expires_at) > Date.now() + 23 * 3600 * 1000, 'expires after the TTL');
      await modelOf(db.models, Session).update({ expires_at: Date.now() - 1 }, { where: { id_hash: session.id_hash } });
      assert.equal(await sessions.resolve(token), null);
      assert.equal(await modelOf(db.models, Session).findByPk(session.id_hash), null);
    });

    it('a session idle longer than idleHours does not resolve', async () => {
      const sessions = sessionsWith({ idleHours: 1 });
      const { token, session } = await sessions.create(await newUser(), client);
      await modelOf(db.models, Session).update({ last_active_at: Date.now() - 2 * 3600 * 1000 }, { where: { id_hash: session.id_hash } });
      assert.equal(await sessions.resolve(token), null);
    });

    it('blocking a user: revokeAllForUser ends every session of that user only', async () => {
      const sessions = sessionsWith();
      const u = await newUser();
      const other = await newUser();
      const a = await sessions.create(u, client);
      const b = await sessions.create(u, { ...client, userAgent: 'curl/8' });
      const c = await sessions.create(other, client);
      assert.equal(await sessions.revokeAllForUser(u.id), 2);
      assert.equal(await sessions.resolve(a.token), null);
      assert.equal(await sessions.resolve(b.token), null);
      assert.ok(await sessions.resolve(c.token));
    });

    it("a blocked user's uncached session does not resolve", async () => {
      const sessions = sessionsWith();
      const u = await newUser();
      const { token } = await sessions.create(u, client);
      await users.setBlocked(u.id, true);
      assert.equal(await sessions.resolve(token), null);
    });

    it('single-per-device replaces the session of the same browser; single-per-user replaces all', async () => {
      const perDevice = sessionsWith({ devicePolicy: 'single-per-device' });
      const u = await newUser();
      const first = await perDevice.create(u, client);
      const otherDevice = await perDevice.create(u, { ...client, userAgent: 'curl/8' });
      const second = await perDevice.create(u, client);
      assert.equal(await perDevice.resolve(first.token), null);
      assert.ok(await perDevice.resolve(otherDevice.token));
      assert.ok(await perDevice.resolve(second.token));
      const perUser = sessionsWith({ devicePolicy: 'single-per-user' });
      const only = await perUser.create(u, { ...client, userAgent: 'Safari/17' });
      assert.equal(await perUser.resolve(otherDevice.token, { ...client, method: 'POST' }), null);
      assert.ok(await perUser.resolve(only.token));
      assert.equal((await perUser.list(u.id, null)).length, 1);
    });

    it('maxPerUser keeps only the most recent sessions', async () => {
      const sessions = sessionsWith({ maxPerUser: 2 });
      const u = await newUser();
      const made = [];
      for (let i = 0; i < 3; i++) {
        made.push(await sessions.create(u, { ...client, userAgent: `agent-${i}` }));
        await new Promise((r) => setTimeout(r, 3));
      }
      const listed = await sessions.list(u.id, made[2]!.session.id_hash);
      assert.equal(listed.length, 2);
      assert.equal(listed.filter((s) => s.current).length, 1);
      assert.equal(await sessions.resolve(made[0]!.token), null);
    });

    it('a re-authentication proof is bound to its session', async () => {
      const sessions = sessionsWith();
      const { session } = await sessions.create(await newUser(), client);
      const { proof } = await sessions.reauthProof(session.id_hash);
      assert.equal(await sessions.verifyReauthProof(session.id_hash, proof), true);
      assert.equal(await sessions.verifyReauthProof('f'.repeat(64), proof), false);
      assert.equal(await sessions.verifyReauthProof(session.id_hash, proof.replace(/^\d+/, String(Date.now() + 3600000))), false);
      assert.equal(await sessions.verifyReauthProof(session.id_hash, undefined), false);
    });

    it('purgeExpired() removes only expired sessions', async () => {
      const sessions = sessionsWith();
      const u = await newUser();
      const old = await sessions.create(u, client);
      const fresh = await sessions.create(u, { ...client, userAgent: 'other' });
      await modelOf(db.models, Session).update({ expires_at: Date.now() - 1 }, { where: { id_hash: old.session.id_hash } });
      assert.ok((await sessions.purgeExpired()) >= 1);
      assert.equal(await modelOf(db.models, Session).findByPk(old.session.id_hash), null);
      assert.ok(await modelOf(db.models, Session).findByPk(fresh.session.id_hash));
    });
  });

  describe('API keys and website tokens', () => {
    const known = (p: string) => ['content:read', 'content:write', 'media:read', 'system:write'].includes(p);

    it('an API key resolves to its own permissions, stored only as a hash', async () => {
      const u = await newUser('editor');
      const owner = { ...asIdentity(u), permissions: ['content:read', 'content:write'] };
      const created = await tokens.createApiKey(owner, { name: 'ci', permissions: ['content:read'] }, known);
      assert.match(created.key, /^sck_/);
      assert.equal(await modelOf(db.models, ApiKey).findOne({ where: { key_hash: created.key } }), null);
      const id = await tokens.resolveBearer(created.key);
      assert.equal(id?.kind, 'apiKey');
      assert.deepEqual(id?.permissions, ['content:read']);
      assert.equal(id?.userId, u.id);
      assert.equal(await tokens.resolveBearer('sck_unknown'), null);
    });

    it('refuses an unknown permission (400) and one the creator lacks (403)', async () => {
      const owner = { ...asIdentity(await newUser('editor')), permissions: ['content:read'] };
      await assert.rejects(tokens.createApiKey(owner, { name: 'x', permissions: ['made:up'] }, known), ValidationError);
      await assert.rejects(tokens.createApiKey(owner, { name: 'x', permissions: ['system:write'] }, known), ForbiddenError);
      await assert.rejects(
        tokens.createApiKey(owner, { name: 'x', permissions: [], expiresAt: '2001-01-01T00:00:00Z' }, known),
        ValidationError,
      );
    });

    it('a key never acts with more than its creator has now: a demoted creator narrows it', async () => {
      const u = await newUser('editor');
      const created = await tokens.createApiKey(
        { ...asIdentity(u), permissions: ['content:read', 'content:write'] },
        { name: 'k', permissions: ['content:read', 'content:write'] },
        known,
      );
      assert.deepEqual((await tokens.resolveBearer(created.key))?.permissions, ['content:read', 'content:write']);
      await users.setRole(u.id, 'viewer');
      assert.deepEqual((await tokens.resolveBearer(created.key))?.permissions, ['content:read']);
    });

    it('revoked, expired, or blocked-creator keys stop working', async () => {
      const u = await newUser('editor');
      const owner = { ...asIdentity(u), permissions: ['content:read'] };
      const revoked = await tokens.createApiKey(owner, { name: 'r', permissions: ['content:read'] }, known);
      await tokens.revokeApiKey(owner, revoked._id);
      assert.equal(await tokens.resolveBearer(revoked.key), null);
      await assert.rejects(tokens.revokeApiKey(owner, revoked._id), NotFoundError);

      const expiresAt = Date.now() + 400;
      const expiring = await tokens.createApiKey(
        owner,
        { name: 'e', permissions: ['content:read'], expiresAt: new Date(expiresAt).toISOString() },
        known,
      );
      assert.ok(await tokens.resolveBearer(expiring.key));
      // Held in memory now; past its expiry the cached copy answers no more.
      await new Promise((r) => setTimeout(r, expiresAt - Date.now() + 20));
      assert.equal(await tokens.resolveBearer(expiring.key), null);

      const site = await tokens.createWebsiteToken(owner, { name: 'site' });
      const asSite = await tokens.resolveBearer(site.token);
      assert.equal(asSite?.kind, 'websiteToken');
      assert.equal(asSite?.role, 'editor', 'a website token acts as its creator');
      await users.setBlocked(u.id, true);
      assert.equal(await tokens.resolveBearer(site.token), null);
    });

    it('a user lists only their own keys; another user cannot revoke them', async () => {
      const a = await newUser('editor');
      const b = await newUser('editor');
      const ownerA = { ...asIdentity(a), permissions: ['content:read'] };
      const ownerB = { ...asIdentity(b), permissions: ['content:read'] };
      const key = await tokens.createApiKey(ownerA, { name: 'mine', permissions: ['content:read'] }, known);
      assert.deepEqual(
        (await tokens.listApiKeys(ownerA)).map((k) => k.name),
        ['mine'],
      );
      assert.deepEqual(await tokens.listApiKeys(ownerB), []);
      await assert.rejects(tokens.revokeApiKey(ownerB, key._id), NotFoundError);
      assert.ok(await tokens.resolveBearer(key.key));
    });
  });
});
