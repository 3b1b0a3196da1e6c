import { expect } from 'chai';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { shot, useBrowser, useUiKernelBeside } from '../helpers/browser.js';
import { startChildInstance, type ChildInstance } from '../helpers/content-sync-rig.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { addSyncChannel, openNewCollection, pickCover, showSyncPlan, solidPng } from '../helpers/admin-pages.js';

// Issue 33's "done when": the whole first hour in a real browser on a fresh data folder, without curl or
// file editing. Instance A starts as `npm start` does (NODE_ENV production, setup pending); instance B is
// a second installation (its own process, port and data folder) that A syncs content to. Every step is
// done through the admin UI; the API is read only to check what a visitor or the other instance sees.
const EMAIL = 'first@example.com';
const PASSWORD = 'a long enough password';
const B_EMAIL = 'sync-admin@example.com';
const B_PASSWORD = 'correct horse battery';

async function signInThroughTheForm(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/admin/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

/** The schema editor: a collection `notices` with a required title and a cover image (setup seeds `posts` and `pages`). */
async function createPostsCollection(page: Page): Promise<void> {
  await openNewCollection(page);
  await page.getByLabel(/^Name/).fill('notices');
  await page
    .getByRole('listitem', { name: /^Field 1/ })
    .getByLabel('Field name')
    .fill('title');
  await page.getByRole('button', { name: 'Add field' }).click();
  const cover = page.getByRole('listitem', { name: /^Field 2/ });
  await cover.getByLabel('Field name').fill('cover');
  await cover.getByLabel('Type').selectOption('media');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/\/admin\/content\/notices(\?.*)?$/);
}

/** An entry's title changed and saved from its page (the entry is found in the collection's table). */
async function retitle(page: Page, url: string, from: string, to: string): Promise<void> {
  await page.goto(`${url}/admin/content/notices`);
  await page
    .getByRole('table', { name: /Entries of/ })
    .getByRole('link', { name: from })
    .click();
  await page.getByRole('heading', { name: from, level: 1 }).waitFor();
  await page.getByLabel(/^Title/).fill(to);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('heading', { name: to, level: 1 }).waitFor();
}

describe('the first hour, in the browser: setup to content sync without curl (sqlite)', function () {
  this.timeout(420000);
  const b = useBrowser();
  let other: ChildInstance;
  const a = useUiKernelBeside(
    // As `npm start`: production, a fresh data folder, setup pending. B is on loopback, which the
    // operator's outbound switch allows (a real B would be on a public address).
    { db: 'sqlite', setup: true, config: { env: 'production', outbound: { allowPrivate: true } } },
    {},
    async () => {
      other = await startChildInstance();
      return () => other.stop();
    },
  );

  it('sets up, writes and publishes an entry with an image, opens it to guests, uses maintenance, the explorer, an import, and syncs to a second instance with a conflict resolved', async function () {
    const { page } = b;
    const guest = await b.newContext();

    // 1. Setup: the wizard from a fresh data folder to the dashboard.
    await page.goto(`${a.url}/`);
    await page.waitForURL(/\/setup$/);
    await page.getByRole('heading', { name: 'Database' }).waitFor();
    const db = a.config.db;
    if (db.type !== 'sqlite') throw new Error('this walk runs on the embedded default');
    await page.getByLabel('SQLite').check();
    await page.getByLabel(/File name/).fill(db.storage);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Administrator' }).waitFor({ timeout: 60000 });
    await page.getByLabel('Site name').fill('First Hour');
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: /Create administrator/ }).click();
    await page.waitForURL(/\/admin\/$/);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // 2. A collection, and an entry with an image, published.
    await createPostsCollection(page);
    await page.getByRole('link', { name: 'New notice' }).first().click();
    await page.getByLabel(/^Title/).fill('Opening hours');
    await pickCover(page, 'shop-front.png', await solidPng(320, 200, { r: 30, g: 120, b: 200 }));
    await page.getByRole('button', { name: 'Create notice' }).click();
    await page.getByRole('heading', { name: 'Opening hours', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: 'Unpublish', exact: true }).waitFor();

    // 3. Public: a guest reads it without a session, with its image.
    expect((await guest.request.get(`${a.url}/api/collections/notices`)).status()).to.equal(401);
    await page.goto(`${a.url}/admin/content/notices/schema`);
    const access = page.getByRole('region', { name: 'Public access' });
    await access.getByRole('checkbox', { name: /Anyone can read the published entries/ }).check();
    await page.getByRole('status').getByText('Published entries are now public').waitFor();
    const publicList = await guest.request.get(`${a.url}/api/collections/notices`);
    expect(publicList.status()).to.equal(200);
    const [read] = (await publicList.json()).data.items as Array<{ title: string; cover: string }>;
    expect(read?.title).to.equal('Opening hours');
    expect(read?.cover, 'the image is linked').to.be.a('string').and.not.equal('');

    // 4. Maintenance on and off from Settings: the guest is refused meanwhile.
    await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const maintenance = page.locator('section[data-group="maintenance"]');
    await maintenance.getByRole('switch', { name: /Maintenance mode/ }).click();
    await page.getByRole('dialog', { name: 'Turn maintenance mode on?' }).getByRole('button', { name: 'Turn it on' }).click();
    await page.getByTestId('maintenance-banner').waitFor();
    expect((await guest.request.get(`${a.url}/api/collections/notices`)).status()).to.equal(503);
    await maintenance.getByRole('switch', { name: /Maintenance mode/ }).click();
    await page.getByRole('dialog', { name: 'Turn maintenance mode off?' }).getByRole('button', { name: 'Turn it off' }).click();
    await page.getByTestId('maintenance-banner').waitFor({ state: 'detached' });
    expect((await guest.request.get(`${a.url}/api/collections/notices`)).status()).to.equal(200);

    // 5. The explorer at /api/graphql (the README's first paragraph), a query run with the session.
    await page.goto(`${a.url}/api/graphql`);
    const editor = page.locator('.graphiql-query-editor .CodeMirror');
    await editor.waitFor();
    await editor.evaluate((el: any) => el.CodeMirror.setValue('{ notices { total items { title } } }'));
    await page.locator('.graphiql-execute-button').click();
    await page.locator('.graphiql-response .CodeMirror').getByText('"Opening hours"').waitFor();

    // 6. The Strapi export into a new collection: the user's own collections stay untouched.
    await page.goto(`${a.url}/admin/`);
    await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Import from another CMS' }).click();
    await page.getByLabel('Export file').setInputFiles(join(IMPORT_FIXTURES, 'node_cms', 'strapi5-rr7-starter-export.tar.gz'));
    await page.getByRole('button', { name: 'Upload and analyse' }).click();
    await page.getByRole('heading', { name: 'Detected format' }).waitFor();
    await page.getByRole('button', { name: 'Preview mappings' }).click();
    await page.getByRole('heading', { name: 'Mappings' }).waitFor();
    expect(await page.getByLabel('Where the articles go').inputValue()).to.equal('new');
    const target = await page.getByLabel('Name of the new collection for articles').inputValue();
    await page.getByTestId('what-articles').getByText(`A new collection ${target} is created for them`).waitFor();
    await page.getByLabel(/I have reviewed the mappings/).check();
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 90000 });
    const imported = await page.context().request.get(`${a.url}/api/collections/${target}?limit=100`);
    expect((await imported.json()).data.total).to.equal(6);

    // 7. Instance B: its admin signs in, makes the same collection and a key for content sync from the sync page.
    const bContext = await b.newContext();
    const bPage = await bContext.newPage();
    await signInThroughTheForm(bPage, other.url, B_EMAIL, B_PASSWORD);
    await createPostsCollection(bPage);
    await bPage.goto(`${other.url}/admin/data/sync`);
    await bPage.getByRole('button', { name: 'Create a key for content sync' }).click();
    const key = await bPage.getByTestId('sync-key').getByLabel('Key for content sync').inputValue();
    expect(key).to.match(/^sck_/);

    // 8. A adds B with that key and pushes: B has the entry.
    await page.goto(`${a.url}/admin/data/sync`);
    await addSyncChannel(page, 'instance B', other.url, key);
    await page.getByTestId('sync-channels').getByText('instance B').waitFor();
    await showSyncPlan(page);
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await page.locator('[data-testid="apply-outcome"][data-outcome="success"]').waitFor();
    const onB = async () =>
      ((await (await bContext.request.get(`${other.url}/api/collections/notices`)).json()).data.items as Array<{ title: string }>).map(
        (e) => e.title,
      );
    expect(await onB()).to.deep.equal(['Opening hours']);
    // The image went with it (the sync page sends media files by default) and is readable on B.
    const [copied] = (await (await bContext.request.get(`${other.url}/api/collections/notices`)).json()).data.items as Array<{
      cover: string;
    }>;
    expect(copied?.cover, 'the cover arrived on B').to.be.a('string');
    const bMedia = await bContext.request.get(`${other.url}/api/media/${copied!.cover}`);
    expect(bMedia.status()).to.equal(200);
    expect((await bMedia.json()).data.filename ?? (await bMedia.json()).data.originalName).to.match(/shop-front/);

    // 9. The same entry changed on both sides: the conflict shows both versions; A takes B's.
    await retitle(bPage, other.url, 'Opening hours', 'Opening hours (summer)');
    await retitle(page, a.url, 'Opening hours', 'Opening hours (winter)');
    await page.goto(`${a.url}/admin/data/sync`);
    await showSyncPlan(page);
    const conflicts = page.getByTestId('sync-conflicts');
    await conflicts.getByRole('heading', { name: 'Changed on both instances (1)' }).waitFor();
    const conflictText = await conflicts.innerText();
    expect(conflictText).to.contain('Opening hours (winter)').and.contain('Opening hours (summer)');
    await conflicts.getByRole('button', { name: "Take the other's version for all" }).click();
    await conflicts.getByRole('button', { name: 'Use these choices' }).click();
    await page.getByTestId('sync-follow-up-note').getByText("the other instance's version of 1 entry is brought here").waitFor();
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await page.getByTestId('sync-follow-up').getByText("Took the other instance's version of 1 entry.").waitFor();
    await shot(page, 'first-hour-sync-resolved');
    const onA = ((await (await guest.request.get(`${a.url}/api/collections/notices`)).json()).data.items as Array<{ title: string }>).map(
      (e) => e.title,
    );
    expect(onA).to.deep.equal(['Opening hours (summer)']);
    expect(await onB()).to.deep.equal(['Opening hours (summer)']);
  });
});
