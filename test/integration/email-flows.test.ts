import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { QueryTypes } from 'sequelize';
import { startTestKernel, useIdentityKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { responseCookie } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { startSmtp } from '../helpers/smtp-inbox.js';
import { requireVariant } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const cookie = responseCookie;

async function waitFor<T>(probe: () => T | undefined, what: string, ms = 10000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const tokenIn = (text: string) => /token=([A-Za-z0-9_-]{20,})/.exec(text)?.[1];

for (const variant of DB_VARIANTS) {
  describe(`mail links: reset, magic link, invitations (${variant.name}, SMTP)`, function () {
    this.timeout(60000);
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    before(async function () {
      requireVariant(this, variant);
      smtp = await startSmtp();
    });
    const t = useIdentityKernel(variant, {}, () => ({
      config: {
        plugins: {
          options: {
            auth: { bcryptRounds: 4, publicUrl: 'https://cms.example.com', sessionDevicePolicy: 'allow-multiple' },
            mail: { from: 'CMS <cms@example.com>', smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
          },
        },
      },
    }));
    // After the kernel's own after hook: the kernel closes first.
    after(async () => smtp?.close());

    const users = () => t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
    const mailTo = (to: string, subject: string) =>
      waitFor(() => smtp.inbox.find((m) => m.to.includes(to) && m.subject === subject), `mail to ${to}`);

    it('mails a reset link built from the configured public URL and answers unknown emails the same', async function () {
      await users().create({ email: 'reset@example.com', password: PASSWORD, role: 'editor' });
      const known = await t.request('/api/user/forgot-password', {
        method: 'POST',
        json: { email: 'reset@example.com' },
        headers: { host: 'evil.example.net' },
      });
      const unknown = await t.request('/api/user/forgot-password', { method: 'POST', json: { email: 'nobody@example.com' } });
      expect(known.status).to.equal(200);
      expect(await known.json()).to.deep.equal(await unknown.json());
      const mail = await mailTo('reset@example.com', 'Reset your password');
      expect(mail.text).to.include('https://cms.example.com/reset-password?token=').and.not.include('evil.example.net');
      await t.kernel.container.resolve<{ settled(): Promise<void> }>('emailFlows').settled();
      expect(smtp.inbox.filter((m) => m.to.includes('nobody@example.com'))).to.have.length(0);
    });

    it('resets the password once, ends every session, and explains a used, unknown or expired link', async function () {
      await users().create({ email: 'reset2@example.com', password: PASSWORD, role: 'editor' });
      const oldSession = cookie(
        await t.request('/api/user/login', { method: 'POST', json: { email: 'reset2@example.com', password: PASSWORD } }),
        'session',
      )!;
      await t.request('/api/user/forgot-password', { method: 'POST', json: { email: 'reset2@example.com' } });
      const token = tokenIn((await mailTo('reset2@example.com', 'Reset your password')).text)!;
      const ok = await t.request('/api/user/reset-password', { method: 'POST', json: { token, password: 'a brand new password' } });
      expect(ok.status).to.equal(200);
      expect((await t.request('/api/user/me', { headers: { cookie: oldSession } })).status).to.equal(401);
      expect(
        (await t.request('/api/user/login', { method: 'POST', json: { email: 'reset2@example.com', password: PASSWORD } })).status,
      ).to.equal(401);
      expect(
        (await t.request('/api/user/login', { method: 'POST', json: { email: 'reset2@example.com', password: 'a brand new password' } }))
          .status,
      ).to.equal(200);
      const reused = await t.request('/api/user/reset-password', { method: 'POST', json: { token, password: 'another new password' } });
      expect(reused.status).to.equal(409);
      expect((await reused.json()).error).to.equal('TOKEN_ALREADY_CONSUMED');
      const unknown = await t.request('/api/user/reset-password', {
        method: 'POST',
        json: { token: 'x'.repeat(43), password: 'another new password' },
      });
      expect(unknown.status).to.equal(404);
      expect((await unknown.json()).error).to.equal('TOKEN_NOT_FOUND');
      await t.request('/api/user/forgot-password', { method: 'POST', json: { email: 'reset2@example.com' } });
      const second = await waitFor(() => smtp.inbox.filter((m) => m.to.includes('reset2@example.com')).at(1), 'a second reset mail');
      const stale = tokenIn(second.text)!;
      await t.kernel.sequelize.query('UPDATE auth_tokens SET expires_at = ? WHERE kind = ? AND consumed_at IS NULL', {
        replacements: [Date.now() - 1, 'reset'],
      });
      const expired = await t.request('/api/user/reset-password', {
        method: 'POST',
        json: { token: stale, password: 'another new password' },
      });
      expect(expired.status).to.equal(410);
      expect((await expired.json()).error).to.equal('TOKEN_EXPIRED');
    });

    it('of 50 concurrent claims of one reset token exactly one succeeds', async function () {
      const { _id } = await users().create({ email: 'race@example.com', password: PASSWORD, role: 'editor' });
      const { token } = await t.kernel.container
        .resolve<{ issue(k: string, i: object): Promise<{ token: string }> }>('emailTokens')
        .issue('reset', {
          email: 'race@example.com',
          userId: _id,
          tenantId: 'default',
          ttlMs: 60000,
        });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          t.request('/api/user/reset-password', { method: 'POST', json: { token, password: `new password ${i}` } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(49);
    });

    it('a magic link signs in once (and hands over to the 2FA step when it is on)', async function () {
      await users().create({ email: 'magic@example.com', password: PASSWORD, role: 'viewer' });
      const answer = await t.request('/api/user/magic-link', { method: 'POST', json: { email: 'magic@example.com' } });
      expect(answer.status).to.equal(200);
      const mail = await mailTo('magic@example.com', 'Your sign-in link');
      expect(mail.text).to.include('https://cms.example.com/magic-link?token=').and.include('15 minutes');
      const token = tokenIn(mail.text)!;
      const signedIn = await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token } });
      expect(signedIn.status).to.equal(200);
      expect((await signedIn.json()).data.user.email).to.equal('magic@example.com');
      expect((await t.request('/api/user/me', { headers: { cookie: cookie(signedIn, 'session')! } })).status).to.equal(200);
      expect((await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token } })).status).to.equal(409);
      await t.kernel.sequelize.query('UPDATE auth_users SET two_factor_enabled = ?, totp_secret = ? WHERE email = ?', {
        replacements: [true, 'v1.placeholder', 'magic@example.com'],
      });
      await t.request('/api/user/magic-link', { method: 'POST', json: { email: 'magic@example.com' } });
      const again = await waitFor(() => smtp.inbox.filter((m) => m.to.includes('magic@example.com')).at(1), 'a second magic link');
      const twoStep = await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token: tokenIn(again.text)! } });
      expect((await twoStep.json()).data).to.deep.include({ requires2FA: true });
      expect(cookie(twoStep, 'session')).to.equal(null);
      expect(cookie(twoStep, '2fa_pending')).to.not.equal(null);
    });

    it('a magic link lives 15 minutes: its row expires 15 minutes after issue, and past that it is 410 TOKEN_EXPIRED', async function () {
      await users().create({ email: 'slow-magic@example.com', password: PASSWORD, role: 'viewer' });
      await t.request('/api/user/magic-link', { method: 'POST', json: { email: 'slow-magic@example.com' } });
      const token = tokenIn((await mailTo('slow-magic@example.com', 'Your sign-in link')).text)!;
      const [row] = await t.kernel.sequelize.query<{ id: string; created_at: number; expires_at: number }>(
        'SELECT id, created_at, expires_at FROM auth_tokens WHERE kind = ? AND email = ?',
        { replacements: ['magic', 'slow-magic@example.com'], type: QueryTypes.SELECT },
      );
      expect(Number(row!.expires_at) - Number(row!.created_at)).to.equal(15 * 60 * 1000);
      // Issued 15 minutes and a second ago:
      await t.kernel.sequelize.query('UPDATE auth_tokens SET created_at = ?, expires_at = ? WHERE id = ?', {
        replacements: [Date.now() - 15 * 60 * 1000 - 1000, Date.now() - 1000, row!.id],
      });
      const late = await t.request('/api/user/magic-link/verify', { method: 'POST', json: { token } });
      expect(late.status).to.equal(410);
      expect((await late.json()).error).to.equal('TOKEN_EXPIRED');
      expect(responseCookie(late)).to.equal(null);
    });

    it('keeps only the SHA-256 of reset, magic-link and invitation tokens: no row holds a raw token', async function () {
      await users().create({ email: 'hashes@example.com', password: PASSWORD, role: 'viewer' });
      await t.request('/api/user/forgot-password', { method: 'POST', json: { email: 'hashes@example.com' } });
      await t.request('/api/user/magic-link', { method: 'POST', json: { email: 'hashes@example.com' } });
      const reset = tokenIn((await mailTo('hashes@example.com', 'Reset your password')).text)!;
      const magic = tokenIn((await mailTo('hashes@example.com', 'Your sign-in link')).text)!;
      const invite = await t.request('/api/token/create-token', {
        method: 'POST',
        identity: 'admin',
        json: { email: 'hash-invitee@example.com', role: 'viewer' },
      });
      const invitation = (await invite.json()).data.token as string;
      const rows = await t.kernel.sequelize.query<Record<string, unknown>>('SELECT * FROM auth_tokens', { type: QueryTypes.SELECT });
      const table = JSON.stringify(rows);
      for (const [kind, token] of [
        ['reset', reset],
        ['magic', magic],
        ['invite', invitation],
      ] as const) {
        expect(token, kind).to.be.a('string').with.length.greaterThan(20);
        expect(table, `${kind}: the raw token`).to.not.include(token);
        const hash = createHash('sha256').update(token).digest('hex');
        expect(
          rows.filter((r) => r.token_hash === hash).map((r) => r.kind),
          `${kind}: its hash`,
        ).to.deep.equal([kind]);
      }
    });

    it('invitations: created by user:manage, validated publicly, used once to sign up with their role', async function () {
      expect(
        (
          await t.request('/api/token/create-token', {
            method: 'POST',
            identity: 'editor',
            json: { email: 'invitee@example.com', role: 'viewer' },
          })
        ).status,
      ).to.equal(403);
      const created = await t.request('/api/token/create-token', {
        method: 'POST',
        identity: 'admin',
        json: { email: 'Invitee@example.com', role: 'viewer', sendEmail: true },
      });
      expect(created.status).to.equal(200);
      const { token, expiresAt } = (await created.json()).data;
      expect(Date.parse(expiresAt) - Date.now()).to.be.within(71 * 3600e3, 72 * 3600e3);
      const invitation = await mailTo('invitee@example.com', 'You are invited');
      expect(tokenIn(invitation.text)).to.equal(token);
      const check = await t.request(`/api/token/${token}`);
      expect(check.status).to.equal(200);
      expect((await check.json()).data).to.deep.equal({ email: 'invitee@example.com', role: 'viewer', expiresAt, valid: true });
      const resolved = (await (await t.request('/api/token/resolve', { method: 'POST', json: { token } })).json()).data;
      expect(resolved).to.include({ email: 'invitee@example.com', role: 'viewer', valid: true, userExists: false });
      const list = (await (await t.request('/api/token/list', { identity: 'admin' })).json()).data;
      const entry = list.find((i: { email: string }) => i.email === 'invitee@example.com');
      expect(entry).to.include({ role: 'viewer', status: 'active' });
      expect(JSON.stringify(list)).to.not.include(token);
      // GET /api/token is the spec's name for the same list.
      const alias = await t.request('/api/token', { identity: 'admin' });
      expect(alias.status).to.equal(200);
      expect((await alias.json()).data).to.deep.equal(list);
      expect((await t.request('/api/token', { identity: 'editor' })).status).to.equal(403);
      const signup = await t.request('/api/user/register', { method: 'POST', json: { token, password: 'invitee password' } });
      expect(signup.status).to.equal(201);
      expect((await signup.json()).data.user).to.include({ email: 'invitee@example.com', role: 'viewer' });
      expect((await t.request('/api/user/me', { headers: { cookie: cookie(signup, 'session')! } })).status).to.equal(200);
      const used = await t.request(`/api/token/${token}`);
      expect(used.status).to.equal(409);
      expect((await used.json()).error).to.equal('TOKEN_ALREADY_CONSUMED');
      expect((await t.request('/api/token/not-a-real-token')).status).to.equal(404);
    });

    it('a revoked invitation stops working at once', async function () {
      const { token } = (
        await (
          await t.request('/api/token', { method: 'POST', identity: 'admin', json: { email: 'late@example.com', role: 'editor' } })
        ).json()
      ).data;
      const [row] = await t.kernel.sequelize.query<{ id: string }>('SELECT id FROM auth_tokens WHERE email = ?', {
        replacements: ['late@example.com'],
        type: QueryTypes.SELECT,
      });
      expect((await t.request(`/api/token/${row!.id}`, { method: 'DELETE', identity: 'admin' })).status).to.equal(200);
      expect((await t.request(`/api/token/${token}`)).status).to.equal(404);
      expect((await t.request('/api/user/register', { method: 'POST', json: { token, password: 'whatever password' } })).status).to.equal(
        404,
      );
    });
  });
}

describe('mail without SMTP: the outbox folder', function () {
  this.timeout(30000);
  it('writes the reset mail as an .eml file under <data>/outbox', async function () {
    const t = await startTestKernel({ config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } });
    try {
      await createUsers(t, { email: 'outbox@example.com', password: PASSWORD, role: 'editor' });
      await t.request('/api/user/forgot-password', { method: 'POST', json: { email: 'outbox@example.com' } });
      await t.kernel.container.resolve<{ settled(): Promise<void> }>('emailFlows').settled();
      const dir = join(t.dataDir, 'outbox');
      expect(existsSync(dir)).to.equal(true);
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
      expect(files).to.have.length(1);
      const mail = await simpleParser(readFileSync(join(dir, files[0]!)));
      expect(mail.subject).to.equal('Reset your password');
      expect((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text).to.equal('outbox@example.com');
      expect(tokenIn(mail.text ?? '')).to.be.a('string');
    } finally {
      await t.close();
    }
  });
});
