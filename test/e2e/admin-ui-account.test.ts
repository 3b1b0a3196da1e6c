import { expect } from 'chai';
import { generate } from 'otplib';
import { signInWithApi, startUiKernel, useBrowser } from '../helpers/browser.js';
import type { TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: account page in the browser (${variant.name})`, function () {
    this.timeout(90000);
    const b = useBrowser();
    let t: TestKernel;
    const users = () => t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
    before(async function () {
      requireVariant(this, variant);
      // Two browsers of the same user on the same kind of device: both sessions stay.
      t = await startUiKernel({
        db: variant.name,
        config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      });
      await users().create({ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
      await users().create({ email: 'ed@example.com', password: PASSWORD, role: 'editor', username: 'Ed' });
      await users().create({ email: 'kim@example.com', password: PASSWORD, role: 'editor', username: 'Kim' });
      await users().create({ email: 'pat@example.com', password: PASSWORD, role: 'viewer', username: 'Pat' });
    });
    after(async () => t?.close());

    it('revokes another session of the same user after asking for the password; that browser is signed out', async function () {
      const { page, context } = b;
      const other = await b.newContext();
      await signInWithApi(other, t.url, 'ada@example.com', PASSWORD);
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      const otherPage = await other.newPage();
      await otherPage.goto(`${t.url}/admin/account`);
      await otherPage.getByRole('heading', { name: 'Account', level: 1 }).waitFor();

      await page.goto(`${t.url}/admin/account`);
      const sessions = page.getByRole('region', { name: 'Active sessions' });
      await sessions.locator('[data-testid="session"]').nth(1).waitFor();
      expect(await sessions.locator('[data-testid="session"]').count()).to.equal(2);
      const theOther = sessions.locator('[data-testid="session"][data-current="false"]');
      await theOther.getByRole('button', { name: /sign out the session/i }).click();

      const dialog = page.getByRole('dialog', { name: 'Confirm your password' });
      await dialog.getByLabel('Your password').fill('not my password');
      await dialog.getByRole('button', { name: 'Confirm and revoke' }).click();
      await dialog.getByRole('alert').getByText('That password is not correct.').waitFor();
      await dialog.getByLabel('Your password').fill(PASSWORD);
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'DELETE' && /\/api\/user\/sessions\//.test(r.url()) && r.ok()),
        dialog.getByRole('button', { name: 'Confirm and revoke' }).click(),
      ]);
      await sessions.locator('[data-testid="session"][data-current="false"]').waitFor({ state: 'detached' });
      expect(await sessions.locator('[data-testid="session"]').count()).to.equal(1);

      // The other browser is signed out: its next page load goes to the sign-in page.
      await otherPage.reload();
      await otherPage.waitForURL(/\/login\?returnTo=/);
      // This browser still works.
      const me = await context.request.get(`${t.url}/api/user/me`);
      expect(me.status()).to.equal(200);
    });

    it('changes the password with the current one: wrong one refused, then the new one signs in', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'pat@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/account`);
      const section = page.getByRole('region', { name: 'Password' });
      await section.getByLabel('Current password').fill('not my password');
      await section.getByLabel(/^New password \(/).fill('pats new password');
      await section.getByLabel('New password again').fill('pats new password');
      await section.getByRole('button', { name: 'Change password' }).click();
      await section.getByRole('alert').getByText('The current password is not right.').waitFor();
      await section.getByLabel('Current password').fill(PASSWORD);
      await section.getByRole('button', { name: 'Change password' }).click();
      await section
        .getByRole('status')
        .getByText(/Password changed/)
        .waitFor();
      const old = await t.request('/api/user/login', { method: 'POST', json: { email: 'pat@example.com', password: PASSWORD } });
      expect(old.status).to.equal(401);
      const fresh = await t.request('/api/user/login', {
        method: 'POST',
        json: { email: 'pat@example.com', password: 'pats new password' },
      });
      expect(fresh.status).to.equal(200);
    });

    it('sets up two-factor authentication from a QR code and a code computed here; the backup codes are shown', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ed@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/account`);
      const section = page.getByRole('region', { name: 'Two-factor authentication' });
      await section.getByTestId('2fa-status').getByText('Off').waitFor();
      await section.getByRole('button', { name: 'Set up two-factor authentication' }).click();
      const qr = section.getByRole('img', { name: 'QR code for your authenticator app' });
      await qr.waitFor();
      expect(await qr.getAttribute('src')).to.match(/^data:image\/png;base64,/);
      expect(await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).to.be.greaterThan(100);
      const secret = (await section.getByTestId('totp-secret').textContent())!.trim();
      expect(secret).to.match(/^[A-Z2-7]+=*$/);
      expect(await section.getByTestId('backup-codes').locator('li').count()).to.equal(10);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        section.getByRole('button', { name: 'Download codes' }).click(),
      ]);
      expect(download.suggestedFilename()).to.equal('backup-codes.txt');
      const { readFile } = await import('node:fs/promises');
      const saved = await readFile((await download.path())!, 'utf8');
      const shown = await section.getByTestId('backup-codes').locator('code').allTextContents();
      for (const c of shown) expect(saved).to.include(c);

      await section.getByLabel('3. Code from the app').fill('000000');
      await section.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
      await section.getByRole('alert').getByText('Invalid verification code').waitFor();
      await section.getByLabel('3. Code from the app').fill(await generate({ secret }));
      await section.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
      await section.getByTestId('2fa-status').getByText('On').waitFor();
      expect(await section.getByTestId('2fa-status').textContent()).to.match(/10 backup codes left/);

      // New backup codes replace the old ones and are shown once.
      await section.getByRole('button', { name: 'New backup codes' }).click();
      await section.getByTestId('backup-codes').waitFor();
      expect(await section.getByTestId('backup-codes').locator('li').count()).to.equal(10);
      const status = await context.request.get(`${t.url}/api/auth/2fa/backup-codes`);
      expect((await status.json()).data.enabled).to.equal(true);
    });

    it('creates an API key and a website token whose secrets are shown once with a copy button, and revokes the key', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'kim@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/account`);
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByLabel('Name', { exact: true }).fill('Deploy script');
      // Every permission the server knows, grouped and described (GET /api/permissions); an editor can give
      // content:sync, and sees user:manage but cannot give it.
      const content = keys.getByRole('group', { name: 'Content' });
      const sync = content.getByRole('checkbox', { name: /Push and pull content between environments/ });
      await sync.waitFor();
      expect(await content.getByText('content:sync', { exact: true }).count()).to.equal(1);
      await sync.check();
      const users = keys.getByRole('group', { name: 'Users' });
      expect(await users.getByRole('checkbox', { name: /Create, block and delete users/ }).isDisabled()).to.equal(true);
      expect(await users.innerText()).to.contain('your role does not have it');
      await keys.getByRole('group', { name: 'Media' }).waitFor();
      await keys.getByRole('button', { name: 'Create API key' }).click();
      const secret = keys.getByLabel('New API key');
      await secret.waitFor();
      const key = await secret.inputValue();
      expect(key).to.match(/^sck_/);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      await keys.getByRole('button', { name: 'Copy' }).click();
      await keys.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(key);
      const list = await t.request('/api/collections', { headers: { authorization: `Bearer ${key}` } });
      expect(list.status).to.not.equal(401);
      await keys.getByRole('button', { name: 'Done' }).click();
      await keys.getByRole('cell', { name: 'Deploy script', exact: true }).waitFor();
      await keys.getByRole('cell', { name: 'content:read, content:sync' }).waitFor();
      page.once('dialog', (d) => void d.accept());
      await keys.getByRole('button', { name: 'Revoke Deploy script' }).click();
      await keys.getByText('No API keys yet.').waitFor();
      const after = await t.request('/api/collections', { headers: { authorization: `Bearer ${key}` } });
      expect(after.status).to.equal(401);

      // A website token acts as its creator.
      const tokens = page.getByRole('region', { name: 'Website tokens' });
      await tokens.getByLabel('Name', { exact: true }).fill('Marketing site');
      await tokens.getByLabel('Expires').selectOption('30d');
      await tokens.getByRole('button', { name: 'Create website token' }).click();
      const token = await tokens.getByLabel('New website token').inputValue();
      const me = await t.request('/api/user/me', { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).to.equal(200);
      expect((await me.json()).data.email).to.equal('kim@example.com');
      await tokens.getByRole('cell', { name: 'Marketing site', exact: true }).waitFor();
    });
  });
}
