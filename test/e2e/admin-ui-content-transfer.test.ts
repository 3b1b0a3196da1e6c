import { expect } from 'chai';
import { join } from 'node:path';
import { ADA, PASSWORD, shot, signInWithApi, useBrowser, useUiKernelBeside } from '../helpers/browser.js';
import { CLI_ADMIN, startCliInstance, type CliInstance } from '../helpers/cli-instance.js';
import { tempDir } from '../helpers/kernel.js';

// Export -> import between two instances in the browser: collections with a relation exported on
// instance A (Export content page, package downloaded by the browser), imported on instance B (a
// separate process with its own SQLite database) through the Import content page; B then holds the
// same entries (same sync ids, the relation re-pointed to B's ids), and a second import changes nothing.

describe('admin UI: content export on one instance, import on another (sqlite, two processes)', function () {
  this.timeout(180000);
  const b = useBrowser();
  let second: CliInstance;
  const downloads = tempDir('cms-e2e-packages-');
  const a = useUiKernelBeside({ db: 'sqlite' }, { users: [ADA] }, async () => {
    second = await startCliInstance();
    return () => second.stop();
  });

  async function call(base: string, cookieOrContext: string | null, method: string, path: string, data?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(cookieOrContext ? { cookie: cookieOrContext } : {}) },
      body: data === undefined ? undefined : JSON.stringify(data),
    });
    const body = (await res.json()) as { data: any };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body.data;
  }

  it('exports two related collections on A and imports them on B, with identical entries and re-pointed references', async function () {
    const { page, context } = b;
    await signInWithApi(context, a.url, 'ada@example.com', PASSWORD);
    const cookieA = (await context.cookies(a.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    await call(a.url, cookieA, 'POST', '/api/collections', { name: 'authors', label: 'Authors', fields: [{ name: 'name', type: 'text' }] });
    await call(a.url, cookieA, 'POST', '/api/collections', {
      name: 'books',
      label: 'Books',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'relation', collection: 'authors' },
      ],
    });
    const ursula = await call(a.url, cookieA, 'POST', '/api/collections/authors', { name: 'Ursula K. Le Guin', status: 'published' });
    const terry = await call(a.url, cookieA, 'POST', '/api/collections/authors', { name: 'Terry Pratchett', status: 'published' });
    for (const [title, author] of [
      ['The Dispossessed', ursula._id],
      ['A Wizard of Earthsea', ursula._id],
      ['Small Gods', terry._id],
    ])
      await call(a.url, cookieA, 'POST', '/api/collections/books', { title, author, status: 'published' });

    // Export on A.
    await page.goto(`${a.url}/admin/data/export`);
    await page.getByRole('heading', { name: 'Export a content package', level: 1 }).waitFor();
    await page.getByTestId('export-collections').getByLabel('Authors').check();
    await page.getByTestId('export-collections').getByLabel('Books').check();
    await page.getByRole('button', { name: 'Preview the export' }).click();
    const review = page.getByTestId('plan-review');
    await review.waitFor();
    expect(await page.getByTestId('plan-operations').textContent()).to.match(/books/);
    await shot(page, 'data-export-plan');
    await review.getByRole('button', { name: 'Build the package' }).click();
    const link = page.getByTestId('export-download');
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = join(downloads, download.suggestedFilename() || 'content.svelty-package');
    await download.saveAs(file);
    expect(download.suggestedFilename()).to.match(/\.svelty-package$/);

    // Import on B (another process, another database), in a second browser context.
    const contextB = await b.newContext();
    await signInWithApi(contextB, second.url, CLI_ADMIN.email, CLI_ADMIN.password);
    const pageB = await contextB.newPage();
    await pageB.goto(`${second.url}/admin/data/import`);
    await pageB.getByRole('heading', { name: 'Import a content package', level: 1 }).waitFor();
    await pageB.getByTestId('import-file').setInputFiles(file);
    await pageB.getByRole('button', { name: 'Upload and check' }).click();
    await pageB.getByTestId('import-valid').waitFor();
    expect(await pageB.getByTestId('import-manifest').textContent()).to.match(/books\s*3/);
    await pageB.getByRole('button', { name: 'Show what would change' }).click();
    const reviewB = pageB.getByTestId('plan-review');
    await reviewB.waitFor();
    // Both collections are created on B (they do not exist there), then the 2 + 3 entries.
    expect(await pageB.getByTestId('plan-summary').textContent()).to.match(/Created\s*7/);
    await shot(pageB, 'data-import-plan');
    await reviewB.getByRole('button', { name: 'Import' }).click();
    await pageB.getByTestId('apply-outcome').waitFor();
    expect(await pageB.getByTestId('apply-outcome').getAttribute('data-outcome')).to.equal('success');
    await shot(pageB, 'data-import-applied');

    // Same entries on B, references re-pointed to B's ids.
    const cookieB = await second.signIn();
    const booksA = (await call(a.url, cookieA, 'GET', '/api/collections/books?limit=100')).items ?? [];
    const authorsA = (await call(a.url, cookieA, 'GET', '/api/collections/authors?limit=100')).items ?? [];
    const booksB = (await call(second.url, cookieB, 'GET', '/api/collections/books?limit=100')).items ?? [];
    const authorsB = (await call(second.url, cookieB, 'GET', '/api/collections/authors?limit=100')).items ?? [];
    const view = (books: any[], authors: any[]) =>
      books
        .map((bk) => {
          const au = authors.find((x) => x._id === bk.author);
          return { syncId: bk.syncId, slug: bk.slug, title: bk.title, status: bk.status, author: au?.syncId, authorName: au?.name };
        })
        .sort((x, y) => x.syncId.localeCompare(y.syncId));
    expect(booksB).to.have.length(3);
    expect(view(booksB, authorsB)).to.deep.equal(view(booksA, authorsA));
    expect(booksB.map((bk: any) => bk._id)).to.not.include.members(booksA.map((bk: any) => bk._id));

    // The same package again: nothing to create or update.
    await pageB.reload();
    await pageB.getByTestId('import-file').setInputFiles(file);
    await pageB.getByRole('button', { name: 'Upload and check' }).click();
    await pageB.getByTestId('import-valid').waitFor();
    await pageB.getByRole('button', { name: 'Show what would change' }).click();
    await pageB.getByTestId('plan-review').waitFor();
    expect(await pageB.getByTestId('plan-summary').textContent()).to.match(/Created\s*0/);
    expect(await pageB.getByTestId('plan-summary').textContent()).to.match(/Updated\s*0/);
  });
});
