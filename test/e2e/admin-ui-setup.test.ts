import { expect } from 'chai';
import { useBrowser, useUiKernel } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: setup wizard in the browser (${variant.name})`, function () {
    this.timeout(90000);
    const b = useBrowser();
    const t = useUiKernel({ db: variant.name, setup: true }, { variant });

    it("goes from a fresh data folder to the dashboard: database test (with the driver's message on failure), seeding progress, admin account", async function () {
      const { page } = b;
      await page.goto(`${t.url}/`);
      await page.waitForURL(/\/setup$/);
      await page.getByRole('heading', { name: 'Set up your CMS' }).waitFor();
      await page.getByRole('heading', { name: 'Database' }).waitFor();

      // A MariaDB server that is not there: the driver's reason is shown, and Continue (which tests first) stays here.
      await page.getByLabel('MariaDB').check();
      await page.getByLabel('Host').fill('127.0.0.1');
      await page.getByLabel('Port').fill('1');
      await page.getByRole('button', { name: 'Test connection' }).click();
      const failure = page.getByTestId('db-result');
      await failure.getByText('Connection failed.').waitFor();
      expect(await failure.textContent())
        .to.match(/DB_CONNECTION_FAILED/)
        .and.match(/ECONNREFUSED|connect|refused/i);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('db-result').getByText('Connection failed.').waitFor();
      expect(await page.getByRole('heading', { name: 'Database' }).isVisible()).to.equal(true);

      // The database this instance runs on.
      const db = t.config.db;
      if (db.type === 'sqlite') {
        await page.getByLabel('SQLite').check();
        await page.getByLabel(/File name/).fill(db.storage);
      } else {
        await page.getByLabel('Port').fill(String(db.port));
        await page.getByLabel('Host').fill(db.host);
        await page.getByLabel('Database name').fill(db.name);
        await page.getByLabel('User').fill(db.user);
        await page.getByLabel('Password').fill(db.password ?? '');
      }
      if (db.type === 'sqlite') {
        // The embedded default: Continue tests the connection itself, no button to find first.
        await page.getByRole('button', { name: 'Continue' }).click();
      } else {
        await page.getByRole('button', { name: 'Test connection' }).click();
        await page.getByTestId('db-result').getByText('Connected.').waitFor();
        await page.getByRole('button', { name: 'Continue' }).click();
      }

      await page.getByRole('heading', { name: 'Administrator' }).waitFor({ timeout: 30000 });
      expect(await page.getByRole('progressbar').count(), 'the progress bar is gone once seeded').to.equal(0);
      await page.getByLabel('Site name').fill('Acme Docs');
      await page.getByLabel('Email', { exact: true }).fill('admin@example.com');
      // A short password is named as such while typing, and the form cannot be sent.
      await page.getByLabel(/^Password/).fill('short');
      expect(await page.getByTestId('password-short').textContent()).to.equal('Too short: 5 of at least 8 characters.');
      expect(await page.getByRole('button', { name: /Create administrator/ }).isDisabled()).to.equal(true);
      await page.getByLabel(/^Password/).fill('a long enough password');
      expect(await page.getByTestId('password-short').count()).to.equal(0);
      await page.getByLabel('Repeat the password').fill('a long enough password');
      await page.getByRole('button', { name: /Create administrator/ }).click();

      await page.waitForURL(/\/admin\/$/);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      await page.getByRole('button', { name: /admin/ }).first().waitFor();
      const status = (await (await t.request('/api/setup/status')).json()).data;
      expect(status).to.include({ state: 'ready', complete: true });
      // Setup is closed now: /setup sends the signed-in admin on to the app.
      await page.goto(`${t.url}/setup`);
      await page.waitForURL(/\/admin\/$/);
    });
  });
}
