// Issue 37, item 5 (live preview of the real site): a collection's previewUrl points at the site's page (here the
// README's example, examples/live-preview/index.html, served by a loopback "site"); the entry page shows it beside the
// form with a fresh preview token, the page shows the draft, and after a save it shows the saved version.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ADA, openAdminPage, PASSWORD, useBrowser, useUiKernel } from '../helpers/browser.js';
import { LoopbackServer } from '../helpers/loopback-server.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';
import { signInCookie } from '../helpers/users.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

/** The site: serves the example preview page at /preview.html. */
class Site extends LoopbackServer<{ path: string }> {
  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    this.log.push({ path });
    if (path !== '/preview.html') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(readFileSync(join(PROJECT_ROOT, 'examples', 'live-preview', 'index.html')));
  }
}

for (const variant of DB_VARIANTS) {
  describe(`admin UI: live preview of the site (${variant.name})`, function () {
    this.timeout(120000);
    const site = new Site();
    before(() => site.start());
    after(() => site.close());
    let id = '';
    let cookie = '';
    const b = useBrowser();
    const t = useUiKernel(() => ({ db: variant.name }), {
      variant,
      users: [ADA],
      seed: async () => {
        cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
        const send = async (path: string, json: unknown, method = 'POST') => {
          const res = await t.request(path, { method, headers: { cookie }, json });
          expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
          return (await res.json()).data;
        };
        await send('/api/collections', {
          name: 'stories',
          singular: 'story',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'body', type: 'richtext' },
          ],
          previewUrl: `${site.url}/preview.html?id={id}&slug={slug}&token={token}&cms=${encodeURIComponent(t.url)}`,
        });
        id = (await send('/api/collections/stories', { title: 'Harbour lights', body: '<p>First draft.</p>' }))._id;
      },
    });

    it('shows the draft on the site beside the form, and the saved version after a save', async function () {
      const page = await openAdminPage(b, t, `content/stories/${id}`, 'Harbour lights');
      await page.getByRole('button', { name: 'Live preview' }).click();
      const frame = page.frameLocator('[data-testid="live-preview"]');
      await frame.getByRole('heading', { name: 'Harbour lights', level: 1 }).waitFor();
      expect(await frame.locator('[data-field="body"]').innerText()).to.contain('First draft.');
      expect(await frame.locator('#status').textContent()).to.equal('draft · version 1');
      // The address was filled in: the entry's id and slug, a token.
      const src = (await page.getByTestId('live-preview').getAttribute('src'))!;
      const asked = new URL(src);
      expect(asked.searchParams.get('id')).to.equal(id);
      expect(asked.searchParams.get('slug')).to.equal('harbour-lights');
      expect(asked.searchParams.get('token')).to.match(/^[\w-]{20,}$/);

      // Saved: the page is told and fetches the entry again (no reload of the frame).
      await page.getByRole('textbox', { name: /^Title/ }).fill('Harbour lights at dusk');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await frame.getByRole('heading', { name: 'Harbour lights at dusk', level: 1 }).waitFor();
      expect(await frame.locator('#status').textContent()).to.equal('draft · version 2');
      expect(site.of('/preview.html')).to.have.length(1);

      // The token shows drafts to whoever holds it, nothing else: without it, a guest gets no draft.
      expect((await t.request(`/api/collections/stories/${id}`)).status).to.be.oneOf([401, 403, 404]);
      const open = await t.request(`/api/preview/${asked.searchParams.get('token')}`, { headers: { origin: site.url } });
      expect(open.status).to.equal(200);
      expect(open.headers.get('access-control-allow-origin')).to.equal('*');
      // The admin UI allows framing the site's origin only.
      const csp = (await t.request('/admin/', { headers: { cookie } })).headers.get('content-security-policy')!;
      expect(csp).to.contain(`frame-src 'self' ${site.url}`);
      await until(async () => (await page.getByRole('button', { name: 'Hide live preview' }).count()) || undefined, 'the toggle');
    });
  });
}
