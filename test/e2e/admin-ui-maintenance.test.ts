import { expect } from 'chai';
import { signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { createUsers } from '../helpers/users.js';

const ADMIN = 'owner@example.com';
const PASSWORD = 'correct horse battery';

describe('maintenance mode in the browser', function () {
  this.timeout(90000);
  const b = useBrowser();
  const settings = () => t.kernel.container.resolve<{ set(key: string, value: unknown): Promise<void> }>('settings');
  const t = useUiKernel(
    { setup: true, config: { plugins: { options: { setup: { admin: { email: ADMIN, password: PASSWORD } } } } } },
    {
      seed: async () => {
        await createUsers(t, { email: 'ed@example.com', password: PASSWORD, role: 'editor', username: 'Ed' });
        await settings().set('SITE_NAME', 'Acme Docs');
        await settings().set('MAINTENANCE_MODE', true);
      },
    },
  );

  it('a visitor sees the maintenance page with the site name; an administrator keeps working in the admin UI', async function () {
    const { page, context } = b;
    const visit = await page.goto(`${t.url}/api/collections`);
    expect(visit!.status()).to.equal(503);
    await page.getByRole('heading', { name: 'Acme Docs is down for maintenance' }).waitFor();
    expect(await page.title()).to.equal('Acme Docs - down for maintenance');

    // An editor's API calls are refused while it is on.
    const other = await b.newContext();
    await signInWithApi(other, t.url, 'ed@example.com', PASSWORD);
    const refused = await other.request.get(`${t.url}/api/collections`);
    expect(refused.status()).to.equal(503);
    expect((await refused.json()).error).to.equal('MAINTENANCE_MODE');

    await signInWithApi(context, t.url, ADMIN, PASSWORD);
    await page.goto(`${t.url}/admin/content`);
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    expect(await page.getByText('down for maintenance').count()).to.equal(0);

    await settings().set('MAINTENANCE_MODE', false);
    const reopened = await other.request.get(`${t.url}/api/collections`);
    expect(reopened.status()).to.equal(200);
  });
});
