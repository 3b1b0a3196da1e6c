import { expect } from 'chai';
import { signInWithApi, startUiKernel, useBrowser } from '../helpers/browser.js';
import type { TestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { startChildInstance, type ChildInstance } from '../helpers/content-sync-rig.js';

// The content-sync page: adding a channel whose key the other instance refuses says why, in words
// (issue 32, item 15: it said only "The server log has the details"); a good key adds the channel.
const PASSWORD = 'correct horse battery';

describe('admin UI: content-sync channels in the browser (sqlite)', function () {
  this.timeout(120000);
  const browser = useBrowser();
  let t: TestKernel;
  let remote: ChildInstance;
  before(async function () {
    [t, remote] = await Promise.all([
      // The other instance is on loopback: the operator switch lets the channel reach it.
      startUiKernel({ db: 'sqlite', config: { outbound: { allowPrivate: true } } }),
      startChildInstance(),
    ]);
    await createUsers(t, { email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
  });
  after(async () => {
    await Promise.all([t?.close(), remote?.stop()]);
  });

  it('a key the other instance refuses is explained on the page; a good key adds the channel', async function () {
    await signInWithApi(browser.context, t.url, 'ada@example.com', PASSWORD);
    const page = browser.page;
    await page.goto(`${t.url}/admin/data/sync`);
    const form = page.locator('form.add-form');
    await form.getByLabel('Name').fill('production');
    await form.getByLabel('Address of the other instance').fill(remote.url);
    await form.getByTestId('channel-key').fill('sck_' + 'w'.repeat(43));
    await form.getByRole('button', { name: 'Add channel' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(await alert.getAttribute('data-code')).to.equal('SYNC_REMOTE_AUTH_FAILED');
    expect(text).to.contain("refused the channel's API key").and.contain('401 Unauthorized').and.contain('unknown, revoked or expired');
    expect(text).to.not.contain('server log').and.not.contain('sck_');

    const { key } = await remote.apiKey(['content:read', 'content:sync']);
    await form.getByTestId('channel-key').fill(key);
    await form.getByRole('button', { name: 'Add channel' }).click();
    await page.getByTestId('sync-channels').getByText('production').waitFor();
  });
});
