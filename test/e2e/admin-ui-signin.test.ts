import { expect } from 'chai';
import { generate } from 'otplib';
import { setUpBy, useBrowser, useUiKernel } from '../helpers/browser.js';
import { responseCookie, type TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';
const codeAt = (secret: string, offsetSeconds = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

describe('admin UI: sign-in in the browser', function () {
  this.timeout(90000);
  const b = useBrowser();
  const users = () => t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
  const t = useUiKernel({ config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } } });

  /** A user with 2FA turned on through the API; returns the TOTP secret and the backup codes. */
  async function userWith2fa(email: string): Promise<{ secret: string; backupCodes: string[] }> {
    await users().create({ email, password: PASSWORD, role: 'editor', username: 'Erin' });
    const login = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
    const session = responseCookie(login)!;
    const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
    const ok = await t.request('/api/auth/2fa/verify-setup', {
      method: 'POST',
      headers: { cookie: session },
      json: { secret: setup.secret, verificationCode: await codeAt(setup.secret, -30), backupCodes: setup.backupCodes },
    });
    expect(ok.status).to.equal(200);
    await t.request('/api/user/logout', { method: 'POST', headers: { cookie: session } });
    return setup;
  }

  it('signs in with a password, then a TOTP code computed here, and lands on the page asked for', async function () {
    const { secret } = await userWith2fa('erin@example.com');
    const { page } = b;
    await page.goto(`${t.url}/admin/system`);
    await page.waitForURL(/\/login\?returnTo=/);
    await page.getByLabel('Email').fill('erin@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.getAttribute('data-code')).to.equal('INVALID_CREDENTIALS');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').getByText('Invalid verification code').waitFor();
    await page.getByLabel('Authentication code').fill(await codeAt(secret));
    // The answer is checked first, so a refused code says why instead of timing out on the URL.
    const [verified] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/auth/2fa/verify')),
      page.getByRole('button', { name: 'Verify' }).click(),
    ]);
    expect(await verified.json()).to.include({ success: true });
    await page.waitForURL(/\/admin\/system$/);
    await page.getByRole('heading', { name: 'System', level: 1 }).waitFor();
    await page.getByRole('button', { name: /Erin/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    expect((await page.context().cookies()).some((c) => c.name === 'session')).to.equal(false);
  });

  it('accepts a backup code as the second step', async function () {
    const { backupCodes } = await userWith2fa('bea@example.com');
    const { page } = b;
    await page.goto(`${t.url}/login`);
    await page.getByLabel('Email').fill('bea@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a backup code' }).click();
    await page.getByLabel('Backup code').fill(backupCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/admin\/$/);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  });

  it('shows the lockout with the remaining time after too many wrong passwords', async function () {
    await users().create({ email: 'lou@example.com', password: PASSWORD, role: 'viewer' });
    const { page } = b;
    await page.goto(`${t.url}/login`);
    await page.getByLabel('Email').fill('lou@example.com');
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Password').fill(`wrong ${i}`);
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/user/login')),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await page.locator('[data-code="INVALID_CREDENTIALS"]').waitFor();
    }
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const locked = page.locator('[data-code="ACCOUNT_LOCKED"]');
    await locked.waitFor();
    expect(await locked.textContent()).to.match(/Account locked\..*Try again in 1[45] min \d+ s/);
    expect(await page.getByRole('button', { name: 'Sign in' }).isDisabled()).to.equal(true);
  });

  it('requests a password reset and sets a new password on the page the mail links to', async function () {
    await users().create({ email: 'rita@example.com', password: PASSWORD, role: 'viewer' });
    const { page } = b;
    await page.goto(`${t.url}/login`);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill('rita@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').filter({ hasText: /./ }).first().waitFor();
    const link = await waitForMailLink(t, /\/reset-password\?token=[\w-]+/);
    await page.goto(`${t.url}${link}`);
    await page.getByLabel(/New password/).fill('a brand new password');
    await page.getByLabel('Repeat the password').fill('a brand new password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password has been changed').waitFor();
    const login = await t.request('/api/user/login', {
      method: 'POST',
      json: { email: 'rita@example.com', password: 'a brand new password' },
    });
    expect(login.status).to.equal(200);
  });

  it('requests a magic link and signs in by opening it', async function () {
    await users().create({ email: 'max@example.com', password: PASSWORD, role: 'editor', username: 'Max' });
    const { page } = b;
    await page.goto(`${t.url}/login`);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByLabel('Email').fill('max@example.com');
    await page.getByRole('button', { name: 'Send sign-in link' }).click();
    await page.locator('.alert.success').waitFor();
    const link = await waitForMailLink(t, /\/magic-link\?token=[\w-]+/);
    await page.goto(`${t.url}${link}`);
    await page.waitForURL(/\/admin\/$/);
    await page.getByRole('button', { name: /Max/ }).waitFor();
    // The link works once.
    const second = await b.newContext();
    const other = await second.newPage();
    await other.goto(`${t.url}${link}`);
    await other.getByText('This sign-in link has already been used.').waitFor();
  });
});

describe('admin UI: sign-in rate limit in the browser', function () {
  this.timeout(60000);
  const b = useBrowser();
  const t = useUiKernel({ config: { rateLimit: { enabled: true } } });

  it('says how long to wait when this browser made too many sign-in attempts', async function () {
    const { page } = b;
    await page.goto(`${t.url}/login`);
    let refused = false;
    for (let i = 0; i < 15 && !refused; i++) {
      await page.getByLabel('Email').fill(`nobody-${i}@example.com`);
      await page.getByLabel('Password').fill('not the password');
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/user/login')),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      refused = res.status() === 429;
    }
    expect(refused, 'the sign-in route refuses after its per-browser limit').to.equal(true);
    const alert = page.locator('[data-code="RATE_LIMITED"]');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/Too many attempts\..*Try again in (1 min 0 s|[1-5]?\d s)/);
    expect(await page.getByRole('button', { name: 'Sign in' }).isDisabled()).to.equal(true);
  });
});

/** The newest link of the given shape in the outbox (<data>/outbox/*.eml, the mail plugin without SMTP). */
async function waitForMailLink(t: TestKernel, pattern: RegExp): Promise<string> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = join(t.dataDir, 'outbox');
  for (let i = 0; i < 100; i++) {
    let names: string[] = [];
    try {
      names = readdirSync(dir)
        .filter((n) => n.endsWith('.eml'))
        .sort();
    } catch {
      names = [];
    }
    for (const name of names.reverse()) {
      const text = readFileSync(join(dir, name), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '=');
      const m = pattern.exec(text);
      if (m) return m[0];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail with ${pattern} in ${dir}`);
}

describe('admin UI: sign-in page offers the configured identity providers', function () {
  this.timeout(90000);
  const b = useBrowser();
  const t = useUiKernel({
    config: {
      plugins: {
        options: {
          auth: { bcryptRounds: 4 },
          'auth-oidc': {
            providers: {
              staff: { issuer: 'https://sso.example.com', clientId: 'cms', clientSecret: 'cms-secret', displayName: 'Staff SSO' },
              unset: { issuer: 'https://idp.example.com', clientId: 'cms', displayName: 'Not configured' },
            },
          },
        },
      },
    },
  });

  it('shows a button for each active provider that starts its sign-in and returns to the page asked for', async function () {
    const { page } = b;
    await page.goto(`${t.url}/login?returnTo=${encodeURIComponent('/admin/media')}`);
    const button = page.getByRole('link', { name: 'Continue with Staff SSO' });
    await button.waitFor();
    expect(await button.getAttribute('href')).to.equal(`/api/auth/oidc/staff/start?returnTo=${encodeURIComponent('/admin/media')}`);
    expect(await page.getByRole('link', { name: /Not configured/ }).count(), 'a provider without its secret is not offered').to.equal(0);
  });
});

// An instance set up as an operator would (the setup plugin, off in the other tests, holds SITE_NAME).
describe("admin UI: the site's name before sign-in", function () {
  this.timeout(90000);
  const b = useBrowser();
  const site = useUiKernel(setUpBy('owner@example.com'));

  it("uses the site's name on the sign-in page and as the authenticator app's issuer, and asks a guest for nothing that needs a session", async function () {
    try {
      await site.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings').set('SITE_NAME', 'Harbour Notes');
      const { page } = b;
      const refused: string[] = [];
      page.on('response', (r) => void (r.status() === 401 && refused.push(new URL(r.url()).pathname)));
      await page.goto(`${site.url}/login`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.locator('.brand', { hasText: 'Harbour Notes' }).waitFor();
      await page.waitForLoadState('networkidle');
      // The page asks whether a session exists (GET /api/user/me); nothing else is refused for want of one.
      expect(
        refused.filter((p) => p !== '/api/user/me'),
        'requests answered 401 while signed out',
      ).to.deep.equal([]);

      const login = await site.request('/api/user/login', { method: 'POST', json: { email: 'owner@example.com', password: PASSWORD } });
      const setup = (
        await (await site.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: responseCookie(login)! } })).json()
      ).data;
      expect(setup.manualEntryDetails.issuer).to.equal('Harbour Notes');
      expect(new URL(setup.qrCodeURL).searchParams.get('issuer')).to.equal('Harbour Notes');
    } finally {
      await site.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings').set('SITE_NAME', 'My CMS');
    }
  });
});
