import { expect } from 'chai';
import { generate } from 'otplib';
import { QueryTypes } from 'sequelize';
import { type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { responseCookie } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const cookie = responseCookie;
const codeAt = (secret: string, offsetSeconds = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

for (const variant of DB_VARIANTS) {
  describe(`two-factor authentication (${variant.name})`, function () {
    this.timeout(60000);
    let n = 0;
    const t = useTestKernel(
      {
        db: variant.name,
        config: { plugins: { options: { auth: { bcryptRounds: 4, issuer: 'Acme CMS', sessionDevicePolicy: 'allow-multiple' } } } },
      },
      { variant },
    );

    const login = (email: string) => t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
    async function newUser(): Promise<{ email: string; session: string }> {
      const email = `twofa-${++n}@example.com`;
      await createUsers(t, { email, password: PASSWORD, role: 'editor' });
      return { email, session: cookie(await login(email), 'session')! };
    }
    async function enable(session: string): Promise<{ secret: string; backupCodes: string[] }> {
      const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
      const res = await t.request('/api/auth/2fa/verify-setup', {
        method: 'POST',
        headers: { cookie: session },
        json: { secret: setup.secret, verificationCode: await codeAt(setup.secret), backupCodes: setup.backupCodes },
      });
      expect(res.status).to.equal(200);
      return setup;
    }
    /** Password step, then the code from the same client (its pending cookie). */
    async function twoStep(email: string, code: string, sendPending = true): Promise<TestResponse> {
      const first = await login(email);
      const body = (await first.json()).data;
      expect(body).to.deep.include({ requires2FA: true });
      expect(cookie(first, 'session'), 'no session before the second step').to.equal(null);
      const pending = cookie(first, '2fa_pending')!;
      return t.request('/api/auth/2fa/verify', {
        method: 'POST',
        headers: sendPending ? { cookie: pending } : {},
        json: { userId: body.userId, code },
      });
    }

    it('setup returns the spec bundle once and activates nothing', async function () {
      const { email, session } = await newUser();
      const res = await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } });
      expect(res.status).to.equal(200);
      const body = await res.json();
      expect(body).to.have.keys(['success', 'data', 'message']);
      expect(body.success).to.equal(true);
      const { secret, qrCodeURL, manualEntryDetails, backupCodes } = body.data;
      expect(secret).to.match(/^[A-Z2-7]{16,}$/);
      expect(qrCodeURL)
        .to.match(/^otpauth:\/\/totp\//)
        .and.include(`secret=${secret}`)
        .and.include('issuer=Acme');
      expect(manualEntryDetails).to.deep.equal({ issuer: 'Acme CMS', account: email, secret, algorithm: 'SHA1', digits: 6, period: 30 });
      expect(backupCodes).to.have.length(10);
      for (const c of backupCodes) expect(c).to.match(/^[A-Z0-9]{8}$/);
      const status = await (await t.request('/api/auth/2fa/backup-codes', { headers: { cookie: session } })).json();
      expect(status).to.deep.equal({
        success: true,
        data: { enabled: false, hasBackupCodes: false, backupCodesCount: 0, lastVerification: null },
      });
    });

    it('verify-setup needs the issued secret and a valid code; then the secret is stored encrypted and the codes hashed', async function () {
      const { email, session } = await newUser();
      const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
      const attempt = (json: object) => t.request('/api/auth/2fa/verify-setup', { method: 'POST', headers: { cookie: session }, json });
      const wrongCode = await attempt({ secret: setup.secret, verificationCode: '000000', backupCodes: setup.backupCodes });
      expect(wrongCode.status).to.equal(400);
      expect(await wrongCode.json()).to.deep.equal({ message: 'Invalid verification code' });
      const wrongSecret = await attempt({
        secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        verificationCode: await codeAt(setup.secret),
        backupCodes: setup.backupCodes,
      });
      expect(wrongSecret.status).to.equal(400);
      const ok = await attempt({ secret: setup.secret, verificationCode: await codeAt(setup.secret), backupCodes: setup.backupCodes });
      expect(ok.status).to.equal(200);
      expect(await ok.json()).to.deep.equal({ success: true, message: 'Two-factor authentication is enabled' });
      const [row] = await t.kernel.sequelize.query<{ totp_secret: string; backup_codes: string }>(
        'SELECT totp_secret, backup_codes FROM auth_users WHERE email = ?',
        { replacements: [email], type: QueryTypes.SELECT },
      );
      expect(row!.totp_secret).to.match(/^v1\./).and.not.include(setup.secret);
      const hashes = JSON.parse(row!.backup_codes) as string[];
      expect(hashes).to.have.length(10);
      for (const h of hashes) expect(h).to.match(/^\$argon2id\$v=19\$m=65536,/);
      expect(row!.backup_codes).to.not.include(setup.backupCodes[0]);
      const again = await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } });
      expect(again.status).to.equal(400);
      expect(await again.json()).to.deep.equal({ message: '2FA is already enabled' });
      expect(
        (await attempt({ secret: setup.secret, verificationCode: await codeAt(setup.secret), backupCodes: setup.backupCodes })).status,
      ).to.equal(400);
      expect((await (await t.request('/api/user/me', { headers: { cookie: session } })).json()).data.is2FAEnabled).to.equal(true);
    });

    it("signs in in two steps bound to the client; a TOTP code works once, the next period's too", async function () {
      const { email, session } = await newUser();
      const { secret } = await enable(session);
      const wrong = await twoStep(email, '123456');
      expect(wrong.status).to.equal(200);
      expect(await wrong.json()).to.deep.equal({
        success: false,
        message: 'Invalid verification code',
        method: 'totp',
        backupCodeUsed: false,
        reason: 'invalid-code',
      });
      const code = await codeAt(secret, 30);
      const otherClient = await twoStep(email, code, false);
      expect((await otherClient.json()).success, 'without the pending cookie').to.equal(false);
      const ok = await twoStep(email, code);
      expect(await ok.json()).to.deep.equal({ success: true, message: 'Verification successful', method: 'totp', backupCodeUsed: false });
      const newSession = cookie(ok, 'session')!;
      expect((await t.request('/api/user/me', { headers: { cookie: newSession } })).status).to.equal(200);
      const replay = await twoStep(email, code);
      expect(await replay.json(), 'the same code a second time').to.deep.equal({
        success: false,
        message: 'This code has already been used; wait for the next code in your authenticator app',
        method: 'totp',
        backupCodeUsed: false,
        reason: 'code-already-used',
      });
      const older = await twoStep(email, await codeAt(secret));
      expect((await older.json()).success, 'a code from before the accepted step').to.equal(false);
    });

    it('accepts a code of the previous period (window -1), never one of two periods back', async function () {
      const { email, session } = await newUser();
      const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
      const verifySetup = (code: string) =>
        t.request('/api/auth/2fa/verify-setup', {
          method: 'POST',
          headers: { cookie: session },
          json: { secret: setup.secret, verificationCode: code, backupCodes: setup.backupCodes },
        });
      // 60 s back is always two periods back; 30 s back always the previous period.
      expect((await verifySetup(await codeAt(setup.secret, -60))).status, 'two periods back').to.equal(400);
      expect((await verifySetup(await codeAt(setup.secret, -30))).status, 'the previous period').to.equal(200);
      // As if 2FA had been set up long ago, so no accepted step is recorded yet:
      await t.kernel.sequelize.query('UPDATE auth_users SET last_totp_step = NULL WHERE email = ?', { replacements: [email] });
      expect((await (await twoStep(email, await codeAt(setup.secret, -60))).json()).success, 'two periods back').to.equal(false);
      const previous = await twoStep(email, await codeAt(setup.secret, -30));
      expect((await previous.json()).success, 'the previous period at sign-in').to.equal(true);
      expect(cookie(previous, 'session')).to.not.equal(null);
    });

    it('accepts each backup code once, says how many remain, and regenerating invalidates the old set', async function () {
      const { email, session } = await newUser();
      const { backupCodes } = await enable(session);
      const used = await twoStep(email, backupCodes[3]!.toLowerCase());
      expect(await used.json()).to.deep.equal({
        success: true,
        message: 'Backup code accepted; 9 backup codes remaining',
        method: 'backup',
        backupCodeUsed: true,
      });
      expect(await (await twoStep(email, backupCodes[3]!)).json(), 'the spent code again').to.deep.equal({
        success: false,
        message: 'This backup code has already been used; each one works once. Use another backup code or your authenticator app',
        method: 'backup',
        backupCodeUsed: false,
        reason: 'code-already-used',
      });
      // A code that was never issued is still just invalid.
      expect((await (await twoStep(email, 'ZZZZ9999')).json()).reason).to.equal('invalid-code');
      const status = (await (await t.request('/api/auth/2fa/backup-codes', { headers: { cookie: session } })).json()).data;
      expect(status).to.include({ enabled: true, hasBackupCodes: true, backupCodesCount: 9 });
      expect(status.lastVerification).to.be.a('string');
      const regen = await t.request('/api/auth/2fa/backup-codes', { method: 'POST', headers: { cookie: session } });
      const fresh = (await regen.json()).data.backupCodes as string[];
      expect(fresh).to.have.length(10);
      expect((await (await twoStep(email, backupCodes[5]!)).json()).success, 'an old code after regeneration').to.equal(false);
      expect((await (await twoStep(email, fresh[0]!)).json()).success).to.equal(true);
    });

    it('disable turns it off; disable and regenerate without 2FA answer 400 {message}', async function () {
      const { email, session } = await newUser();
      await enable(session);
      const off = await t.request('/api/auth/2fa/disable', { method: 'POST', headers: { cookie: session } });
      expect(await off.json()).to.deep.equal({ success: true, message: 'Two-factor authentication is disabled' });
      const direct = await login(email);
      expect((await direct.json()).data.user.email).to.equal(email);
      expect(cookie(direct, 'session')).to.not.equal(null);
      for (const path of ['/api/auth/2fa/disable', '/api/auth/2fa/backup-codes']) {
        const res = await t.request(path, { method: 'POST', headers: { cookie: session } });
        expect(res.status, path).to.equal(400);
        expect(await res.json(), path).to.deep.equal({ message: '2FA is not enabled' });
      }
    });

    it('answers {message} shapes for callers without a session, and counts wrong codes toward the lockout', async function () {
      const anonymous = await t.request('/api/auth/2fa/setup', { method: 'POST' });
      expect(anonymous.status).to.equal(401);
      expect(await anonymous.json()).to.deep.equal({ message: 'Authentication required' });
      const { email, session } = await newUser();
      const { secret } = await enable(session);
      for (let i = 0; i < 5; i++) await twoStep(email, '000000');
      // Signing in with the password again does not reset the failed codes.
      const locked = await login(email);
      expect(locked.status).to.equal(403);
      expect((await locked.json()).error).to.equal('ACCOUNT_LOCKED');
      expect(secret).to.be.a('string');
    });
  });
}
