// Saves screenshots of the admin UI's main pages into docs/screenshots/ (used by the README).
//   npm run build && node scripts/screenshots.mjs [distDir] [outDir]
// distDir: the compiled tree with the admin UI build in <distDir>/admin-ui (default dist).
// It starts real kernels on 127.0.0.1 (temporary data folders, SQLite), signs in through the UI and
// captures each page with Debian's chromium driven by playwright-core. Nothing leaves the machine.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(new URL('..', import.meta.url).pathname);
const dist = resolve(root, process.argv[2] ?? 'dist');
const outDir = resolve(root, process.argv[3] ?? 'docs/screenshots');
const { createKernel } = await import(pathToFileURL(join(dist, 'kernel/index.js')).href);
const { loadConfig } = await import(pathToFileURL(join(dist, 'kernel/config.js')).href);
const { createLogger } = await import(pathToFileURL(join(dist, 'kernel/logger.js')).href);
// The browser tests' Chromium (CMS_TEST_CHROMIUM or Debian's, the same flags).
const { launchBrowser } = await import(pathToFileURL(join(dist, 'test/helpers/browser.js')).href);

const ADMIN = { email: 'admin@example.com', password: 'screenshots only', username: 'Ada' };
/** [file name, path, what to wait for] — add a line here when a page is added to the app. */
const PAGES = [
  ['dashboard', '/admin/', '[data-widget="activity"] canvas'],
  ['system', '/admin/system', '[data-testid="plugins"]'],
  ['content', '/admin/content', 'h1'],
  ['media', '/admin/media', 'h1'],
  ['importers', '/admin/importers', 'h1'],
  ['themes', '/admin/themes', '[data-testid="themes"], h2#h-settings + form'],
  ['account', '/admin/account', '[data-testid="session"]'],
];

async function startKernel(withAdmin) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-shots-'));
  const config = loadConfig({
    ignoreFile: true,
    env: {},
    overrides: {
      env: 'production',
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logLevel: 'silent',
      pool: { maxThreads: 2 },
      plugins: { options: { auth: { bcryptRounds: 4 }, ...(withAdmin ? { setup: { admin: ADMIN } } : {}) } },
    },
  });
  const kernel = createKernel({ config, logger: createLogger('silent') });
  await kernel.start();
  return {
    kernel,
    url: kernel.url,
    close: async () => {
      await kernel.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A dashboard with some content, some API traffic and a mix of widgets (the default one shows only four). */
async function fillDashboard(request, url) {
  await request.post(`${url}/api/collections`, {
    data: {
      name: 'articles',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'richtext' },
      ],
    },
  });
  for (const title of ['Harbour reopens after the storm', 'Summer opening hours', 'New ferry timetable'])
    await request.post(`${url}/api/collections/articles`, { data: { title, body: ARTICLE_BODY } });
  for (let i = 0; i < 40; i++) await request.get(`${url}/api/collections/articles?limit=${1 + (i % 5)}`);
  await request.get(`${url}/api/collections/nothing-here`);
  const widgets = [
    ['activity', 8, 3],
    ['system-health', 4, 3],
    ['last5-content', 6, 3],
    ['cache-monitor', 6, 3],
    ['cpu', 4, 2],
    ['memory', 4, 2],
    ['security', 4, 3],
  ];
  await request.put(`${url}/api/dashboard/layout`, {
    data: { widgets: widgets.map(([id, w, h], i) => ({ id, x: 0, y: i, w, h })) },
  });
}

const ARTICLE_BODY =
  '<h2>What changes</h2><p>The harbour opens again on <strong>Monday at 6:00</strong>, with the ' +
  '<a href="https://example.com/timetable">new timetable</a> for every line.</p>' +
  '<ul><li>Morning boats leave every 30 minutes</li><li>The night boat runs on Fridays and Saturdays</li></ul>' +
  '<blockquote><p>We thank everyone for their patience during the repairs.</p></blockquote>';

mkdirSync(outDir, { recursive: true });
const browser = await launchBrowser();
const shot = async (page, name) => {
  await page.waitForTimeout(300); // let transitions settle for a clean picture
  await page.screenshot({ path: join(outDir, `${name}.png`) });
  console.log(`saved ${join(outDir, `${name}.png`)}`);
};
try {
  // 1. The setup wizard of a fresh instance.
  const fresh = await startKernel(false);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${fresh.url}/setup`);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Connected.').waitFor();
    await shot(page, 'setup-wizard');
    await page.close();
  } finally {
    await fresh.close();
  }
  // 2. Sign-in and the app's pages on an instance set up headlessly.
  const ready = await startKernel(true);
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${ready.url}/login`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await shot(page, 'sign-in');
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/$/);
    for (const [name, path, selector] of PAGES) {
      if (name === 'dashboard') await fillDashboard(page.request, ready.url);
      await page.goto(`${ready.url}${path}`);
      await page
        .locator(selector)
        .first()
        .waitFor({ timeout: 15000 })
        .catch(() => undefined);
      await shot(page, name);
    }
    // The rich-text editor on an entry, and the preview link's public page of the same entry.
    const list = await (await page.request.get(`${ready.url}/api/collections/articles?limit=1&sort=createdAt`)).json();
    const entryId = list.data.items[0]._id;
    await page.goto(`${ready.url}/admin/content/articles/${entryId}`);
    await page.locator('.ProseMirror h2').first().waitFor({ timeout: 15000 });
    await shot(page, 'editor');
    const link = await (await page.request.post(`${ready.url}/api/collections/articles/${entryId}/preview-links`, { data: {} })).json();
    const visitor = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await visitor.goto(`${ready.url}${link.data.url}`);
    await visitor.getByTestId('preview-article').waitFor({ timeout: 15000 });
    await shot(visitor, 'preview');
    await visitor.close();
    await context.close();
  } finally {
    await ready.close();
  }
} finally {
  await browser.close();
}
