import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KERNEL_VERSION } from '../../kernel/index.js';
import { verifyUpdateSignature } from '../../lib/text/update-signature.js';
import type { UpdateCheckService } from '../../plugins/update-check/service.js';
import { signInWithApi, startUiKernel, useBrowser } from '../helpers/browser.js';
import type { TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';

/** A minimal update server on loopback: register, signed check-update (verified with the shared module), geolocation. */
async function loopbackUpdateServer(): Promise<{ url: string; checks: number; close(): Promise<void> }> {
  const secrets = new Map<string, string>();
  const state = { checks: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(data));
    };
    if (req.url === '/geo')
      return send(200, { country_name: 'Norway', country_code: 'NO', city: 'Oslo', latitude: 59.91, longitude: 10.75 });
    if (req.url === '/api/register') {
      const secret = randomBytes(32).toString('hex');
      secrets.set(body.installation_id, secret);
      return send(200, { secret });
    }
    if (req.url === '/api/check-update') {
      state.checks++;
      const secret = secrets.get(body?.payload?.installation_id);
      if (!secret || !verifyUpdateSignature(secret, body.timestamp, body.payload, body.signature))
        return send(403, { success: false, error: 'INVALID_SIGNATURE' });
      return send(200, { latest_version: KERNEL_VERSION, current_version: KERNEL_VERSION, update_available: false, advisories: [] });
    }
    send(404, { error: 'NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get checks() {
      return state.checks;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('admin UI: the update check (banner and diagnostics)', function () {
  this.timeout(90000);
  const b = useBrowser();
  let t: TestKernel;
  let updates: Awaited<ReturnType<typeof loopbackUpdateServer>>;
  before(async function () {
    updates = await loopbackUpdateServer();
    t = await startUiKernel({
      config: {
        plugins: {
          options: {
            'update-check': {
              allowInTests: true,
              ci: false,
              url: updates.url,
              geolocationUrl: `${updates.url}/geo`,
              initialDelayMs: 60000,
            },
          },
        },
      },
    });
    const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
    await users.create({ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
    await users.create({ email: 'eve@example.com', password: PASSWORD, role: 'editor', username: 'Eve' });
  });
  after(async () => {
    await t?.close();
    await updates?.close();
  });

  it('shows admins a banner when the stored result says a newer version is available, styled by the advisory severity', async function () {
    await t.kernel.container.resolve<UpdateCheckService>('updateCheck').store.saveResult({
      currentVersion: KERNEL_VERSION,
      latestVersion: '99.0.0',
      updateAvailable: true,
      advisories: [
        { id: 'CMS-2099-042', severity: 'critical', affected: '<99.0.0', fixedIn: '99.0.0', summary: 'Remote code execution in uploads' },
      ],
      checkedAt: new Date().toISOString(),
    });
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/`);
    const banner = page.getByTestId('update-banner');
    await banner.waitFor();
    expect(await banner.textContent()).to.match(/Version 99\.0\.0 is available/);
    expect(await banner.textContent()).to.include('CMS-2099-042');
    expect(await banner.getAttribute('data-severity')).to.equal('error');
    expect(await banner.getAttribute('role')).to.equal('alert');
    await banner.getByRole('button', { name: 'Dismiss the update notice' }).click();
    expect(await page.getByTestId('update-banner').count()).to.equal(0);

    // Not for an editor (no manage:system), who still may read the status on the System page.
    const editor = await b.newContext();
    await signInWithApi(editor, t.url, 'eve@example.com', PASSWORD);
    const editorPage = await editor.newPage();
    await editorPage.goto(`${t.url}/admin/`);
    await editorPage.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await editorPage.waitForTimeout(500);
    expect(await editorPage.getByTestId('update-banner').count()).to.equal(0);
  });

  it("the System page's Run diagnostics button shows each step with its result and time", async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/system`);
    const section = page.getByTestId('update-check');
    await section.getByRole('heading', { name: 'Update check' }).waitFor();
    await section.getByRole('button', { name: 'Run diagnostics' }).click();
    const diagnosis = page.getByTestId('diagnosis');
    for (const step of ['registration', 'signed-ping', 'geolocation']) {
      const row = diagnosis.locator(`tr[data-step="${step}"]`);
      await row.waitFor();
      expect(await row.locator('.badge').textContent(), step).to.equal('ok');
      expect(await row.textContent()).to.match(/\d+ ms/);
    }
    expect(await diagnosis.locator('tr[data-step="geolocation"]').textContent()).to.include('Oslo, Norway');
    expect(updates.checks).to.equal(1);
    // The signed ping was a real check: the stored result now names the running version as the latest.
    await page.getByTestId('latest-version').getByText(KERNEL_VERSION).waitFor();
  });
});
