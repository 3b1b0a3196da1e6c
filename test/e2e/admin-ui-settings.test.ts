import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.js';
import { signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';

const ADMIN = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const SECRET = 'lic-e2e-4b1d-never-shown-again';
describe('the Settings page in the browser', function () {
  this.timeout(120000);
  const b = useBrowser();
  const group = (page: Page, id: string) => page.locator(`section[data-group="${id}"]`);

  const t = useUiKernel({ setup: true, config: { plugins: { options: { setup: { admin: { email: ADMIN, password: PASSWORD } } } } } });

  it('an administrator changes the site name, sees a wrong value refused before saving, sets a secret, and turns maintenance on and off', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, ADMIN, PASSWORD);
    const patches: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'PATCH' && new URL(req.url()).pathname === '/api/settings') patches.push(req.postData() ?? '');
    });
    await page.goto(`${t.url}/admin`);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    for (const name of ['Site', 'Security and sessions', 'Media and uploads', 'Email', 'Maintenance', 'Update check and licence'])
      await page.getByRole('heading', { name, level: 2, exact: true }).waitFor();

    // The site name: saved with its group, shown in words, applied at once in the sidebar and for visitors.
    const site = group(page, 'site');
    await site.getByLabel('Site name').fill('Acme Docs');
    await site.getByRole('button', { name: 'Save site' }).click();
    await site.getByText('Saved: Site name.').waitFor();
    await page.locator('a.brand', { hasText: 'Acme Docs' }).waitFor();
    const status = await context.request.get(`${t.url}/api/setup/status`);
    expect((await status.json()).data.siteName).to.equal('Acme Docs');

    // A value outside the bounds is refused in words before anything is sent.
    const api = group(page, 'api');
    await api.getByLabel('Deepest GraphQL query').fill('500');
    await api.getByText('Enter 50 or less.').waitFor();
    await api.getByRole('button', { name: 'Save api limits' }).click();
    await api.getByText('Not saved: correct the value marked below first.').waitFor();
    expect(await api.getByLabel('Deepest GraphQL query').getAttribute('aria-invalid')).to.equal('true');
    await api.getByLabel('Deepest GraphQL query').fill('12');
    expect(await api.getByText('Enter 50 or less.').count()).to.equal(0);
    // A file type that is not one is refused in the list editor too.
    const media = group(page, 'media');
    await media.getByLabel('New item for Allowed file types').fill('not a type');
    await media.getByRole('button', { name: 'Add to Allowed file types' }).click();
    await media.getByText('"not a type" is not in the expected form').waitFor();
    await media.getByRole('button', { name: 'Remove not a type from Allowed file types' }).click();
    expect(await media.getByText('is not in the expected form').count()).to.equal(0);
    expect(patches.some((p) => p.includes('GRAPHQL_MAX_DEPTH') || p.includes('not a type'))).to.equal(false);

    // A secret: typed once, then only "set"; never in the page again.
    const updates = group(page, 'updates');
    await updates.getByTestId('secret-state-LICENSE_KEY').filter({ hasText: 'not set' }).waitFor();
    await updates.getByLabel('Licence key').fill(SECRET);
    await updates.getByRole('button', { name: 'Save update check and licence' }).click();
    await updates.getByText('Saved: Licence key.').waitFor();
    await updates.getByTestId('secret-state-LICENSE_KEY').filter({ hasText: /^set$/ }).waitFor();
    expect(await updates.getByLabel('Licence key').inputValue()).to.equal('');
    await page.reload();
    await group(page, 'updates').getByTestId('secret-state-LICENSE_KEY').filter({ hasText: /^set$/ }).waitFor();
    expect(await page.content()).to.not.include(SECRET);
    const listed = await (await context.request.get(`${t.url}/api/settings`)).text();
    expect(listed).to.not.include(SECRET);

    expect(await seriousViolations(page), 'axe: the Settings page').to.deep.equal([]);

    // Maintenance: a switch with a confirmation; the banner shows on every admin page while it is on.
    const anonymous = await b.newContext();
    expect((await anonymous.request.get(`${t.url}/api/collections`)).status()).to.equal(401);
    const maintenance = group(page, 'maintenance');
    await maintenance.getByRole('switch', { name: /Maintenance mode/ }).click();
    const confirmOn = page.getByRole('dialog', { name: 'Turn maintenance mode on?' });
    await confirmOn.getByRole('button', { name: 'Turn it on' }).click();
    await page.getByTestId('maintenance-banner').waitFor();
    await maintenance.getByText('Maintenance mode is on. Visitors now see the maintenance page.').waitFor();
    expect(await maintenance.getByRole('switch', { name: /Maintenance mode/ }).isChecked()).to.equal(true);
    const refused = await anonymous.request.get(`${t.url}/api/collections`);
    expect(refused.status()).to.equal(503);
    expect(refused.headers()['retry-after']).to.equal('300');
    // The public theme stays 200 during maintenance (the spec: always HTTP 200).
    expect((await anonymous.request.get(`${t.url}/api/theme/public`)).status()).to.equal(200);
    expect(await seriousViolations(page), 'axe: the Settings page with the banner').to.deep.equal([]);

    await page.getByRole('link', { name: 'Collections', exact: true }).click();
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    await page.getByTestId('maintenance-banner').getByText('Maintenance mode is on').waitFor();
    await page.getByRole('link', { name: 'Turn it off in Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await group(page, 'maintenance')
      .getByRole('switch', { name: /Maintenance mode/ })
      .click();
    await page.getByRole('dialog', { name: 'Turn maintenance mode off?' }).getByRole('button', { name: 'Turn it off' }).click();
    await group(page, 'maintenance').getByText('Maintenance mode is off. The site is open to everyone again.').waitFor();
    await page.getByTestId('maintenance-banner').waitFor({ state: 'detached' });
    expect((await anonymous.request.get(`${t.url}/api/collections`)).status()).to.equal(401);
  });

  it('an administrator clears a stored secret (the link from elsewhere opens its group)', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, ADMIN, PASSWORD);
    // The state reads "will be cleared" until the group is saved.
    await page.goto(`${t.url}/admin/settings#group-updates`);
    const updates = group(page, 'updates');
    await updates.getByTestId('secret-state-LICENSE_KEY').filter({ hasText: /^set$/ }).waitFor();
    await updates.getByRole('button', { name: 'Clear Licence key' }).click();
    await updates.getByTestId('secret-state-LICENSE_KEY').filter({ hasText: 'will be cleared' }).waitFor();
    await updates.getByRole('button', { name: 'Save update check and licence' }).click();
    await updates.getByText('Saved: Licence key.').waitFor();
    await updates.getByTestId('secret-state-LICENSE_KEY').filter({ hasText: 'not set' }).waitFor();
  });

  it('a refused upload links to the media settings; allowing its type there lets the same file through at once', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, ADMIN, PASSWORD);
    await page.goto(`${t.url}/admin/media`);
    await page.getByRole('heading', { name: 'Media', level: 1 }).waitFor();
    // A Windows program (MZ header): its detected type is not in the default list.
    const exe = {
      name: 'tool.exe',
      mimeType: 'application/octet-stream',
      buffer: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(4096, 0x90)]),
    };
    await page.getByLabel('Upload files').setInputFiles(exe);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads.getByText('Not uploaded').waitFor();
    const problem = (await uploads.locator('.uerror').textContent()) ?? '';
    const type = /Files of type (\S+) are not allowed/.exec(problem)?.[1];
    expect(type, problem).to.be.a('string');
    await uploads.getByRole('link', { name: 'Open the media settings' }).click();
    const media = group(page, 'media');
    await media.getByRole('heading', { name: 'Media and uploads' }).waitFor();
    await media.getByLabel('New item for Allowed file types').fill(type!);
    await media.getByRole('button', { name: 'Add to Allowed file types' }).click();
    await media.getByRole('button', { name: 'Save media and uploads' }).click();
    await media.getByText('Saved: Allowed file types.').waitFor();

    await page.goto(`${t.url}/admin/media`);
    await page.getByLabel('Upload files').setInputFiles(exe);
    await page.getByRole('list', { name: 'Uploads' }).getByText('Done').waitFor();
    expect(await page.getByRole('list', { name: 'Uploads' }).getByText('Not uploaded').count()).to.equal(0);
  });
});
