import { expect } from 'chai';
import { join } from 'node:path';
import { openAdminPage, PASSWORD, signInWithApi, useAdminUi } from '../helpers/browser.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { seriousViolations } from '../helpers/axe.js';
import type { Page } from 'playwright-core';

/** axe-core on the page: no serious or critical violation. */
async function axeCheck(page: Page): Promise<void> {
  expect(await seriousViolations(page)).to.deep.equal([]);
}

const FIXTURES = join(IMPORT_FIXTURES, 'csv');

for (const variant of DB_VARIANTS) {
  describe(`admin UI: importers page in the browser (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t } = useAdminUi(variant);

    /** The importers page with `file` uploaded for analysis. */
    async function upload(page: Page, file: string): Promise<void> {
      await page.goto(`${t.url}/admin/importers`);
      await page.getByLabel('Export file').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload and analyse' }).click();
    }
    /** How many rows of the analysis summary are named `name`. */
    const summaryRows = (page: Page, name: RegExp) => page.getByTestId('summary').getByRole('row', { name }).count();
    /** "Update preview", until the new preview has come. */
    async function updatePreview(page: Page): Promise<void> {
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/importers/preview') && r.ok()),
        page.getByRole('button', { name: 'Update preview' }).click(),
      ]);
    }
    /** From the analysis to the reviewed mappings. */
    async function previewMappings(page: Page): Promise<void> {
      await page.getByRole('button', { name: 'Preview mappings' }).click();
      await page.getByRole('heading', { name: 'Mappings' }).waitFor();
    }

    it('uploads a TSV, shows the detected format and summary, previews with scaffold, imports with live progress and shows the results', async function () {
      const { page, context } = b;
      await openAdminPage(b, t, 'importers', 'Import from another CMS');

      await page.getByLabel('Export file').setInputFiles(`${FIXTURES}/maximal-countries.tsv`);
      await page.getByRole('button', { name: 'Upload and analyse' }).click();
      await page.getByRole('heading', { name: 'Detected format' }).waitFor();
      expect(await page.getByTestId('detected-format').innerText()).to.match(/csv/i);
      expect(await summaryRows(page, /rows 250/)).to.equal(1);

      await previewMappings(page);
      // No collection of that name yet: the rows go into a new collection, named in plain words.
      await page
        .getByTestId('what-rows')
        .getByText(/A new collection maximal_countries is created for them/)
        .waitFor();
      const target = await page.getByLabel('Name of the new collection for rows').inputValue();
      expect(target).to.match(/^[a-zA-Z][a-zA-Z0-9_]*$/);
      await page.getByText('Fields of rows').click();
      expect(await page.getByLabel('Target field for name en').inputValue()).to.not.equal('');

      await page.getByLabel(/I have reviewed the mappings/).check();
      const streamed = page.waitForResponse((r) => r.url().endsWith('/api/migration/import'));
      await page.getByRole('button', { name: 'Start import' }).click();
      expect((await streamed).headers()['content-type']).to.match(/text\/event-stream/);
      await page
        .getByTestId('import-progress')
        .waitFor()
        .catch(() => undefined);

      await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60000 });
      expect(await page.getByTestId('import-outcome').innerText()).to.match(/250 imported/);
      expect(
        await page
          .getByTestId('results')
          .getByRole('row', { name: /^rows 250/ })
          .count(),
      ).to.equal(1);
      await page.getByText('Progress log').click();
      const log = (await page.getByTestId('import-log').locator('li').allTextContents()).join('\n');
      expect(log).to.match(/Detecting the format/);
      expect(log).to.match(/Parsed 250 rows/);
      expect(log).to.match(/Imported \d+ of 250/);

      const entries = await context.request.get(`${t.url}/api/collections/${target}?limit=1`);
      expect(entries.status()).to.equal(200);
      const body = await entries.json();
      expect(body.data.total).to.equal(250);
    });

    it('imports csvkit-realdata-ks_1033_data.csv (1,575 rows, a background job) to the Results step; the same file again shows every row skipped and why', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      const importOnce = async () => {
        await upload(page, `${FIXTURES}/csvkit-realdata-ks_1033_data.csv`);
        await page.getByRole('heading', { name: 'Detected format' }).waitFor();
        expect(await summaryRows(page, /rows 1575/)).to.equal(1);
        await previewMappings(page);
        await page.getByLabel(/I have reviewed the mappings/).check();
        await page.getByRole('button', { name: 'Start import' }).click();
        await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 90000 });
        return page.getByTestId('import-outcome').textContent();
      };
      expect(await importOnce()).to.match(/1575 imported/);
      expect(
        await page
          .getByTestId('results')
          .getByRole('row', { name: /^rows 1575 0 0 0/ })
          .count(),
      ).to.equal(1);
      if (process.env.CMS_TEST_SCREENSHOTS)
        await page.screenshot({ path: join(process.env.CMS_TEST_SCREENSHOTS, 'importers-results.png'), fullPage: true });

      const again = await importOnce();
      expect(again).to.match(/0 imported/);
      expect(again).to.match(/1575 skipped/);
      expect(await page.getByTestId('skip-reasons').innerText()).to.match(/1575 imported before/);
      await page.getByTestId('nothing-imported').waitFor();
      expect(await page.getByText(/rows: 1575 skipped: 1575 imported into/).count()).to.equal(1);
      if (process.env.CMS_TEST_SCREENSHOTS)
        await page.screenshot({ path: join(process.env.CMS_TEST_SCREENSHOTS, 'importers-skipped.png'), fullPage: true });
    });

    it('shows why a file cannot be imported', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'importers');
      await page.getByLabel('Export file').setInputFiles({
        name: 'notes.bin',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from([0, 1, 2, 3, 255, 254, 0, 7, 9, 0]),
      });
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/importers/validate')),
        page.getByRole('button', { name: 'Upload and analyse' }).click(),
      ]);
      expect(res.status()).to.equal(200);
      await page.getByRole('heading', { name: 'Detected format' }).waitFor();
      await page.getByText('No importer recognised this file.').waitFor();
      await page
        .getByRole('alert')
        .getByText(/No import format recognises this upload/)
        .waitFor();
      expect(await page.getByRole('button', { name: 'Preview mappings' }).isDisabled()).to.equal(true);
    });

    it('runs a reviewed plan with an edited field mapping as a job, following its event stream', async function () {
      const { page, context } = b;
      await signInWithApi(b.context, t.url, 'ada@example.com', PASSWORD);
      await upload(page, `${FIXTURES}/ghost-wix-posts.csv`);
      await previewMappings(page);
      // Collection names are checked here before anything is sent.
      await page.getByLabel('Name of the new collection for rows').fill('wixPosts');
      await page.getByText('Use lower-case letters, digits and _').waitFor();
      expect(await page.getByRole('button', { name: 'Update preview' }).isDisabled()).to.equal(true);
      await page.getByLabel('Name of the new collection for rows').fill('wix_posts');
      await updatePreview(page);
      await page
        .getByTestId('operations')
        .getByText(/A new collection wix_posts is created/)
        .waitFor();
      await page.getByText('Fields of rows').click();
      await page.getByLabel('Target field for Title').fill('headline');
      await updatePreview(page);
      expect(await page.getByLabel('Target field for Title').inputValue()).to.equal('headline');
      await page.getByLabel(/I have reviewed the mappings/).check();
      const [run, events] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/importers/run')),
        page.waitForResponse((r) => /\/api\/importers\/jobs\/[^/]+\/events$/.test(r.url())),
        page.getByRole('button', { name: 'Start import' }).click(),
      ]);
      expect(run.status()).to.equal(200);
      // The reviewed plan's progress comes live from the job's event stream, not from polling.
      expect(events.headers()['content-type']).to.match(/text\/event-stream/);
      await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60000 });
      expect(await page.getByTestId('import-outcome').innerText()).to.match(/2 imported/);
      const entries = await (await context.request.get(`${t.url}/api/collections/wix_posts?sort=headline`)).json();
      expect(
        entries.data.items.map((e: { data?: Record<string, unknown> } & Record<string, unknown>) => (e.data ?? e).headline),
      ).to.deep.equal(['Draft Wix', 'Hello Wix']);
    });

    it('imports the Strapi export into a new collection (not the user’s own articles), then opens the past run again', async function () {
      const { page, context } = b;
      // The user's own articles collection, as in the issue.
      const created = await t.kernel.container
        .resolve<(identity?: unknown) => { collections: { create(d: object): Promise<unknown> } }>('contentClient')()
        .collections.create({ name: 'articles', fields: [{ name: 'title', type: 'text' }] });
      expect(created).to.be.an('object');
      await signInWithApi(b.context, t.url, 'ada@example.com', PASSWORD);
      await upload(page, join(IMPORT_FIXTURES, 'node_cms', 'strapi5-rr7-starter-export.tar.gz'));
      await page.getByRole('heading', { name: 'Detected format' }).waitFor();
      expect(await page.getByTestId('detected-format').innerText()).to.match(/Strapi/);
      await previewMappings(page);
      // The preview names the target: a new collection, not the existing articles; statuses kept by default.
      expect(await page.getByLabel('Where the articles go').inputValue()).to.equal('new');
      expect(await page.getByLabel('Name of the new collection for articles').inputValue()).to.equal('articles_strapi');
      await page
        .getByTestId('what-articles')
        .getByText(/A new collection articles_strapi is created for them/)
        .waitFor();
      expect(await page.getByLabel('Publication status of the articles').inputValue()).to.equal('keep');
      // Choosing the existing collection comes from a list, and then drafts are the default.
      await page.getByLabel('Where the articles go').selectOption('existing');
      await page.getByLabel('Collection for articles').selectOption('articles');
      await updatePreview(page);
      await page
        .getByTestId('what-articles')
        .getByText(/Added to your collection articles/)
        .waitFor();
      expect(await page.getByLabel('Publication status of the articles').inputValue()).to.equal('draft');
      await page.getByTestId('unmapped-articles').waitFor();
      // Back to a new collection.
      await page.getByLabel('Where the articles go').selectOption('new');
      await updatePreview(page);
      await page
        .getByTestId('what-articles')
        .getByText(/A new collection articles_strapi is created/)
        .waitFor();
      expect(await page.getByLabel('Publication status of the articles').inputValue()).to.equal('keep');
      const html = await page.content();
      expect(html).to.not.match(/scaffold: true/);
      await axeCheck(page);
      if (process.env.CMS_TEST_SCREENSHOTS)
        await page.screenshot({ path: join(process.env.CMS_TEST_SCREENSHOTS, 'importers-strapi-preview.png'), fullPage: true });

      await page.getByLabel(/I have reviewed the mappings/).check();
      await page.getByRole('button', { name: 'Start import' }).click();
      await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 90000 });
      expect(
        await page
          .getByTestId('results')
          .getByRole('row', { name: /^articles 6 0 0 0 articles_strapi/ })
          .count(),
      ).to.equal(1);
      const own = await (await context.request.get(`${t.url}/api/collections/articles?limit=1`)).json();
      expect(own.data.total).to.equal(0);

      // Past imports: listed, and this one opens again with its items.
      const row = page
        .getByTestId('past-runs')
        .getByRole('row', { name: /Strapi export/ })
        .first();
      await row.waitFor();
      expect(await row.innerText()).to.match(/Ada/);
      await row.getByRole('button', { name: /Open/ }).click();
      const opened = page.getByTestId('opened-run');
      await opened.getByRole('heading', { name: /strapi5-rr7-starter-export\.tar\.gz/ }).waitFor();
      expect(
        await opened
          .getByTestId('run-results')
          .getByRole('row', { name: /^articles articles_strapi 6 0 0/ })
          .count(),
      ).to.equal(1);
      expect(
        await opened
          .getByTestId('run-items')
          .getByRole('row', { name: /^articles / })
          .count(),
      ).to.equal(6);
      await axeCheck(page);
      if (process.env.CMS_TEST_SCREENSHOTS)
        await page.screenshot({ path: join(process.env.CMS_TEST_SCREENSHOTS, 'importers-past-run.png'), fullPage: true });
    });
  });
}
