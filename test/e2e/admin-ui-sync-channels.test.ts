import { expect } from 'chai';
import { ADA, PASSWORD, signInWithApi, useBrowser, useUiKernelBeside } from '../helpers/browser.js';
import { startChildInstance, type ChildInstance } from '../helpers/content-sync-rig.js';
import { addSyncChannel } from '../helpers/admin-pages.js';

// The content-sync page: adding a channel whose key the other instance refuses says why, in words
// (issue 32, item 15: it said only "The server log has the details"); a good key adds the channel.

describe('admin UI: content-sync channels in the browser (sqlite)', function () {
  this.timeout(120000);
  const browser = useBrowser();
  let remote: ChildInstance;
  const t = useUiKernelBeside(
    // The other instance is on loopback: the operator switch lets the channel reach it.
    { db: 'sqlite', config: { outbound: { allowPrivate: true } } },
    { users: [ADA] },
    async () => {
      remote = await startChildInstance();
      return () => remote.stop();
    },
  );

  it('a key the other instance refuses is explained on the page; a good key adds the channel', async function () {
    await signInWithApi(browser.context, t.url, 'ada@example.com', PASSWORD);
    const page = browser.page;
    await page.goto(`${t.url}/admin/data/sync`);
    const form = await addSyncChannel(page, 'production', remote.url, 'sck_' + 'w'.repeat(43));
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
