import { expect } from 'chai';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startUiKernel, UI_BUILD_DIR, useUiKernel } from '../helpers/browser.js';
import { startTestKernel, tempDir } from '../helpers/kernel.js';

describe('admin UI: serving the build', function () {
  this.timeout(60000);
  const t = useUiKernel();

  it("serves index.html under /admin/ (no-cache, CSP) and for the app's own routes (history routing)", async function () {
    for (const path of [
      '/admin',
      '/admin/',
      '/admin/system',
      '/admin/content/posts/123',
      '/login',
      '/reset-password?token=x',
      '/magic-link?token=x',
      '/register?token=x',
    ]) {
      const res = await t.request(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.include('text/html');
      expect(res.headers.get('cache-control'), path).to.equal('no-cache');
      expect(res.headers.get('content-security-policy'), path).to.include("script-src 'self'");
      expect(await res.text(), path).to.include('<div id="app">');
    }
    const root = await t.request('/', { redirect: 'manual' });
    expect(root.status).to.equal(302);
    expect(root.headers.get('location')).to.equal('/admin/');
  });

  it('serves hashed assets with their type and a year of caching; unknown assets are 404, never HTML', async function () {
    const html = readFileSync(join(UI_BUILD_DIR, 'index.html'), 'utf8');
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const style = /href="(\/admin\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    const js = await t.request(script);
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.include('text/javascript');
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    const css = await t.request(style);
    expect(css.headers.get('content-type')).to.include('text/css');
    const again = await t.request(script, { headers: { 'if-none-match': js.headers.get('etag')! } });
    expect(again.status).to.equal(304);
    expect((await t.request('/admin/assets/nope.js')).status).to.equal(404);
  });

  it('never reads outside the build, whatever the path', async function () {
    for (const path of [
      '/admin/../package.json',
      '/admin/%2e%2e/%2e%2e/package.json',
      '/admin/assets/..%2f..%2fpackage.json',
      '/admin/assets/%2e%2e%2findex.html',
      '/setup/assets/..%2F..%2Fkernel%2Fversion.js',
      '/admin/..%5c..%5cpackage.json',
    ]) {
      const res = await t.request(path);
      const text = await res.text();
      expect(res.status, path).to.be.oneOf([200, 400, 404]);
      expect(text, path).not.to.include('"dependencies"');
      expect(text, path).not.to.include('KERNEL_VERSION');
    }
  });

  it('without a build: /admin answers 503 with instructions, the API keeps working, setup falls back to its plain page', async function () {
    const empty = tempDir('cms-no-ui-');
    mkdirSync(join(empty, 'assets'), { recursive: true });
    const bare = await startTestKernel({ setup: true, config: { plugins: { options: { 'admin-ui': { buildDir: empty } } } } });
    try {
      const setup = await bare.request('/setup');
      expect(setup.status).to.equal(200);
      expect(await setup.text())
        .to.include('Set up your CMS')
        .and.include('<fieldset>');
      const status = await bare.request('/api/setup/status');
      expect(status.status).to.equal(200);
    } finally {
      await bare.close();
    }
    const ready = await startTestKernel({ config: { plugins: { options: { 'admin-ui': { buildDir: empty } } } } });
    try {
      const page = await ready.request('/admin/');
      expect(page.status).to.equal(503);
      expect(await page.text()).to.include('npm run build');
      expect((await ready.request('/api/health')).status).to.equal(200);
    } finally {
      await ready.close();
    }
  });

  it("/setup serves the app's wizard while setup is incomplete, with its assets reachable before setup", async function () {
    const fresh = await startUiKernel({ setup: true });
    try {
      const page = await fresh.request('/setup');
      const html = await page.text();
      expect(html).to.include('<title>Set up your CMS</title>');
      const script = /src="(\/setup\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const js = await fresh.request(script, { redirect: 'manual' });
      expect(js.status).to.equal(200);
      expect(js.headers.get('content-type')).to.include('javascript');
      // Everything else still goes to /setup until setup completes, the app's pages included.
      const admin = await fresh.request('/admin/assets/x.js', { redirect: 'manual' });
      expect(admin.status).to.equal(302);
    } finally {
      await fresh.close();
    }
  });
});
