import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  ADA,
  openAdminPage,
  PASSWORD,
  signInWithApi,
  startUiKernel,
  useAdminUi,
  useBrowser,
  type BrowserSession,
} from '../helpers/browser.js';
import type { Locator } from 'playwright-core';
import { tempDir, writePlugin, type TestKernel } from '../helpers/kernel.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';

/** The example third-party plugin with an admin page (plain JavaScript, no build step). */
const HELLO_PAGE_PLUGIN = join(PROJECT_ROOT, 'examples', 'hello-page-plugin');
/** The README's typed example plugin (TypeScript, compiled with the project). */
const NOTES_PLUGIN = join(DIST_ROOT, 'examples', 'notes-plugin');

type Users = { create(i: object): Promise<unknown> };

/** Signs in as `email` and opens /admin/<path>; the main navigation, once it shows the link `waitFor`. */
async function openNavigation(b: BrowserSession, t: TestKernel, email: string, path: string, waitFor: string): Promise<Locator> {
  await signInWithApi(b.context, t.url, email, PASSWORD);
  await b.page.goto(`${t.url}/admin/${path}`);
  const nav = b.page.getByRole('complementary', { name: 'Main navigation' }).getByRole('navigation');
  await nav.getByRole('link', { name: waitFor }).waitFor();
  return nav;
}
/** The labels of the navigation's links, in order. */
const linkLabels = async (nav: Locator) => (await nav.getByRole('link').allTextContents()).map((s) => s.trim());

describe('admin UI: pages from plugins in the browser', function () {
  this.timeout(120000);
  const b = useBrowser();
  let t: TestKernel;
  let root: string;
  before(async () => {
    // A second third-party plugin whose module does not export mount(): the host shows an error card.
    root = tempDir('cms-e2e-plugin-pages-');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    const broken = writePlugin(root, {
      id: 'broken-page',
      adminPages: [
        { path: '/admin/broken', title: 'Broken page', nav: { label: 'Broken', order: 90, group: 'data' }, module: 'broken.js' },
      ],
    });
    writeFileSync(join(broken, 'broken.js'), 'export const notMount = 1;\n');
    t = await startUiKernel({ plugins: [HELLO_PAGE_PLUGIN, NOTES_PLUGIN, broken] });
    const users = t.kernel.container.resolve<Users>('users');
    await users.create(ADA);
    await users.create({ email: 'vic@example.com', password: PASSWORD, role: 'viewer', username: 'Vic' });
  });
  after(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows the example page in the sidebar, opens it, renders what the module got from its API and posts its form', async () => {
    const { page } = b;
    const nav = await openNavigation(b, t, 'ada@example.com', '', 'Hello');
    // Core and plugin links grouped under headings, by order within a group: a plugin names its group
    // (Broken: data), or its icon decides (Notes: content), or it goes under More (Hello: 'wave').
    const labels = await linkLabels(nav);
    expect(labels).to.deep.equal([
      'Dashboard',
      'Collections',
      'Notes',
      'Media library',
      'Import from another CMS',
      'Import a content package',
      'Export a content package',
      'Sync with another site',
      'Backups',
      'Configuration files',
      'Data migrations',
      'Broken',
      'Users',
      'Roles',
      'Themes',
      'System',
      'Settings',
      'Webhooks',
      'Review stages',
      'Agent sessions',
      'Hello',
      'Your account',
    ]);
    expect((await nav.getByRole('heading', { level: 2 }).allTextContents()).map((s) => s.trim())).to.deep.equal([
      'Content',
      'Media',
      'Data',
      'Settings',
      'More',
      'Account',
    ]);
    const data = nav.getByRole('list', { name: 'Data' });
    expect((await data.getByRole('link').allTextContents()).map((s) => s.trim())).to.include.members(['Import from another CMS', 'Broken']);
    expect(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).to.equal('page');
    expect(await nav.locator('[aria-current="page"]').count()).to.equal(1);
    // 'wave' is not an icon the UI draws: the link still has the generic icon.
    expect(await nav.getByRole('link', { name: 'Hello' }).locator('svg path').getAttribute('d')).to.match(/^M10 3h4/);

    await nav.getByRole('link', { name: 'Hello' }).click();
    await page.getByRole('heading', { name: 'Hello page', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/admin/hello');
    await page.getByTestId('hello-message').getByText('Hello from the hello-page plugin (your role: admin)').waitFor();
    await page.getByText('Signed in as Ada.').waitFor();
    await page.getByTestId('hello-visitors').getByText('Nobody yet').waitFor();

    await page.getByLabel('Your name').fill('Grace');
    await page.getByRole('button', { name: 'Sign the guest book' }).click();
    await page.getByTestId('hello-message').getByText('Hello, Grace!').waitFor();
    expect(await page.getByTestId('hello-visitors').locator('li').allTextContents()).to.deep.equal(['Grace']);

    // Leaving unmounts the page; coming back by URL (a full load) mounts it again with fresh data.
    await nav.getByRole('link', { name: 'Media library' }).click();
    await page.getByRole('heading', { name: 'Media', level: 1 }).waitFor();
    expect(await page.getByTestId('hello-message').count()).to.equal(0);
    await page.goto(`${t.url}/admin/hello`);
    await page.getByTestId('hello-visitors').getByText('Grace').waitFor();
  });

  it("runs the typed notes plugin's page: adds a note through its API, lists it, deletes it", async () => {
    const { page } = b;
    const nav = await openNavigation(b, t, 'ada@example.com', '', 'Notes');
    await nav.getByRole('link', { name: 'Notes' }).click();
    await page.getByRole('heading', { name: 'My notes', level: 1 }).waitFor();
    await page.getByTestId('notes-list').getByText('No notes yet').waitFor();
    await page.getByLabel('New note').fill('Ship wave 2');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await page.getByTestId('notes-list').getByText('Ship wave 2').waitFor();
    // An empty note is refused by the route's schema; the page shows the server's message and keeps the list.
    await page.getByLabel('New note').fill('   ');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('status').getByText(/text/i).waitFor();
    expect(await page.getByTestId('notes-list').locator('li').count()).to.equal(1);
    await page.getByRole('button', { name: 'Delete note Ship wave 2' }).click();
    await page.getByTestId('notes-list').getByText('No notes yet').waitFor();
  });

  it('shows an error card when a plugin page module cannot be mounted', async () => {
    const page = await openAdminPage(b, t, 'broken', 'Broken page');
    const card = page.getByTestId('plugin-page-error');
    await card.getByText('This page could not be loaded.').waitFor();
    expect(await card.textContent())
      .to.contain('broken-page')
      .and.contain('does not export mount');
  });

  it('leaves out the links a role may not see', async () => {
    const nav = await openNavigation(b, t, 'vic@example.com', 'account', 'Hello');
    const labels = await linkLabels(nav);
    expect(labels).to.deep.equal(['Dashboard', 'Collections', 'Notes', 'Media library', 'Broken', 'Hello', 'Your account']);
  });
});

describe("admin UI: a disabled plugin's page in the browser", function () {
  this.timeout(120000);
  const { b, t } = useAdminUi(undefined, {}, { config: { plugins: { disabled: ['importers'] } } });

  it('has no "Import from another CMS" link, and /admin/importers is not found', async () => {
    const { page } = b;
    const nav = await openNavigation(b, t, 'ada@example.com', '', 'Media library');
    const labels = await linkLabels(nav);
    expect(labels).to.include('Themes');
    expect(labels).to.not.include('Import from another CMS');
    await page.goto(`${t.url}/admin/importers`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Import from another CMS', level: 1 }).count()).to.equal(0);
  });
});
