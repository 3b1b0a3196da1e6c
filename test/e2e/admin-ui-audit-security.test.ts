import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery';

describe('admin UI: failed sign-ins in the browser reach the security and audit widgets', function () {
  this.timeout(90000);
  const b = useBrowser();
  const t = useUiKernel(
    { config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
    {
      seed: async () => {
        const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
        await users.create({ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
        await users.create({ email: 'mallory@example.com', password: PASSWORD, role: 'editor', username: 'Mallory' });
      },
    },
  );

  /** One sign-in attempt through the form; resolves the error code the page shows. */
  async function attempt(page: Page, password: string): Promise<string | null> {
    await page.getByLabel('Password').fill(password);
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/user/login') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return alert.getAttribute('data-code');
  }

  it('five wrong passwords lock the account; the admin sees the lockout and the failed sign-ins', async function () {
    const { page, context } = b;
    await page.goto(`${t.url}/login`);
    await page.getByLabel('Email').fill('mallory@example.com');
    for (let i = 1; i <= 5; i++) expect(await attempt(page, `wrong password ${i}`)).to.equal('INVALID_CREDENTIALS');
    // The sixth try, even with the right password, meets the lock.
    expect(await attempt(page, PASSWORD)).to.equal('ACCOUNT_LOCKED');

    await context.clearCookies();
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add widget' }).click();
    const picker = page.getByRole('region', { name: 'Available widgets' });
    for (const name of ['Security', 'Audit log']) {
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT' && r.ok()),
        picker.getByRole('button', { name: `Add ${name}` }).click(),
      ]);
    }
    const grid = page.getByRole('list', { name: 'Widgets' });
    const security = grid.locator('[data-widget="security"]');
    await security
      .getByText('Account mallory@example.com locked for 15 minutes for unknown clients after 5 failed attempts (password)')
      .first()
      .waitFor();
    await security.getByText(/^6 failed sign-ins from one address \(hash:[0-9a-f]{16}\) within 15 minutes/).waitFor();
    const audit = grid.locator('[data-widget="audit-log"]');
    await audit.getByText('Sign-in failed for mallory@example.com: wrong password').first().waitFor();
    await audit.getByText('Sign-in failed for mallory@example.com: the account is locked').waitFor();
    expect(await audit.getByText('Sign-in failed for mallory@example.com: wrong password').count()).to.equal(5);
    // No password typed in the form shows up anywhere on the dashboard.
    expect(await page.locator('body').innerText()).to.not.include('wrong password 1');
  });
});
