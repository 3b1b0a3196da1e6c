import { expect } from 'chai';
import { asValue } from 'awilix';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { generate } from 'otplib';
import { QueryTypes } from 'sequelize';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditLog } from '../../kernel/audit.js';
import { responseCookie, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { CLIENT_COOKIE, clientCookieKey, signClientId } from '../../kernel/http/client-cookie.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';

const PASSWORD = 'correct horse battery';
const codeAt = (secret: string, offsetSeconds = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });
const tokenIn = (text: string) => /token=([A-Za-z0-9_-]{20,})/.exec(text)?.[1];

interface Row {
  id: number;
  action: string;
  level: string;
  outcome: string;
  message: string;
  tenant_id: string;
  actor: { userId: string | null; tenantId: string };
  details: Record<string, any> | null;
}

for (const variant of DB_VARIANTS) {
  describe(`audit trail: security events through HTTP (${variant.name})`, function () {
    this.timeout(90000);
    /** Every secret a test handled: none may appear anywhere in cms_audit_log. */
    const secrets = new Set<string>([PASSWORD]);
    const keep = (...values: Array<string | null | undefined>) => {
      for (const v of values) if (v) secrets.add(v);
    };
    let adminSession: string;
    let adminId: string;
    let n = 0;

    const t = useTestKernel(
      {
        db: variant.name,
        config: {
          plugins: { options: { auth: { bcryptRounds: 4, publicUrl: 'https://cms.example.com', sessionDevicePolicy: 'allow-multiple' } } },
        },
      },
      {
        variant,
        seed: async () => {
          adminId = (await users().create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' }))._id;
          adminSession = cookieOf(await login('admin@example.com'));
        },
      },
    );

    const users = () => t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
    const audit = () => t.kernel.container.resolve<AuditLog>('audit');
    const login = (email: string, password = PASSWORD) => t.request('/api/user/login', { method: 'POST', json: { email, password } });
    const cookieOf = (res: TestResponse, name = 'session') => {
      const c = responseCookie(res, name);
      expect(c, `${name} cookie`).to.be.a('string');
      keep(c!.slice(name.length + 1));
      return c!;
    };
    const as = (cookie: string, init: RequestInit & { json?: unknown } = {}) => ({ ...init, headers: { ...init.headers, cookie } });
    async function newUser(role = 'editor'): Promise<{ id: string; email: string }> {
      const email = `person-${++n}@example.com`;
      return { id: (await users().create({ email, password: PASSWORD, role }))._id, email };
    }

    async function rows(): Promise<Row[]> {
      await t.kernel.container.resolve<{ settled(): Promise<void> }>('emailFlows').settled();
      await audit().flush();
      const raw = await t.kernel.sequelize.query<Record<string, any>>('SELECT * FROM cms_audit_log ORDER BY id', {
        type: QueryTypes.SELECT,
      });
      return raw.map((r) => ({ ...r, actor: JSON.parse(r.actor), details: r.details ? JSON.parse(r.details) : null }) as Row);
    }
    /** The newest entry of an action (matching `where`), which must exist. */
    async function entry(action: string, where: (r: Row) => boolean = () => true): Promise<Row> {
      const found = (await rows()).filter((r) => r.action === action && where(r)).at(-1);
      expect(found, `an audit entry ${action}`).to.not.equal(undefined);
      return found!;
    }
    /** The fields every request-made entry carries: its request id and the address as an HMAC (default mode). */
    function fromRequest(e: Row, res: TestResponse): void {
      expect(e.details?.requestId).to.equal(res.headers.get('x-request-id'));
      expect(e.details?.ipHash).to.match(/^[0-9a-f]{16}$/);
      expect(e.details).to.not.have.property('ip');
      expect(e.tenant_id).to.equal('default');
    }
    async function mailTo(to: string, subject: string): Promise<string> {
      await t.kernel.container.resolve<{ settled(): Promise<void> }>('emailFlows').settled();
      const dir = join(t.dataDir, 'outbox');
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
      for (const file of files.sort().reverse()) {
        const mail = await simpleParser(readFileSync(join(dir, file)));
        const address = (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text;
        if (address === to && mail.subject === subject) return mail.text ?? '';
      }
      throw new Error(`no mail to ${to}: ${subject}`);
    }

    it('sign-in success and failure: level, action, actor, target, request id and hashed address', async function () {
      const u = await newUser();
      const ok = await login(u.email);
      expect(ok.status).to.equal(200);
      cookieOf(ok);
      const success = await entry('auth.sign-in.succeeded', (r) => r.actor.userId === u.id);
      expect(success).to.include({ level: 'low', outcome: 'success' });
      expect(success.details).to.deep.include({ method: 'password', target: { type: 'user', id: u.id } });
      expect(success.message).to.equal(`${u.email} signed in (password)`);
      fromRequest(success, ok);

      keep('not the password', 'whatever password');
      const wrong = await login(u.email, 'not the password');
      expect(wrong.status).to.equal(401);
      const failed = await entry('auth.sign-in.failed', (r) => r.actor.userId === u.id);
      expect(failed).to.include({ level: 'medium', outcome: 'failure', message: `Sign-in failed for ${u.email}: wrong password` });
      expect(failed.details).to.deep.include({ reason: 'wrong-password', target: { type: 'user', id: u.id } });
      fromRequest(failed, wrong);

      // An unknown address is not repeated (people type passwords into the e-mail field).
      const typed = 'my-secret-typed-into-email@example.com';
      const unknown = await login(typed, 'whatever password');
      expect(unknown.status).to.equal(401);
      const anon = await entry('auth.sign-in.failed', (r) => r.details?.reason === 'unknown-account');
      expect(anon.actor.userId).to.equal(null);
      expect(anon.message).to.equal('Sign-in failed: no account has the e-mail address given');
      expect(JSON.stringify(await rows())).to.not.include(typed);
      fromRequest(anon, unknown);
    });

    it('lockout after five failures, a refused locked sign-in, and unlock by expiry and by password reset', async function () {
      const u = await newUser();
      for (let i = 0; i < 5; i++) {
        keep(`wrong ${i} password`, `wrong again ${i}`);
        expect((await login(u.email, `wrong ${i} password`)).status).to.equal(401);
      }
      const lock = await entry('auth.lockout.started', (r) => r.actor.userId === u.id);
      expect(lock).to.include({ level: 'high', outcome: 'failure' });
      // Five failures from unknown clients lock the account for unknown clients (the scope is in the entry).
      expect(lock.message).to.equal(`Account ${u.email} locked for 15 minutes for unknown clients after 5 failed attempts (password)`);
      expect(lock.details?.target).to.deep.equal({ type: 'user', id: u.id });
      expect(lock.details).to.deep.include({ scope: 'account', attempts: 5, via: 'password' });
      const refused = await login(u.email);
      expect(refused.status).to.equal(403);
      const lockedTry = await entry('auth.sign-in.failed', (r) => r.actor.userId === u.id && r.details?.reason === 'locked');
      expect(lockedTry.details).to.deep.include({ scope: 'account', client: 'unknown' });
      fromRequest(lockedTry, refused);

      // The lock runs out: the next sign-in records the unlock.
      await t.kernel.sequelize.query('UPDATE auth_users SET lockout_until = ? WHERE id = ?', {
        replacements: [Date.now() - 1000, u.id],
      });
      const after = await login(u.email);
      expect(after.status).to.equal(200);
      const expired = await entry('auth.lockout.ended', (r) => r.actor.userId === u.id);
      expect(expired.details).to.deep.include({ how: 'expired', scope: 'account' });
      fromRequest(expired, after);

      // Locked again, then a password reset by mail clears it.
      for (let i = 0; i < 5; i++) await login(u.email, `wrong again ${i}`);
      const forgot = await t.request('/api/user/forgot-password', { method: 'POST', json: { email: u.email } });
      expect(forgot.status).to.equal(200);
      const issued = await entry('auth.password-reset.issued', (r) => r.details?.target?.id === u.id);
      expect(issued.level).to.equal('low');
      fromRequest(issued, forgot);
      const token = tokenIn(await mailTo(u.email, 'Reset your password'))!;
      keep(token, 'a reset new password');
      const reset = await t.request('/api/user/reset-password', { method: 'POST', json: { token, password: 'a reset new password' } });
      expect(reset.status).to.equal(200);
      const done = await entry('auth.password.reset', (r) => r.actor.userId === u.id);
      expect(done).to.include({ level: 'medium' });
      fromRequest(done, reset);
      expect((await entry('auth.lockout.ended', (r) => r.actor.userId === u.id)).details).to.deep.include({
        how: 'password-reset',
        scope: 'account',
      });
    });

    it('the lock of unknown clients (5 failures across rotating clients) and its end by a magic link carry scope account', async function () {
      const u = await newUser();
      const client = (seed: string) => {
        const id = `${seed}${'x'.repeat(22)}`.slice(0, 22);
        return `${CLIENT_COOKIE}=${id}.${signClientId(id, clientCookieKey(t.config.secrets))}`;
      };
      for (let c = 0; c < 5; c++) {
        keep(`spread ${c}`);
        const res = await t.request('/api/user/login', {
          method: 'POST',
          json: { email: u.email, password: `spread ${c}` },
          headers: { cookie: client(`bot${c}`) },
        });
        expect(res.status).to.equal(401);
      }
      const locks = (await rows()).filter((r) => r.action === 'auth.lockout.started' && r.actor.userId === u.id);
      expect(locks.map((r) => r.details?.scope)).to.deep.equal(['account']);
      const accountLock = locks.at(-1)!;
      expect(accountLock.message).to.equal(
        `Account ${u.email} locked for 15 minutes for unknown clients after 5 failed attempts (password)`,
      );
      expect(accountLock.details).to.deep.include({ scope: 'account', attempts: 5 });
      const refused = await login(u.email);
      expect(refused.status).to.equal(403);
      const lockedTry = await entry('auth.sign-in.failed', (r) => r.actor.userId === u.id && r.details?.reason === 'locked');
      expect(lockedTry.details).to.deep.include({ scope: 'account' });
      expect(lockedTry.message).to.equal(`Sign-in failed for ${u.email}: the account is locked`);
      const { token } = await t.kernel.container
        .resolve<{ issue(kind: string, i: object): Promise<{ token: string }> }>('emailTokens')
        .issue('magic', { tenantId: 'default', email: u.email, userId: u.id, ttlMs: 15 * 60 * 1000 });
      keep(token);
      const verify = await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token } });
      expect(verify.status).to.equal(200);
      cookieOf(verify);
      const ended = await entry('auth.lockout.ended', (r) => r.actor.userId === u.id);
      expect(ended.details).to.deep.include({ how: 'magic-link', scope: 'account' });
      fromRequest(ended, verify);
    });

    it('2FA enabled, sign-in with a code, backup codes regenerated and used, 2FA disabled', async function () {
      const u = await newUser();
      const session = cookieOf(await login(u.email));
      const setup = (await (await t.request('/api/auth/2fa/setup', as(session, { method: 'POST' }))).json()).data;
      keep(setup.secret, ...setup.backupCodes);
      const code = await codeAt(setup.secret);
      keep(code);
      const enabled = await t.request(
        '/api/auth/2fa/verify-setup',
        as(session, { method: 'POST', json: { secret: setup.secret, verificationCode: code, backupCodes: setup.backupCodes } }),
      );
      expect(enabled.status).to.equal(200);
      const on = await entry('auth.2fa.enabled', (r) => r.actor.userId === u.id);
      expect(on.level).to.equal('medium');
      fromRequest(on, enabled);

      const regen = await t.request('/api/auth/2fa/backup-codes', as(session, { method: 'POST' }));
      const backupCodes: string[] = (await regen.json()).data.backupCodes;
      keep(...backupCodes);
      fromRequest(await entry('auth.2fa.backup-codes-regenerated', (r) => r.actor.userId === u.id), regen);

      const twoStep = async (secondCode: string) => {
        const first = await login(u.email);
        const pending = cookieOf(first, '2fa_pending');
        return t.request('/api/auth/2fa/verify', as(pending, { method: 'POST', json: { userId: u.id, code: secondCode } }));
      };
      const totp = await codeAt(setup.secret, 30);
      keep(totp);
      const byCode = await twoStep(totp);
      expect((await byCode.json()).success).to.equal(true);
      cookieOf(byCode);
      expect(await entry('auth.sign-in.second-factor-required', (r) => r.actor.userId === u.id)).to.include({ level: 'low' });
      fromRequest(await entry('auth.sign-in.succeeded', (r) => r.actor.userId === u.id && r.details?.method === 'totp'), byCode);

      const byBackup = await twoStep(backupCodes[0]!);
      expect((await byBackup.json()).backupCodeUsed).to.equal(true);
      cookieOf(byBackup);
      const used = await entry('auth.2fa.backup-code-used', (r) => r.actor.userId === u.id);
      expect(used).to.include({ level: 'medium' });
      expect(used.details).to.deep.include({ remaining: backupCodes.length - 1 });
      fromRequest(used, byBackup);

      const wrong = await twoStep('000000');
      expect((await wrong.json()).success).to.equal(false);
      fromRequest(await entry('auth.2fa.failed', (r) => r.actor.userId === u.id), wrong);

      const off = await t.request('/api/auth/2fa/disable', as(session, { method: 'POST' }));
      expect(off.status).to.equal(200);
      const disabled = await entry('auth.2fa.disabled', (r) => r.actor.userId === u.id);
      expect(disabled.level).to.equal('high');
      fromRequest(disabled, off);
    });

    it('sessions revoked by their owner and by an admin (who is named), password changed', async function () {
      const u = await newUser();
      const first = cookieOf(await login(u.email));
      const second = cookieOf(await login(u.email));
      const list = (await (await t.request('/api/user/sessions', as(first))).json()).data.sessions as Array<{
        _id: string;
        current: boolean;
      }>;
      const other = list.find((s) => !s.current)!;
      const reauth = await t.request('/api/user/sessions/reauth', as(first, { method: 'POST', json: { password: PASSWORD } }));
      const proof = (await reauth.json()).data.proof;
      keep(proof);
      const own = await t.request(`/api/user/sessions/${other._id}`, {
        method: 'DELETE',
        headers: { cookie: first, 'x-reauth-proof': proof },
      });
      expect(own.status).to.equal(200);
      const byOwner = await entry('auth.session.revoked', (r) => r.details?.target?.id === other._id);
      expect(byOwner.details).to.deep.include({ revokedBy: u.id, sessionUserId: u.id });
      fromRequest(byOwner, own);
      void second;

      keep('a changed password 1');
      const changed = await t.request(
        '/api/user/change-password',
        as(first, { method: 'POST', json: { currentPassword: PASSWORD, newPassword: 'a changed password 1' } }),
      );
      expect(changed.status).to.equal(200);
      const pw = await entry('auth.password.changed', (r) => r.actor.userId === u.id);
      expect(pw.level).to.equal('medium');
      fromRequest(pw, changed);

      cookieOf(await login(u.email, 'a changed password 1'));
      const sessions = (await (await t.request(`/api/user/sessions?admin=1&userId=${u.id}`, as(adminSession))).json()).data.sessions;
      const victim = sessions[0]._id as string;
      const byAdmin = await t.request(`/api/user/sessions/${victim}?admin=1`, as(adminSession, { method: 'DELETE' }));
      expect(byAdmin.status).to.equal(200);
      const adminEntry = await entry('auth.session.revoked', (r) => r.details?.target?.id === victim);
      expect(adminEntry.actor.userId).to.equal(adminId);
      expect(adminEntry.details).to.deep.include({ revokedBy: adminId, sessionUserId: u.id, admin: true });
      expect(adminEntry.message).to.equal(`Session of ${u.email} revoked by admin@example.com`);
      fromRequest(adminEntry, byAdmin);
    });

    it('magic link issued and consumed; invitation issued and consumed (sign-up creates the user)', async function () {
      const u = await newUser();
      const ask = await t.request('/api/user/magic-link', { method: 'POST', json: { email: u.email } });
      fromRequest(await entry('auth.magic-link.issued', (r) => r.details?.target?.id === u.id), ask);
      const token = tokenIn(await mailTo(u.email, 'Your sign-in link'))!;
      keep(token);
      const verify = await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token } });
      expect(verify.status).to.equal(200);
      cookieOf(verify);
      fromRequest(await entry('auth.magic-link.consumed', (r) => r.actor.userId === u.id), verify);
      fromRequest(await entry('auth.sign-in.succeeded', (r) => r.actor.userId === u.id && r.details?.method === 'magic-link'), verify);

      const invite = await t.request(
        '/api/token/create-token',
        as(adminSession, { method: 'POST', json: { email: 'invitee@example.com', role: 'viewer' } }),
      );
      expect(invite.status).to.equal(200);
      const raw = (await invite.json()).data.token as string;
      keep(raw, 'invitee password');
      const issued = await entry('auth.invitation.issued');
      expect(issued.actor.userId).to.equal(adminId);
      expect(issued.details).to.deep.include({ role: 'viewer' });
      fromRequest(issued, invite);
      const signup = await t.request('/api/user/register', { method: 'POST', json: { token: raw, password: 'invitee password' } });
      expect(signup.status).to.equal(201);
      cookieOf(signup);
      const newId = (await signup.json()).data.user._id;
      fromRequest(await entry('auth.invitation.consumed', (r) => r.actor.userId === newId), signup);
      const created = await entry('auth.user.created', (r) => r.actor.userId === newId);
      expect(created.details).to.deep.include({ via: 'invitation', role: 'viewer' });
    });

    it('user created, role changed, blocked and deleted by an admin', async function () {
      keep('created user password');
      const create = await t.request(
        '/api/user/create-user',
        as(adminSession, { method: 'POST', json: { email: 'made@example.com', password: 'created user password', role: 'viewer' } }),
      );
      expect(create.status).to.equal(201);
      const id = (await create.json()).data._id as string;
      const created = await entry('auth.user.created', (r) => r.details?.target?.id === id);
      expect(created).to.include({ level: 'medium', message: 'User made@example.com created with role viewer' });
      expect(created.actor.userId).to.equal(adminId);
      fromRequest(created, create);

      const role = await t.request(`/api/user/${id}/role`, as(adminSession, { method: 'PUT', json: { role: 'editor' } }));
      expect(role.status).to.equal(200);
      const changed = await entry('auth.user.role-changed', (r) => r.details?.target?.id === id);
      expect(changed.details).to.deep.include({ from: 'viewer', to: 'editor' });
      fromRequest(changed, role);

      const block = await t.request(`/api/user/${id}/block`, as(adminSession, { method: 'POST', json: { blocked: true } }));
      expect(block.status).to.equal(200);
      expect(await entry('auth.user.blocked', (r) => r.details?.target?.id === id)).to.include({ level: 'high' });
      const unblock = await t.request(`/api/user/${id}/block`, as(adminSession, { method: 'POST', json: { blocked: false } }));
      fromRequest(await entry('auth.user.unblocked', (r) => r.details?.target?.id === id), unblock);

      const del = await t.request(`/api/user/${id}`, as(adminSession, { method: 'DELETE' }));
      expect(del.status).to.equal(200);
      const deleted = await entry('auth.user.deleted', (r) => r.details?.target?.id === id);
      expect(deleted).to.include({ level: 'high' });
      expect(deleted.actor.userId).to.equal(adminId);
      fromRequest(deleted, del);
    });

    it('API keys and website tokens created and revoked; a revoked one presented again is a high-severity incident', async function () {
      const made = await t.request(
        '/api/api-keys',
        as(adminSession, { method: 'POST', json: { name: 'deploy bot', permissions: ['content:read'] } }),
      );
      expect(made.status).to.equal(201);
      const key = (await made.json()).data;
      keep(key.key);
      fromRequest(await entry('auth.api-key.created', (r) => r.details?.target?.id === key._id), made);
      const site = await t.request('/api/website-tokens', as(adminSession, { method: 'POST', json: { name: 'front end' } }));
      expect(site.status).to.equal(201);
      const token = (await site.json()).data;
      keep(token.token);
      fromRequest(await entry('auth.website-token.created', (r) => r.details?.target?.id === token._id), site);

      const revokeKey = await t.request(`/api/api-keys/${key._id}`, as(adminSession, { method: 'DELETE' }));
      expect(revokeKey.status).to.equal(200);
      const revoked = await entry('auth.api-key.revoked', (r) => r.details?.target?.id === key._id);
      expect(revoked.message).to.equal('API key "deploy bot" revoked');
      fromRequest(revoked, revokeKey);
      const revokeToken = await t.request(`/api/website-tokens/${token._id}`, as(adminSession, { method: 'DELETE' }));
      fromRequest(await entry('auth.website-token.revoked', (r) => r.details?.target?.id === token._id), revokeToken);

      const reuse = await t.request('/api/user/me', { headers: { authorization: `Bearer ${key.key}` } });
      expect(reuse.status).to.equal(401);
      const used = await entry('auth.revoked-token.used', (r) => r.details?.target?.id === key._id);
      expect(used).to.include({ level: 'high', outcome: 'failure' });
      expect(used.actor.userId).to.equal(adminId);
      fromRequest(used, reuse);
      // A made-up value is refused without an entry.
      const before = (await rows()).length;
      expect((await t.request('/api/user/me', { headers: { authorization: 'Bearer sck_madeupvalue' } })).status).to.equal(401);
      expect((await rows()).length).to.equal(before);

      const security = (await (await t.request('/api/dashboard/security', as(adminSession))).json()).data;
      expect(security.revokedTokenUseCount).to.be.at.least(1);
      expect(security.activeThreats.map((x: { type: string }) => x.type)).to.include('revoked-token-use');
    });

    it('the security endpoint derives lockouts and bursts of failed sign-ins per address from the entries', async function () {
      const security = (await (await t.request('/api/dashboard/security', as(adminSession))).json()).data;
      // Keeps the fields it had.
      expect(security).to.include.keys('lockedAccounts', 'failedLoginAttempts', 'threatLevel', 'activeThreats', 'highSeverityEvents');
      expect(security.recentLockoutCount).to.be.at.least(2);
      expect(security.recentLockouts[0].message).to.match(/^Account person-\d+@example.com locked for 15 minutes/);
      const burst = security.failedSignInBursts[0];
      expect(burst.source).to.match(/^hash:[0-9a-f]{16}$/);
      expect(burst.failedSignIns).to.be.at.least(10);
      const types = security.activeThreats.map((x: { type: string }) => x.type);
      expect(types).to.include.members(['recent-lockouts', 'failed-sign-in-burst']);
      expect(security.threatLevel).to.be.oneOf(['high', 'critical']);
    });

    it('AUDIT_IP_MODE: full keeps the address, none keeps nothing (read from the settings service)', async function () {
      const u = await newUser();
      t.kernel.container.awilix.register(
        'settings',
        asValue({ get: async (key: string) => (key === 'AUDIT_IP_MODE' ? 'full' : undefined) }),
      );
      const full = await login(u.email, 'wrong for full mode');
      const withIp = await entry('auth.sign-in.failed', (r) => r.details?.requestId === full.headers.get('x-request-id'));
      expect(withIp.details?.ip).to.match(/127\.0\.0\.1/);
      expect(withIp.details).to.not.have.property('ipHash');
      t.kernel.container.awilix.register(
        'settings',
        asValue({ get: async (key: string) => (key === 'AUDIT_IP_MODE' ? 'none' : undefined) }),
      );
      const none = await login(u.email, 'wrong for none mode');
      const without = await entry('auth.sign-in.failed', (r) => r.details?.requestId === none.headers.get('x-request-id'));
      expect(without.details).to.not.have.any.keys('ip', 'ipHash');
      keep('wrong for full mode', 'wrong for none mode');
      // Back to the default for the tests after this one.
      t.kernel.container.awilix.register('settings', asValue({ get: async () => undefined }));
    });

    it('theme changes, media deletion, and share links created and revoked (never their token or password)', async function () {
      const created = await t.request('/api/theme/create', as(adminSession, { method: 'POST', json: { name: 'Audit theme' } }));
      expect(created.status).to.equal(201);
      const theme = (await created.json()).data;
      const made = await entry('themes.created', (r) => r.details?.target?.id === theme.id);
      expect(made).to.include({ level: 'low', message: 'Theme created: "Audit theme"' });
      expect(made.actor.userId).to.equal(adminId);
      fromRequest(made, created);
      const activate = await t.request('/api/theme/activate', as(adminSession, { method: 'POST', json: { themeId: theme.id } }));
      expect(activate.status).to.equal(200);
      fromRequest(await entry('themes.activated', (r) => r.details?.target?.id === theme.id), activate);

      const upload = await uploadFile(t, await imageBytes(8, 8), 'audit-photo.png', { headers: { cookie: adminSession } });
      expect(upload.status).to.equal(201);
      const item = (await upload.json()).data;
      const mediaId = (item._id ?? item.id) as string;
      keep('share link password');
      const share = await t.request(
        `/api/media/share/${mediaId}`,
        as(adminSession, { method: 'POST', json: { expiryHours: 2, password: 'share link password' } }),
      );
      expect(share.status).to.equal(200);
      const shareToken = (await share.json()).data.token as string;
      keep(shareToken);
      const shared = await entry('media.share-created', (r) => r.details?.target?.id === mediaId);
      expect(shared.message).to.match(/^Share link created for "audit-photo.png" \(expires .+\), password-protected$/);
      expect(shared.details?.link).to.match(/^[0-9a-f]{12}$/);
      fromRequest(shared, share);
      const unshare = await t.request(`/api/media/share/${mediaId}/${shareToken}`, as(adminSession, { method: 'DELETE' }));
      expect(unshare.status).to.equal(200);
      const revoked = await entry('media.share-revoked', (r) => r.details?.target?.id === mediaId);
      expect(revoked.details?.link).to.equal(shared.details?.link);
      fromRequest(revoked, unshare);
      const del = await t.request(`/api/media/${mediaId}`, as(adminSession, { method: 'DELETE' }));
      expect(del.status).to.equal(200);
      const deleted = await entry('media.deleted', (r) => r.details?.target?.id === mediaId);
      expect(deleted).to.include({ level: 'medium' });
      expect(deleted.message).to.match(/^Media item "audit-photo.png" deleted/);
      fromRequest(deleted, del);
    });

    it('no secret appears anywhere in the audit table, and the chain verifies', async function () {
      const all = await t.kernel.sequelize.query<Record<string, unknown>>('SELECT * FROM cms_audit_log', { type: QueryTypes.SELECT });
      expect(all.length).to.be.greaterThan(40);
      const text = JSON.stringify(all);
      expect(secrets.size).to.be.greaterThan(20);
      for (const secret of secrets) {
        // A 6-digit code could occur by chance inside a hex hash or id: codes are looked for as numbers on their own.
        const found = /^\d{6}$/.test(secret) ? new RegExp(`(^|[^0-9a-f])${secret}([^0-9a-f]|$)`).test(text) : text.includes(secret);
        expect(found, `a secret (${secret.slice(0, 4)}…) in the audit log`).to.equal(false);
      }
      expect(await audit().verify()).to.deep.include({ valid: true });
    });
  });
}

describe('audit trail: setup steps', function () {
  this.timeout(60000);
  const t = useTestKernel({ setup: true, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } });

  it('records the database test, seeding started and finished, and completion, without credentials', async function () {
    const target = { type: 'sqlite', database: t.config.db.type === 'sqlite' ? t.config.db.storage : 'cms.sqlite' };
    expect((await t.request('/api/setup/test-db', { method: 'POST', json: target })).status).to.equal(200);
    expect((await t.request('/api/setup/seed-db', { method: 'POST', json: target })).status).to.equal(200);
    const deadline = Date.now() + 20000;
    while (!(await (await t.request('/api/system/health')).json()).data.setup.seeded && Date.now() < deadline) await sleep(25);
    const done = await t.request('/api/setup/complete', {
      method: 'POST',
      json: { email: 'first@example.com', password: 'first admin password', siteName: 'Audited site' },
    });
    expect(done.status).to.equal(200);
    const audit = t.kernel.container.resolve<AuditLog>('audit');
    await audit.flush();
    const rows = await t.kernel.sequelize.query<Record<string, any>>('SELECT * FROM cms_audit_log ORDER BY id', {
      type: QueryTypes.SELECT,
    });
    const actions = rows.map((r) => r.action);
    expect(actions).to.include.members(['setup.db-tested', 'setup.seed-started', 'setup.seeded', 'setup.completed']);
    const completed = rows.find((r) => r.action === 'setup.completed')!;
    expect(completed.message).to.equal('Setup complete: first admin first@example.com created, site name "Audited site"');
    expect(completed.level).to.equal('high');
    expect(JSON.parse(completed.details).requestId).to.equal(done.headers.get('x-request-id'));
    expect(JSON.stringify(rows)).to.not.include('first admin password');
    expect(await audit.verify()).to.deep.include({ valid: true });
  });
});
