import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openAdminPage, PASSWORD, signInWithApi, useAdminUi } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Browser globals used inside page functions (the project compiles without the DOM library).
declare const document: { body: unknown; documentElement: unknown; querySelector(s: string): unknown };
declare function getComputedStyle(el: unknown): { backgroundColor: string; outlineColor: string; getPropertyValue(p: string): string };
const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

for (const variant of DB_VARIANTS) {
  describe(`admin UI: themes page in the browser (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t } = useAdminUi(variant);

    async function importBundled(page: Page, name: string) {
      const section = page.getByRole('region', { name: 'Import a preset' });
      await section.getByLabel('Bundled preset').check();
      await section.getByRole('combobox').selectOption({ label: name });
      await section.getByRole('button', { name: 'Import preset' }).click();
      await section.getByTestId('import-result').getByText(`"${name}" was imported`).waitFor();
      await page.getByTestId('themes').locator(`tr[data-theme="${name}"]`).waitFor();
    }

    it('imports presets, and activating another theme changes the UI at once (no reload)', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'themes', 'Themes');
      await importBundled(page, 'Default');
      await importBundled(page, 'Forest');
      const list = page.getByTestId('themes');
      // The first theme of the tenant became the active one.
      await list.locator('tr[data-theme="Default"]').getByText('Active').waitFor();
      await page.reload();
      await list.locator('tr[data-theme="Forest"]').waitFor();
      const before = { bg: await style(page, 'body', 'background-color'), text: await style(page, 'body', 'color') };

      let navigations = 0;
      page.on('framenavigated', (f) => {
        if (f === page.mainFrame()) navigations++;
      });
      await page.getByRole('button', { name: 'Activate Forest' }).click();
      await list.locator('tr[data-theme="Forest"]').getByText('Active').waitFor();
      await page.waitForFunction((old) => getComputedStyle(document.body).backgroundColor !== old, before.bg);
      const after = { bg: await style(page, 'body', 'background-color'), text: await style(page, 'body', 'color') };
      expect(after.bg).to.equal('rgb(250, 250, 249)');
      expect(after.text).to.not.equal(before.text);
      expect(navigations).to.equal(0);

      // And back: the default theme's colours return.
      await page.getByRole('button', { name: 'Activate Default' }).click();
      await page.waitForFunction((old) => getComputedStyle(document.body).backgroundColor === old, before.bg);
    });

    it('shows contrast warnings of an imported palette, and what the sanitiser removed from custom CSS (applied live)', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'themes');
      const section = page.getByRole('region', { name: 'Import a preset' });
      await section.getByLabel('Paste JSON').check();
      await section.getByLabel(/Theme JSON or palette/).fill(JSON.stringify({ name: 'Lemon', primary: '#ffff00', surface: '#ffffee' }));
      await section.getByRole('button', { name: 'Import preset' }).click();
      const result = section.getByTestId('import-result');
      await result.getByText(/"Lemon" was imported with \d+ warnings?/).waitFor();
      expect(await result.locator('li').first().textContent()).to.match(/below WCAG AA/);

      const css = page.getByRole('region', { name: 'Custom CSS' });
      await css
        .getByLabel(/Custom CSS/)
        .fill(
          '@import "https://evil.example/x.css";\n.card { outline: 3px solid rgb(1, 2, 3); background-image: url(https://evil.example/p.png); }',
        );
      await css.getByRole('button', { name: 'Save CSS' }).click();
      const removed = css.getByTestId('css-removed');
      await removed.waitFor();
      const text = await removed.textContent();
      expect(text).to.match(/@import/);
      expect(text).to.match(/url\(/);
      expect(await css.getByLabel(/Custom CSS/).inputValue()).to.not.match(/evil\.example/);
      await page.waitForFunction(() => getComputedStyle(document.querySelector('.card')!).outlineColor === 'rgb(1, 2, 3)');
    });

    it('saves density and card style of the active theme', async function () {
      const { page, context } = b;
      await openAdminPage(b, t, 'themes');
      const settings = page.getByRole('region', { name: 'Settings of the active theme' });
      await settings.getByLabel('Spacious').check();
      await settings.getByLabel('Elevated').check();
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/theme/admin-theme') && r.request().method() === 'POST' && r.ok()),
        settings.getByRole('button', { name: 'Save settings' }).click(),
      ]);
      const effective = await (await context.request.get(`${t.url}/api/theme/effective`)).json();
      expect(effective.data.settings.density).to.equal('spacious');
      expect(effective.data.settings.variant).to.equal('elevated');
      await page.waitForFunction(() => getComputedStyle(document.documentElement).getPropertyValue('--card-shadow').trim() !== 'none');
    });

    it("a user's own density overrides the theme's from the account page, unless the theme locks it", async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await context.request.post(`${t.url}/api/theme/admin-theme`, { data: { density: 'cozy', lockedSettings: { density: false } } });
      await page.goto(`${t.url}/admin/account`);
      const section = page.getByRole('region', { name: 'Appearance' });
      await section.getByLabel('Density').selectOption('compact');
      await section.getByRole('button', { name: 'Save appearance' }).click();
      await page.waitForFunction(() => (document.documentElement as { dataset?: Record<string, string> }).dataset?.density === 'compact');

      await context.request.post(`${t.url}/api/theme/admin-theme`, { data: { lockedSettings: { density: true } } });
      await page.reload();
      await page.waitForFunction(() => (document.documentElement as { dataset?: Record<string, string> }).dataset?.density === 'cozy');
      expect(await section.getByLabel('Density').isDisabled()).to.equal(true);
    });

    it('clones, sets the default and deletes themes', async function () {
      const { page, context } = b;
      await openAdminPage(b, t, 'themes');
      const list = page.getByTestId('themes');
      await page.getByLabel('New theme').fill('Plain');
      await page.getByRole('button', { name: 'Create theme' }).click();
      await list.locator('tr[data-theme="Plain"]').waitFor();
      await page.getByRole('button', { name: 'Clone Forest' }).click();
      await page.getByLabel('Name of the copy of "Forest"').fill('Forest night');
      await page.getByRole('button', { name: 'Clone', exact: true }).click();
      await list.locator('tr[data-theme="Forest night"]').waitFor();
      await page.getByRole('button', { name: 'Make Forest night the default' }).click();
      await list.locator('tr[data-theme="Forest night"]').getByText('Default', { exact: true }).waitFor();
      // The default theme cannot be deleted: no button for it.
      expect(await page.getByRole('button', { name: 'Delete Forest night' }).count()).to.equal(0);
      await page.getByRole('button', { name: 'Make Forest the default' }).click();
      await list.locator('tr[data-theme="Forest"]').getByText('Default', { exact: true }).waitFor();
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Delete Forest night' }).click();
      await list.locator('tr[data-theme="Forest night"]').waitFor({ state: 'detached' });
      const names = (await (await context.request.get(`${t.url}/api/theme/list`)).json()).data.map((x: { name: string }) => x.name);
      expect(names).to.not.include('Forest night');
    });
  });
}
