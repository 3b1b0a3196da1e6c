// Issue 36, "done when": an entry is translated into German in the admin UI through the translation plugin (a
// LibreTranslate speaking loopback server as the provider, configured through plugins.options.ai-translate), only the
// German version is published, and a guest reads the German version over REST while the English draft stays hidden.
// The locale `de` is created on the Locales page (/admin/locales, linked from Content).
import { expect } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADA, openAdminPage, PASSWORD, useBrowser, useUiKernel } from '../helpers/browser.js';
import { seriousViolations } from '../helpers/axe.js';
import { LoopbackServer, requestBody } from '../helpers/loopback-server.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';
import { signInCookie } from '../helpers/users.js';

interface Call {
  path: string;
  json: { q: string[]; source: string; target: string; format: string };
}

/** LibreTranslate's POST /translate: `{q: [...], source, target, format}` -> `{translatedText: [...]}`, "[de] " before each text (inside the first tag of HTML). */
class FakeLibreTranslate extends LoopbackServer<Call> {
  get calls(): Call[] {
    return this.of('/translate');
  }
  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = JSON.parse((await requestBody(req)).toString('utf8'));
    this.log.push({ path: (req.url ?? '').split('?')[0]!, json });
    const q: string[] = Array.isArray(json.q) ? json.q : [json.q];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ translatedText: q.map((s) => s.replace(/^(<[^>]+>)?/, `$1[${json.target}] `)) }));
  }
}

for (const variant of DB_VARIANTS) {
  describe(`admin UI: localised content (${variant.name})`, function () {
    this.timeout(120000);
    const provider = new FakeLibreTranslate();
    before(() => provider.start());
    after(() => provider.close());
    let cookie = '';
    let id = '';
    const b = useBrowser();
    const t = useUiKernel(
      () => ({
        db: variant.name,
        config: { plugins: { options: { 'ai-translate': { providers: { libretranslate: { url: provider.url } } } } } },
      }),
      {
        variant,
        users: [ADA],
        seed: async () => {
          cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
          const post = async (path: string, json: unknown, method = 'POST') => {
            const res = await t.request(path, { method, headers: { cookie }, json });
            expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
            return (await res.json()).data;
          };
          await post('/api/collections', {
            name: 'articles',
            singular: 'article',
            fields: [
              { name: 'title', type: 'text', required: true, localized: true },
              { name: 'body', type: 'richtext', localized: true },
              { name: 'category', type: 'text' },
            ],
          });
          await post('/api/collections/articles/public-access', { public: true }, 'PUT');
          id = (
            await post('/api/collections/articles', {
              title: 'Harbour walk',
              body: '<p>A walk by the sea.</p>',
              category: 'travel',
              status: 'draft',
            })
          )._id;
        },
      },
    );
    const admin = async (path: string) => (await (await t.request(path, { headers: { cookie } })).json()).data;
    const guest = (path: string) => t.request(path);

    it('translates an entry into German in the editor, publishes only the German version, and a guest reads only that', async function () {
      // The German locale, added on the Locales page (its name from the code).
      const page = await openAdminPage(b, t, 'content', 'Content');
      await page.getByRole('link', { name: 'Locales' }).click();
      await page.getByRole('heading', { name: 'Locales', level: 1 }).waitFor();
      await page.getByRole('textbox', { name: /^Code/ }).fill('de');
      await page.getByRole('button', { name: 'Add locale' }).click();
      await page.locator('tr[data-locale="de"]').waitFor();
      expect(await page.locator('tr[data-locale="de"]').innerText()).to.contain('German');
      expect((await admin('/api/locales')).map((l: { code: string }) => l.code)).to.deep.equal(['en', 'de']);

      await page.goto(`${t.url}/admin/content/articles`);
      const row = page.getByRole('list', { name: 'Translations of Harbour walk' });
      await row.waitFor();
      expect(await row.locator('[data-locale="en"]').getAttribute('data-state')).to.equal('draft');
      expect(await row.locator('[data-locale="de"]').getAttribute('data-state')).to.equal('missing');
      expect(await row.locator('[data-locale="de"]').innerText()).to.match(/de\s+not translated/);

      await page.getByRole('link', { name: 'Harbour walk' }).click();
      await page.getByRole('heading', { name: 'Harbour walk', level: 1 }).waitFor();
      const localeChoice = page.getByRole('combobox', { name: /^Locale/ });
      await localeChoice.selectOption('de');
      // German has no value yet: the title and body show English's, marked as such; the category is shared.
      await page.getByTestId('fallback-title').waitFor();
      expect(await page.getByTestId('fallback-title').innerText()).to.equal('from en');
      expect(await page.getByTestId('fallback-body').innerText()).to.equal('from en');
      expect(await page.getByTestId('shared-category').innerText()).to.equal('Shared by all locales');
      expect(await page.getByRole('textbox', { name: /^Title/ }).inputValue()).to.equal('Harbour walk');
      expect(page.url()).to.match(/[?&]locale=de\b/);

      // Side by side: English read-only on the left.
      await page.getByRole('combobox', { name: /^Compare with/ }).selectOption('en');
      const englishTitle = page.getByRole('region', { name: 'Title in English' });
      await englishTitle.waitFor();
      expect(await englishTitle.innerText()).to.contain('Harbour walk');
      expect(await seriousViolations(page), 'axe: the editor in a locale, compared with another').to.deep.equal([]);

      // The whole entry from English, through the provider, saved as a German draft.
      await page.getByRole('button', { name: 'Translate from English' }).click();
      await until(
        async () => ((await page.getByRole('textbox', { name: /^Title/ }).inputValue()) === '[de] Harbour walk' ? true : undefined),
        'the translation',
      );
      await page.getByText('Translated from English: saved as a draft of German').waitFor();
      expect(await page.getByTestId('fallback-title').count(), 'the title is German now').to.equal(0);
      expect(provider.calls.map((c) => c.json)).to.deep.equal([
        { q: ['Harbour walk'], source: 'en', target: 'de', format: 'text' },
        { q: ['<p>A walk by the sea.</p>'], source: 'en', target: 'de', format: 'html' },
      ]);
      const german = await admin(`/api/collections/articles/${id}?locale=de`);
      expect(german).to.include({
        title: '[de] Harbour walk',
        body: '<p>[de] A walk by the sea.</p>',
        status: 'draft',
        category: 'travel',
      });
      expect(german._fallbackFields).to.deep.equal([]);
      expect(await admin(`/api/collections/articles/${id}`)).to.include({ title: 'Harbour walk', status: 'draft' });

      // Publishing here publishes the German version only.
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await until(
        async () => ((await page.getByTestId('entry-status').innerText()) === 'published' ? true : undefined),
        'German published',
      );
      expect(await admin(`/api/collections/articles/${id}?locale=de`)).to.include({ status: 'published' });
      expect(await admin(`/api/collections/articles/${id}`)).to.include({ status: 'draft' });

      // A guest: the German version is published; the English draft is not visible.
      const de = await guest(`/api/collections/articles/${id}?locale=de`);
      expect(de.status, await de.clone().text()).to.equal(200);
      expect((await de.json()).data).to.include({ title: '[de] Harbour walk', status: 'published', _locale: 'de' });
      expect((await guest(`/api/collections/articles/${id}`)).status).to.equal(404);
      expect((await guest(`/api/collections/articles/${id}?locale=en`)).status).to.equal(404);
      expect((await (await guest('/api/collections/articles?locale=de')).json()).data.total).to.equal(1);
      expect((await (await guest('/api/collections/articles')).json()).data.total).to.equal(0);

      // The list tells the same: English a draft, German published.
      await page.goto(`${t.url}/admin/content/articles`);
      const after = page.getByRole('list', { name: 'Translations of Harbour walk' });
      await after.waitFor();
      expect(await after.locator('[data-locale="en"]').getAttribute('data-state')).to.equal('draft');
      expect(await after.locator('[data-locale="de"]').getAttribute('data-state')).to.equal('published');
      expect(await seriousViolations(page), 'axe: the list with its translations column').to.deep.equal([]);
    });

    it('translates one field at a time, and an edited fallback value becomes the locale’s own (German added by the test before)', async function () {
      const created = await t.request('/api/collections/articles', {
        method: 'POST',
        headers: { cookie },
        json: { title: 'Old town', body: '<p>Narrow lanes.</p>', category: 'travel' },
      });
      const other = (await created.json()).data._id as string;
      provider.reset();
      const page = await openAdminPage(b, t, `content/articles/${other}?locale=de`, 'Old town');
      await page.getByTestId('fallback-body').waitFor();
      await page.getByRole('button', { name: 'Translate Body from English' }).click();
      await page.getByText('Translated from English: saved as a draft of German').waitFor();
      expect(provider.calls.map((c) => c.json.q)).to.deep.equal([['<p>Narrow lanes.</p>']]);
      // Only the body was translated and saved: the title still falls back to English.
      const german = await admin(`/api/collections/articles/${other}?locale=de`);
      expect(german).to.include({ body: '<p>[de] Narrow lanes.</p>', title: 'Old town', status: 'draft' });
      expect(german._fallbackFields).to.deep.equal(['title']);
      expect(await page.getByTestId('fallback-title').innerText()).to.equal('from en');

      await page.getByRole('textbox', { name: /^Title/ }).fill('Altstadt');
      expect(await page.getByTestId('fallback-title').count(), 'edited: no longer the fallback').to.equal(0);
      // Showing another locale with unsaved changes asks first; declined, the German form stays as it is.
      const asked = new Promise<string>((resolve) => page.once('dialog', (d) => void d.dismiss().then(() => resolve(d.message()))));
      await page.getByRole('combobox', { name: /^Locale/ }).selectOption('en');
      expect(await asked).to.equal('Your changes in German are not saved. Show the other locale and lose them?');
      expect(await page.getByRole('combobox', { name: /^Locale/ }).inputValue()).to.equal('de');
      expect(await page.getByRole('textbox', { name: /^Title/ }).inputValue()).to.equal('Altstadt');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await until(
        async () => ((await admin(`/api/collections/articles/${other}?locale=de`)).title === 'Altstadt' ? true : undefined),
        'the German title saved',
      );
      expect(await admin(`/api/collections/articles/${other}`)).to.include({ title: 'Old town', body: '<p>Narrow lanes.</p>' });
    });
  });
}
