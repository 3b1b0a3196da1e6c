import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError } from '../../kernel/errors.js';
import { parseManifest } from '../../kernel/manifest.js';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { bootFailure, fixturePlugin, pluginBootFailure, pluginRoot, useCleanup, writePlugin, useTestKernel } from '../helpers/kernel.js';

/** The example third-party plugin with an admin page (plain JavaScript, outside plugins/). */
const HELLO_PAGE_PLUGIN = join(PROJECT_ROOT, 'examples', 'hello-page-plugin');
/** A GET whose path is sent as written (fetch would resolve `..` and `%2e%2e` before sending). */
function rawGet(baseUrl: string, path: string, identity: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}/`, { path, headers: { 'x-test-identity': identity } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const base = { id: 'pages-test', name: 'Pages test', version: '1.0.0', kernel: '^1.0.0' };
const page = (extra: Record<string, unknown>) => ({ path: '/admin/x', title: 'X', module: 'bundled:x', ...extra });

describe('admin pages: manifest validation', function () {
  this.timeout(30000);
  const cleanup = useCleanup();

  it('accepts bundled and file modules, :param segments and the nav forms', () => {
    const m = parseManifest(
      {
        ...base,
        adminPages: [
          page({ path: '/admin/hello', module: 'admin/page.js', nav: { label: 'Hi', order: 5 }, icon: 'wave', permission: 'content:read' }),
          page({ path: '/admin/hello/:id', module: 'page.mjs', nav: false }),
          page({ path: '/admin/other', nav: true }),
          page({ path: '/admin/grouped', nav: { label: 'Grouped', group: 'data' } }),
        ],
      },
      'test',
    );
    expect(m.adminPages).to.have.length(4);
    expect(m.adminPages[3]!.nav).to.deep.equal({ label: 'Grouped', order: 500, group: 'data' });
    expect(parseManifest(base, 'test').adminPages).to.deep.equal([]);
  });

  for (const [what, bad, field] of [
    ['a path outside /admin/', page({ path: '/hello' }), 'adminPages.0.path'],
    ['the bare /admin path', page({ path: '/admin' }), 'adminPages.0.path'],
    ['a path with ..', page({ path: '/admin/../api' }), 'adminPages.0.path'],
    ['a module path with ..', page({ module: '../outside.js' }), 'adminPages.0.module'],
    ['an absolute module path', page({ module: '/etc/x.js' }), 'adminPages.0.module'],
    ['a module that is not JavaScript', page({ module: 'page.ts' }), 'adminPages.0.module'],
    ['an unknown field', page({ component: 'X' }), 'adminPages.0'],
    ['a malformed permission', page({ permission: 'Everything' }), 'adminPages.0.permission'],
    ['a missing title', { path: '/admin/x', module: 'bundled:x' }, 'adminPages.0.title'],
    ['an unknown sidebar group', page({ nav: { label: 'X', group: 'toolbox' } }), 'adminPages.0.nav'],
  ] as const) {
    it(`refuses ${what}`, () => {
      expect(() => parseManifest({ ...base, adminPages: [bad] }, 'test')).to.throw(BootError, field);
    });
  }

  it('a module file that does not exist stops the boot, naming the plugin and the file', async () => {
    const message = await pluginBootFailure(cleanup, {
      id: 'no-file',
      adminPages: [page({ path: '/admin/no-file', module: 'admin/missing.js' })],
    });
    expect(message).to.contain("'no-file'");
    expect(message).to.contain('admin/missing.js');
  });

  it('a module file that links outside the plugin folder stops the boot', async () => {
    const root = pluginRoot(cleanup);
    writeFileSync(join(root, 'outside.js'), 'export function mount() {}\n');
    const dir = writePlugin(root, { id: 'linked', adminPages: [page({ path: '/admin/linked', module: 'link.js' })] });
    symlinkSync(join(root, 'outside.js'), join(dir, 'link.js'));
    const err = await bootFailure({ plugins: [dir] });
    expect(err.message).to.contain("'linked'");
    expect(err.message).to.contain('outside');
  });

  it('two plugins declaring the same page path stop the boot, naming both', async () => {
    const root = pluginRoot(cleanup);
    const alpha = writePlugin(root, { id: 'alpha', adminPages: [page({ path: '/admin/same' })] });
    const beta = writePlugin(root, { id: 'beta', adminPages: [page({ path: '/admin/same' })] });
    const err = await bootFailure({ plugins: [alpha, beta] });
    expect(err.message).to.contain('/admin/same');
    expect(err.message).to.contain("'alpha'");
    expect(err.message).to.contain("'beta'");
  });

  it('a page taking a path of a core plugin (media) names both plugins', async () => {
    const message = await pluginBootFailure(cleanup, { id: 'copycat', adminPages: [page({ path: '/admin/media' })] });
    expect(message).to.contain("'copycat'");
    expect(message).to.contain("'media'");
  });

  it('an unknown permission, a reserved path, or a page added from code stops the boot', async () => {
    const root = pluginRoot(cleanup);
    const unknown = writePlugin(root, { id: 'unknown-perm', adminPages: [page({ path: '/admin/u', permission: 'nothing:here' })] });
    expect((await bootFailure({ plugins: [unknown] })).message).to.contain("unknown permission 'nothing:here'");
    const reserved = writePlugin(root, { id: 'reserved', adminPages: [page({ path: '/admin/plugin-pages/x' })] });
    expect((await bootFailure({ plugins: [reserved] })).message).to.contain('reserved');
    const coded = writePlugin(
      root,
      { id: 'coded' },
      "export default { register({ registries }) { registries.adminPages.add({ path: '/admin/c', pluginId: 'coded', title: 'C', nav: false, module: { kind: 'bundled', name: 'c' } }); } };\n",
    );
    expect((await bootFailure({ plugins: [coded] })).message).to.contain('plugin.json');
  });
});

describe('admin pages: GET /api/admin-ui/pages and the module files', function () {
  this.timeout(60000);
  const t = useTestKernel(() => {
    const root = pluginRoot(cleanup);
    const secret = writePlugin(root, {
      id: 'secret-pages',
      adminPages: [
        { path: '/admin/secret', title: 'Secret', permission: 'user:manage', module: 'secret.js' },
        { path: '/admin/secret/:id', title: 'Secret item', module: 'bundled:nothing' },
      ],
    });
    writeFileSync(join(secret, 'secret.js'), 'export function mount(el) { el.textContent = "secret"; }\n');
    writeFileSync(join(secret, 'undeclared.js'), 'export const x = 1;\n');
    mkdirSync(join(root, 'elsewhere'));
    return {
      plugins: [fixturePlugin('test-identity'), HELLO_PAGE_PLUGIN, secret],
      config: { plugins: { disabled: ['importers'] } },
    };
  });
  // Registered after the kernel's hooks: the kernel closes before its plugin folders are removed.
  const cleanup = useCleanup();

  const pagesOf = async (identity?: string) => {
    const res = await t.request('/api/admin-ui/pages', { identity });
    return { status: res.status, body: await res.json() };
  };

  it('needs an identity', async () => {
    expect((await pagesOf()).status).to.equal(401);
  });

  it('lists the pages of enabled plugins by sidebar order, with their modules', async () => {
    const { status, body } = await pagesOf('admin');
    expect(status).to.equal(200);
    const pages = body.data.pages as Array<Record<string, any>>;
    // Sidebar order: by group (media, data, settings, more), then order; pages without a link last.
    expect(pages.map((p) => p.path)).to.deep.equal([
      '/admin/media',
      '/admin/data/import',
      '/admin/data/export',
      '/admin/data/sync',
      '/admin/data/backups',
      '/admin/data/config',
      '/admin/data/migrations',
      '/admin/themes',
      '/admin/agent-sessions',
      '/admin/hello',
      '/admin/secret',
      '/admin/secret/:id',
    ]);
    expect(pages[0]).to.deep.equal({
      pluginId: 'media',
      path: '/admin/media',
      title: 'Media',
      icon: 'media',
      nav: { label: 'Media library', order: 10, group: 'media' },
      permission: 'media:read',
      module: { kind: 'bundled', name: 'media' },
    });
    const hello = pages.find((p) => p.path === '/admin/hello')!;
    expect(hello).to.deep.include({
      pluginId: 'hello-page',
      title: 'Hello page',
      icon: 'wave',
      // 'wave' suggests no group: the link goes under "More".
      nav: { label: 'Hello', order: 80, group: 'more' },
      permission: null,
    });
    expect(hello.module).to.deep.equal({ kind: 'url', url: '/admin/plugin-pages/hello-page/admin/hello-page.js' });
    // nav defaults: true (label = title) without parameters, false with one; no icon: group "more".
    expect(pages.find((p) => p.path === '/admin/secret')!.nav).to.deep.equal({ label: 'Secret', order: 500, group: 'more' });
    // A data page names its group in its manifest.
    expect(pages.find((p) => p.path === '/admin/data/backups')!.nav).to.deep.equal({ label: 'Backups', order: 50, group: 'data' });
    expect(pages.find((p) => p.path === '/admin/secret/:id')!.nav).to.equal(false);
  });

  it("leaves out a disabled plugin's page (importers) and the pages the role may not see", async () => {
    const viewer = (await pagesOf('viewer')).body.data.pages.map((p: { path: string }) => p.path);
    expect(viewer).to.deep.equal(['/admin/media', '/admin/hello', '/admin/secret/:id']);
    const editor = (await pagesOf('editor')).body.data.pages.map((p: { path: string }) => p.path);
    // Editors move content between instances (content:export, content:import, content:sync); viewers do not.
    expect(editor).to.deep.equal([
      '/admin/media',
      '/admin/data/import',
      '/admin/data/export',
      '/admin/data/sync',
      '/admin/themes',
      '/admin/hello',
      '/admin/secret/:id',
    ]);
    expect(t.kernel.registries.adminPages.has('/admin/importers')).to.equal(false);
  });

  it('serves a declared module file as JavaScript with no-cache and an ETag (304 on revalidation)', async () => {
    const res = await t.request('/admin/plugin-pages/hello-page/admin/hello-page.js', { identity: 'viewer' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    const tag = res.headers.get('etag');
    expect(tag).to.be.a('string');
    expect(await res.text()).to.contain('export function mount');
    const again = await t.request('/admin/plugin-pages/hello-page/admin/hello-page.js', {
      identity: 'viewer',
      headers: { 'if-none-match': tag! },
    });
    expect(again.status).to.equal(304);
  });

  it('refuses guests, pages the role may not see, undeclared files, unknown plugins and traversal', async () => {
    expect((await t.request('/admin/plugin-pages/hello-page/admin/hello-page.js')).status).to.equal(401);
    expect((await t.request('/admin/plugin-pages/secret-pages/secret.js', { identity: 'viewer' })).status).to.equal(404);
    expect((await t.request('/admin/plugin-pages/secret-pages/secret.js', { identity: 'admin' })).status).to.equal(200);
    for (const path of [
      '/admin/plugin-pages/secret-pages/undeclared.js',
      '/admin/plugin-pages/secret-pages/plugin.json',
      '/admin/plugin-pages/secret-pages/index.js',
      '/admin/plugin-pages/nobody/secret.js',
      '/admin/plugin-pages/hello-page/admin/missing.js',
      '/admin/plugin-pages/hello-page/admin/../index.js',
      '/admin/plugin-pages/hello-page/admin/..%2Findex.js',
      '/admin/plugin-pages/hello-page/%2e%2e/%2e%2e/package.json',
      '/admin/plugin-pages/hello-page/../hello-page/index.js',
      '/admin/plugin-pages/hello-page/admin%2Fhello-page.js%00',
      '/admin/plugin-pages/importers/x.js',
    ]) {
      const res = await rawGet(t.url, path, 'admin');
      // 404, or 400 for the NUL byte (refused before any handler runs).
      expect(res.status, path).to.be.oneOf([400, 404]);
      expect(res.body, path).to.not.contain('export');
    }
  });

  it("the example page's API answers a signed-in user", async () => {
    const post = await t.request('/api/hello-page/greeting', { method: 'POST', identity: 'viewer', json: { name: 'Grace' } });
    expect(post.status).to.equal(200);
    const got = await (await t.request('/api/hello-page/greeting', { identity: 'viewer' })).json();
    expect(got.data.visitors).to.deep.equal(['Grace']);
    expect((await t.request('/api/hello-page/greeting', { method: 'POST', identity: 'viewer', json: { name: ' ' } })).status).to.equal(400);
  });

  it('the catch-all still serves the app for other /admin paths', async () => {
    const res = await t.request('/admin/hello');
    expect([200, 503]).to.include(res.status);
    expect(res.headers.get('content-type')).to.match(/html/);
  });
});
