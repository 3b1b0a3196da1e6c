// Issue 37, item 1 (working drafts, docs/features/drafts.md): an editor changes a published entry of a collection with
// drafts; the change is autosaved into the working draft, survives closing the tab, is not served to the public until the
// draft is published, and is served once it is.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ADA, PASSWORD, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';
import { signInCookie } from '../helpers/users.js';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: working drafts (${variant.name})`, function () {
    this.timeout(120000);
    let id = '';
    const b = useBrowser();
    const t = useUiKernel(() => ({ db: variant.name }), {
      variant,
      users: [ADA],
      seed: async () => {
        const cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
        const send = async (method: string, path: string, json: unknown) => {
          const res = await t.request(path, { method, headers: { cookie }, json });
          expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
          return (await res.json()).data;
        };
        await send('POST', '/api/collections', {
          name: 'articles',
          singular: 'article',
          drafts: true,
          fields: [{ name: 'title', type: 'text', required: true }],
        });
        // Public: a guest (the site) reads published articles without signing in.
        await send('PUT', '/api/collections/articles/public-access', { public: true });
        id = (await send('POST', '/api/collections/articles', { title: 'Published title', status: 'published' }))._id;
      },
    });

    const title = (page: Page) => page.getByRole('textbox', { name: /^Title/ });
    /** The article as the public reads it (no session). */
    const publicTitle = async () => {
      const res = await fetch(`${t.url}/api/collections/articles/${id}`);
      expect(res.status).to.equal(200);
      return ((await res.json()) as { data: { title: string } }).data.title;
    };

    async function open(page: Page): Promise<void> {
      await page.goto(`${t.url}/admin/content/articles/${id}`);
      await page.getByRole('heading', { name: 'Published title', level: 1 }).waitFor();
      await until(async () => (await title(page).isEditable()) || undefined, 'the form is editable');
    }

    it('autosaves typing into the draft, keeps it across tabs, serves the published value until the draft is published', async function () {
      const first = b.page;
      await signInWithApi(first.context(), t.url, ADA.email, PASSWORD);
      await open(first);
      expect(await first.getByTestId('draft-marker').count()).to.equal(0);
      const autosaved = first.waitForResponse((r) => r.url().includes(`/articles/${id}/draft`) && r.request().method() === 'PUT');
      await title(first).fill('Typed into the draft');
      expect((await autosaved).status()).to.equal(200);
      await first.getByTestId('draft-marker').waitFor();
      // The tab is closed mid-edit, after the autosave: nothing was published.
      await first.close();
      expect(await publicTitle()).to.equal('Published title');

      const second = await b.context.newPage();
      await open(second);
      await until(async () => (await title(second).inputValue()) === 'Typed into the draft' || undefined, 'the draft is shown again');
      expect(await second.getByTestId('draft-marker').innerText()).to.equal('Draft — not yet published');
      expect(await publicTitle()).to.equal('Published title');

      const published = second.waitForResponse((r) => r.url().includes(`/articles/${id}/draft/publish`));
      await second.getByRole('button', { name: 'Publish draft' }).click();
      expect((await published).status()).to.equal(200);
      await second.getByTestId('draft-marker').waitFor({ state: 'detached' });
      expect(await publicTitle()).to.equal('Typed into the draft');
      expect(await title(second).inputValue()).to.equal('Typed into the draft');
    });

    it('the collection schema page switches drafts and sets the live preview address; a bad address is named', async function () {
      const page = b.page.isClosed() ? await b.context.newPage() : b.page;
      await signInWithApi(page.context(), t.url, ADA.email, PASSWORD);
      const schemaOf = async () => {
        const cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
        return (await (await t.request('/api/collections/articles/schema', { headers: { cookie } })).json()).data;
      };
      await page.goto(`${t.url}/admin/content/articles/schema`);
      const drafts = page.getByRole('checkbox', { name: /Working drafts/ });
      await until(async () => (await drafts.isChecked()) || undefined, 'the drafts switch shows the stored option');
      const address = page.getByRole('textbox', { name: /Live preview address/ });
      await address.fill('not an address');
      await page.getByRole('button', { name: 'Save schema' }).click();
      await page.locator('input[name="previewUrl"][aria-invalid="true"]').waitFor();
      expect((await schemaOf()).previewUrl).to.equal(undefined);
      await drafts.uncheck();
      await address.fill('http://127.0.0.1:9/preview/{slug}?token={token}');
      const saved = page.waitForResponse((r) => r.url().endsWith('/api/collections/articles/schema') && r.request().method() === 'PATCH');
      await page.getByRole('button', { name: 'Save schema' }).click();
      expect((await saved).status()).to.equal(200);
      const schema = await schemaOf();
      expect(schema.drafts).to.equal(undefined);
      expect(schema.previewUrl).to.equal('http://127.0.0.1:9/preview/{slug}?token={token}');
    });
  });
}
