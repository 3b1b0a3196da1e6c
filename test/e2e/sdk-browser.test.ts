import { expect } from 'chai';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { useBrowser } from '../helpers/browser.js';
import { waitFor } from '../helpers/graphql-ws.js';
import { useTestKernel } from '../helpers/kernel.js';
import { EDITOR, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';

// The client SDK in a real browser (Chromium): the built package bundled by esbuild for the browser, as a site's
// bundler would, loaded into a page of the instance's origin. A session there is the browser's own cookie (the SDK
// sends no cookie or CSRF token itself: fetch with credentials, the kernel checks Sec-Fetch-Site), and the
// subscriptions helper runs on the browser's WebSocket, authenticated by that cookie on the same-origin upgrade.

let bundled: string | undefined;
/** The SDK as one browser script defining `CmsSdk` (esbuild, from packages/sdk/dist). */
async function sdkScript(): Promise<string> {
  if (bundled) return bundled;
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [join(PROJECT_ROOT, 'packages', 'sdk', 'dist', 'index.js')],
    bundle: true,
    format: 'iife',
    globalName: 'CmsSdk',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    footer: { js: 'globalThis.CmsSdk = CmsSdk;' },
  });
  bundled = out.outputFiles[0]!.text;
  return bundled;
}

describe('browser: the client SDK on the instance origin (session cookie, native WebSocket)', function () {
  this.timeout(90000);
  const b = useBrowser();
  let blog: Blog;
  const t = useTestKernel(SDK_KERNEL, { seed: async () => void (blog = await seedBlog(t)) });
  const active = () => t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql').activeSubscriptions;

  beforeEach(async function () {
    await b.page.goto(`${t.url}/api/health`);
    await b.page.evaluate(await sdkScript());
  });

  it('signs in with the browser session, writes and reads entries, and signs out', async function () {
    const result = await b.page.evaluate(
      async ({ email, password }) => {
        const { createClient, isCmsError } = (globalThis as any).CmsSdk;
        const cms = createClient({ url: (globalThis as any).location.origin });
        await cms.login(email, password);
        const me = await cms.me();
        const made = await cms.collection('posts').create({ title: 'From the browser', status: 'published' });
        const titles: string[] = [];
        for await (const post of cms.collection('posts').all({ status: 'published', sort: 'createdAt', fields: ['title'] }))
          titles.push(post.title);
        await cms.collection('posts').delete(made._id);
        await cms.logout();
        let after = '';
        try {
          await cms.me();
        } catch (err: any) {
          after = isCmsError(err) ? `${err.code} ${err.status}` : String(err);
        }
        return { role: me.role, cookieVisible: (globalThis as any).document.cookie.includes('session='), titles, after };
      },
      { email: EDITOR.email, password: EDITOR.password },
    );
    expect(result.role).to.equal('editor');
    expect(result.cookieVisible).to.equal(false); // HttpOnly: the browser keeps it, scripts never see it
    expect(result.titles).to.deep.equal([...blog.published, 'From the browser']);
    expect(result.after).to.equal('AUTHENTICATION_REQUIRED 401');
  });

  it("follows a subscription over the browser's WebSocket, authenticated by the session cookie", async function () {
    await b.page.evaluate(
      async ({ email, password }) => {
        const { createClient } = (globalThis as any).CmsSdk;
        await createClient({ url: (globalThis as any).location.origin }).login(email, password);
      },
      { email: EDITOR.email, password: EDITOR.password },
    );
    const received = b.page.evaluate(async () => {
      const { createClient, subscriptions } = (globalThis as any).CmsSdk;
      const live = subscriptions(createClient({ url: (globalThis as any).location.origin }));
      for await (const event of live.subscribe('subscription { postAdded { title status } }')) {
        live.close();
        return event;
      }
      return null;
    });
    await waitFor('the browser subscription', () => active() === 1, 15000);
    await blog.admin.collection('posts').create({ title: 'Seen live', status: 'published' });
    expect(await received).to.deep.equal({ postAdded: { title: 'Seen live', status: 'published' } });
  });
});
