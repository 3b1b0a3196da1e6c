import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'otplib';
import type { Page, Response } from 'playwright-core';
import { signInWithApi, startUiKernel, useBrowser } from '../helpers/browser.js';
import { responseCookie, type TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';

/** A page of another origin: the same host (127.0.0.1), another port. */
async function startAttacker(html: (target: string) => string, target: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(req.url === '/' ? html(target) : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The attack seen in issue 32: a form POST that turns 2FA off, and a credentialed fetch that signs the victim out. */
const attackPage = (target: string) => `<!doctype html><html><body>
<h1>Cute cats</h1>
<iframe name="sink" title="sink"></iframe>
<form id="disable" method="POST" action="${target}/api/auth/2fa/disable" target="sink"><input type="hidden" name="x" value="1"></form>
<script>
  document.getElementById('disable').submit();
  fetch('${target}/api/user/logout', { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => {});
</script>
</body></html>`;

describe('browser: forged requests from another origin, and returnTo', function () {
  this.timeout(90000);
  const b = useBrowser();
  let t: TestKernel;
  let attacker: { url: string; server: Server } | undefined;
  const users = () => t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
  before(async () => {
    t = await startUiKernel({ config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } } });
    attacker = await startAttacker(attackPage, t.url);
    expect(new URL(attacker.url).port).to.not.equal(new URL(t.url).port);
  });
  after(async () => {
    attacker?.server.close();
    await t?.close();
  });

  /** A user with 2FA on (set up through the API); returns the TOTP secret. */
  async function userWith2fa(email: string): Promise<string> {
    await users().create({ email, password: PASSWORD, role: 'admin', username: 'Vic' });
    const session = responseCookie(await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } }))!;
    const setup = (await (await t.request('/api/auth/2fa/setup', { method: 'POST', headers: { cookie: session } })).json()).data;
    const ok = await t.request('/api/auth/2fa/verify-setup', {
      method: 'POST',
      headers: { cookie: session },
      // The previous period's code (accepted, window -1): the current one stays unused for the sign-in below (a code works once).
      json: {
        secret: setup.secret,
        verificationCode: await generate({ secret: setup.secret, epoch: Math.floor(Date.now() / 1000) - 30 }),
        backupCodes: setup.backupCodes,
      },
    });
    expect(ok.status).to.equal(200);
    await t.request('/api/user/logout', { method: 'POST', headers: { cookie: session } });
    return setup.secret;
  }

  it('a page on another port of the same host can neither turn 2FA off nor sign the victim out; the admin UI still works', async function () {
    const secret = await userWith2fa('victim@example.com');
    const { page, context } = b;
    // The victim signs in through the admin UI (password, then the code).
    await page.goto(`${t.url}/login`);
    await page.getByLabel('Email').fill('victim@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authentication code').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/admin\/$/);
    expect((await context.cookies(t.url)).some((c) => c.name === 'session')).to.equal(true);

    // Then opens the attacker's page in another tab: both forged requests reach the instance with the cookie, and are refused.
    const evil = await context.newPage();
    const answered = (path: string) => evil.waitForResponse((r: Response) => r.url() === `${t.url}${path}`);
    const [disable, logout] = await Promise.all([
      answered('/api/auth/2fa/disable'),
      answered('/api/user/logout'),
      evil.goto(attacker!.url),
    ]);
    expect(disable.status()).to.equal(403);
    // The 2FA endpoints answer {message}: the refusal shows in the attacker's hidden frame.
    expect(JSON.parse(await evil.frameLocator('iframe[name=sink]').locator('body').innerText())).to.have.all.keys('message');
    // 403, not the 401 of a caller without a session: the fetch carried the cookie and was refused for its origin.
    expect(logout.status()).to.equal(403);
    expect((await disable.request().allHeaders())['cookie'], 'the browser sent the session cookie').to.match(/session=/);

    // Nothing changed: still signed in, 2FA still on.
    const status = await context.request.get(`${t.url}/api/auth/2fa/backup-codes`);
    expect(status.status()).to.equal(200);
    expect((await status.json()).data.enabled).to.equal(true);

    // The admin UI's own unsafe requests (same origin) still work: a website token created on the account page.
    await page.goto(`${t.url}/admin/account`);
    const tokens = page.getByRole('region', { name: 'Website tokens' });
    await tokens.getByLabel('Name').fill('After the attack');
    await tokens.getByRole('button', { name: 'Create website token' }).click();
    expect(await tokens.getByLabel('New website token').inputValue())
      .to.be.a('string')
      .with.length.greaterThan(10);
    await tokens.getByRole('button', { name: 'Done' }).click();
    await tokens.getByRole('cell', { name: 'After the attack', exact: true }).waitFor();
  });

  /** Every request the page makes to evil.example is answered here (and counted), so leaving the site is seen, not a DNS error. */
  async function watchEvil(page: Page): Promise<string[]> {
    const hits: string[] = [];
    await page.context().route(
      (url) => url.hostname.endsWith('evil.example'),
      (route) => {
        hits.push(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Evil</h1>' });
      },
    );
    return hits;
  }

  for (const returnTo of ['/%5Cevil.example', '/%09/evil.example', '/%5C%5Cevil.example', '//evil.example', 'https://evil.example/']) {
    it(`/login?returnTo=${returnTo} keeps a signed-in browser on the site`, async function () {
      const { page, context } = b;
      const hits = await watchEvil(page);
      const email = `returnto-${Date.now()}@example.com`;
      await users().create({ email, password: PASSWORD, role: 'editor' });
      await signInWithApi(context, t.url, email, PASSWORD);
      await page.goto(`${t.url}/login?returnTo=${returnTo}`);
      await page.waitForURL(/\/admin\/$/);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      expect(new URL(page.url()).origin).to.equal(new URL(t.url).origin);
      expect(hits).to.deep.equal([]);
    });
  }

  it('/login?returnTo=/%5Cevil.example keeps the browser on the site after signing in with the form', async function () {
    const { page } = b;
    const hits = await watchEvil(page);
    await users().create({ email: 'form-returnto@example.com', password: PASSWORD, role: 'editor' });
    await page.goto(`${t.url}/login?returnTo=/%5Cevil.example`);
    await page.getByLabel('Email').fill('form-returnto@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/$/);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).origin).to.equal(new URL(t.url).origin);
    expect(hits).to.deep.equal([]);
  });

  it('a local returnTo is still followed', async function () {
    const { page, context } = b;
    await users().create({ email: 'local-returnto@example.com', password: PASSWORD, role: 'admin' });
    await signInWithApi(context, t.url, 'local-returnto@example.com', PASSWORD);
    await page.goto(`${t.url}/login?returnTo=${encodeURIComponent('/admin/system')}`);
    await page.waitForURL(/\/admin\/system$/);
    await page.getByRole('heading', { name: 'System', level: 1 }).waitFor();
  });
});
