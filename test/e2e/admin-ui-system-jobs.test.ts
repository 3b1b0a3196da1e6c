import { expect } from 'chai';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import { SCREENSHOT_DIR, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery';

describe('admin UI: maintenance jobs on the System page', function () {
  this.timeout(90000);
  const b = useBrowser();
  const t = useUiKernel(
    { config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } } },
    {
      seed: async () => {
        const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
        await users.create({ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
        await users.create({ email: 'old@example.com', password: PASSWORD, role: 'editor', username: 'Old' });
      },
    },
  );

  it('lists the jobs with what they do, runs one and shows its result when it completes', async function () {
    // One session that has expired, for the purge to find.
    const login = await t.request('/api/user/login', {
      method: 'POST',
      json: { email: 'old@example.com', password: PASSWORD },
      headers: { 'user-agent': 'expired-client' },
    });
    expect(login.status).to.equal(200);
    await t.kernel.sequelize.query('UPDATE auth_sessions SET expires_at = ? WHERE user_agent = ?', {
      replacements: [Date.now() - 1000, 'expired-client'],
    });

    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/system`);
    const card = page.getByTestId('system-jobs');
    await card.getByRole('heading', { name: 'Maintenance jobs' }).waitFor();
    await card.locator('li[data-job="purge-expired-sessions"]').waitFor();
    for (const name of ['purge-expired-tokens', 'purge-expired-sessions', 'prune-audit', 'rebuild-list-caches', 'reindex-search'])
      expect(await card.locator(`li[data-job="${name}"]`).count(), name).to.equal(1);
    expect(await card.locator('li[data-job="purge-expired-sessions"]').innerText()).to.include('Revokes and deletes expired sessions');
    await card.getByText('No job has run yet.').waitFor();

    await card.locator('li[data-job="purge-expired-sessions"]').getByRole('button', { name: 'Run' }).click();
    const row = card.locator('tr[data-run="purge-expired-sessions"]');
    await row.getByTestId('run-status').getByText('completed').waitFor();
    expect(await row.innerText()).to.include('sessions: 1');
    expect(await page.getByText('Purge expired sessions started').count()).to.equal(1);
    const left = await t.kernel.sequelize.query('SELECT 1 FROM auth_sessions WHERE user_agent = ?', {
      replacements: ['expired-client'],
      type: QueryTypes.SELECT,
    });
    expect(left).to.have.length(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'system-jobs.png'), fullPage: true });
  });
});
