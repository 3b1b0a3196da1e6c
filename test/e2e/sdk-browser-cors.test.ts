import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { useBrowser } from '../helpers/browser.js';
import { useTestKernel } from '../helpers/kernel.js';
import { ADMIN, readToken, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';

// The client SDK in Chromium on a site of its own origin (issue 39: "usable from browsers"): a page served from one
// loopback port imports the built SDK (packages/sdk/dist, plain ES modules, no bundler) and reads the published posts
// of a kernel on another port with a website token. It works from the origin the kernel lists in CMS_CORS_ORIGINS
// (`http.corsOrigins`), and the browser refuses it from another one; a cookie sign-in never works across origins.

const SDK_DIST = join(PROJECT_ROOT, 'packages', 'sdk', 'dist');
const PAGE = `<!doctype html><meta charset="utf-8"><title>A site</title>
<script type="module">
  import { createClient, isCmsError } from './sdk/index.js';
  globalThis.CmsSdk = { createClient, isCmsError };
  document.title = 'ready';
</script>`;

/** A site on its own loopback port: the page above and the SDK's built modules under /sdk/. */
async function startSite(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = /^\/sdk\/([\w.-]+\.js)$/.exec(path)?.[1];
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (file) res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(SDK_DIST, file)));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('browser: the client SDK on another origin, with CORS for listed origins (Chromium)', function () {
  this.timeout(90000);
  let listed: { origin: string; server: Server };
  let unlisted: { origin: string; server: Server };
  let blog: Blog;
  let token: string;
  before(async () => {
    listed = await startSite();
    unlisted = await startSite();
  });
  after(() => {
    listed?.server.close();
    unlisted?.server.close();
  });
  const t = useTestKernel(() => ({ ...SDK_KERNEL, config: { ...SDK_KERNEL.config, http: { corsOrigins: [listed.origin] } } }), {
    seed: async () => {
      blog = await seedBlog(t);
      token = await readToken(blog.admin);
    },
  });
  const b = useBrowser();

  /** Opens the site's page at `origin` and lists the published posts of the kernel with `bearer`, as a site would. */
  async function listFrom(origin: string, bearer: string) {
    await b.page.goto(`${origin}/`);
    await b.page.waitForFunction(() => (globalThis as any).document.title === 'ready');
    return b.page.evaluate(
      async ({ url, bearer }) => {
        const { createClient, isCmsError } = (globalThis as any).CmsSdk;
        try {
          const page = await createClient({ url, token: bearer }).collection('posts').list({ status: 'published', sort: 'createdAt' });
          return { titles: page.items.map((p: { title: string }) => p.title) };
        } catch (err: any) {
          return { error: isCmsError(err) ? `${err.code} ${err.status}` : String(err), requestId: err?.requestId ?? null };
        }
      },
      { url: t.url, bearer },
    );
  }

  it('lists the published posts from a page of a listed origin', async function () {
    expect(listed.origin).to.not.equal(new URL(t.url).origin);
    expect(await listFrom(listed.origin, token)).to.deep.equal({ titles: blog.published });
  });

  it("reads the API's error code and request id there (the exposed headers), for a refused token", async function () {
    const refused = await listFrom(listed.origin, 'not-a-token');
    expect(refused.error).to.equal('AUTHENTICATION_REQUIRED 401');
    expect(refused.requestId).to.be.a('string').and.not.equal('');
  });

  it('is refused by the browser from a page of an origin the kernel does not list', async function () {
    const result = await listFrom(unlisted.origin, token);
    expect(result.error).to.match(/^NETWORK_ERROR 0$/);
  });

  it('never signs in with a session cookie across origins, even from a listed one', async function () {
    await b.page.goto(`${listed.origin}/`);
    await b.page.waitForFunction(() => (globalThis as any).document.title === 'ready');
    const result = await b.page.evaluate(
      async ({ url, email, password }) => {
        const { createClient, isCmsError } = (globalThis as any).CmsSdk;
        const cms = createClient({ url, credentials: 'include' });
        const outcome = async (call: () => Promise<unknown>) => {
          try {
            await call();
            return 'ok';
          } catch (err: any) {
            return isCmsError(err) ? err.code : String(err);
          }
        };
        return { login: await outcome(() => cms.login(email, password)), me: await outcome(() => cms.me()) };
      },
      { url: t.url, email: ADMIN.email, password: ADMIN.password },
    );
    expect(result).to.deep.equal({ login: 'NETWORK_ERROR', me: 'NETWORK_ERROR' });
    expect(await b.context.cookies(t.url)).to.deep.equal([]);
  });
});
