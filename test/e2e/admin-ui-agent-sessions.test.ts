// Issue 39, item 3 (docs/features/mcp.md): an agent writes through the MCP server with a narrow key; the administrator
// opens Agent sessions, sees the session under the key's name with its changes, reverts it after the confirmation, and
// the entries are as before (the one the agent created is gone, the one it changed has its value back).
import { expect } from 'chai';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { ADA, PASSWORD, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { apiKey, body, connect } from '../helpers/mcp.js';
import { until } from '../helpers/until.js';

describe('admin UI: agent sessions (sqlite)', function () {
  this.timeout(120000);
  const AUTHOR = { email: 'author@example.com', password: PASSWORD, role: 'editor' };
  const b = useBrowser();
  const t = useUiKernel({}, { users: [ADA, AUTHOR] });

  it("lists the agent's session under the key's name and reverts it with the Revert button", async function () {
    const system = createLocalClient(t.kernel);
    await system.collections.create({ name: 'articles', fields: [{ name: 'title', type: 'text', required: true }] } as never);
    const kept = (await system.entries('articles').create({ title: 'Written by a person', status: 'draft' }))._id;
    const key = await apiKey(
      t,
      AUTHOR,
      'nightly-agent',
      ['content:read', 'content:write'],
      [{ collection: 'articles', actions: ['read', 'create', 'update'] }],
    );
    const client = await connect(t, key);
    const created = body(
      await client.callTool({ name: 'create_entry', arguments: { collection: 'articles', data: { title: 'Agent text' } } }),
    );
    await client.callTool({
      name: 'update_entry',
      arguments: { collection: 'articles', id: kept, data: { title: 'Rewritten by the agent' } },
    });
    await client.close();

    const page = b.page;
    await signInWithApi(page.context(), t.url, ADA.email, PASSWORD);
    await page.goto(`${t.url}/admin/agent-sessions`);
    const row = page.locator('[data-testid="agent-sessions"] tbody tr').first();
    await row.getByText('nightly-agent').waitFor();
    await row.getByRole('button', { name: 'Changes' }).click();
    await page.getByTestId('agent-changes').getByText(created._id).waitFor();
    await row.getByRole('button', { name: 'Revert' }).click();
    const reverted = page.waitForResponse((r) => r.url().endsWith('/revert') && r.request().method() === 'POST');
    await page.getByRole('dialog').getByRole('button', { name: 'Revert' }).click();
    expect((await reverted).status()).to.equal(200);
    await until(
      async () => (await row.getByTestId('session-state').textContent())?.includes('Reverted') || undefined,
      'the row says Reverted',
    );
    expect(await row.getByRole('button', { name: 'Revert' }).isDisabled()).to.equal(true);
    expect([...(await system.entries('articles').existing([created._id, kept]))]).to.deep.equal([kept]);
    expect((await system.entries('articles').get(kept)).title).to.equal('Written by a person');
  });
});
