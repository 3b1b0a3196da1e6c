import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openAdminPage, useAdminUi } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { seriousViolations } from '../helpers/axe.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

const POLYLANG = join(PROJECT_ROOT, 'test', 'fixtures', 'imports-handmade', 'polylang-en-de.wxr.xml');

/** The next preview's answer while `act` runs. */
async function withPreview(page: Page, act: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/importers/preview') && r.ok()), act()]);
}

for (const variant of DB_VARIANTS) {
  describe(`admin UI: the importer's languages (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t } = useAdminUi(variant);

    it('shows the languages of a Polylang export and their locales; leaving one out and choosing it again; the import writes both', async () => {
      const page = await openAdminPage(b, t, 'importers', 'Import from another CMS');
      await page.getByLabel('Export file').setInputFiles(POLYLANG);
      await page.getByRole('button', { name: 'Upload and analyse' }).click();
      await page.getByRole('heading', { name: 'Detected format' }).waitFor();
      await withPreview(page, () => page.getByRole('button', { name: 'Preview mappings' }).click());
      await page.getByRole('heading', { name: 'Languages' }).waitFor();
      const english = page.getByTestId('locale-en');
      const german = page.getByTestId('locale-de');
      expect(await english.getByLabel('Locale for the language en').inputValue()).to.equal('use:en');
      expect(await english.innerText()).to.match(/The entries' own values/);
      // No locale `de` yet: the import creates it (the administrator may).
      expect(await german.getByLabel('Locale for the language de').inputValue()).to.equal('create:de');
      expect(await german.innerText()).to.match(/The import creates this locale/);
      expect(await seriousViolations(page)).to.deep.equal([]);

      await withPreview(page, () => german.getByLabel('Locale for the language de').selectOption('skip'));
      await german.getByText('These records are not imported.').waitFor();
      await withPreview(page, () => german.getByLabel('Locale for the language de').selectOption('create:de'));
      await german.getByText(/The import creates this locale/).waitFor();

      await page.getByLabel('Where the posts go').selectOption('new');
      await page.getByLabel('Name of the new collection for posts').fill('pll_ui_posts');
      await withPreview(page, () => page.getByRole('button', { name: 'Update preview' }).click());
      await page.getByLabel(/I have reviewed the mappings/).check();
      await page.getByRole('button', { name: 'Start import' }).click();
      await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60000 });

      const list = await (await b.context.request.get(`${t.url}/api/collections/pll_ui_posts?locale=de&limit=10`)).json();
      const titles = list.data.items.map((e: Record<string, unknown>) => e.title).sort();
      // The translated post in German, the English-only one from the default locale.
      expect(titles).to.deep.equal(['Brotpudding mit Butter – „Omas Art“', 'Only in English']);
    });
  });
}
