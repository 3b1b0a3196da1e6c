import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { openAdminPage, PASSWORD, signInWithApi, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 40 item 3, the top bar's search across collections (docs/features/search.md, docs/features/admin-ui.md): as
 * Ada types a word prefix, entries of two collections are listed, grouped by collection, each by its title with the
 * match marked (text from the entries is shown as text, never as HTML); ↓ marks an entry (aria-activedescendant),
 * Enter opens its page, Escape closes the list, a click opens an entry; a word nothing matches says so, and a search
 * the server cannot answer says why. A role whose rule lets it read only its own entries of one collection finds none
 * of Ada's there; a role without content:read has no search box. A collection with more matches than shown links to
 * its list, searched.
 */
const RECIPES = {
  name: 'recipes',
  label: 'Recipes',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'method', type: 'text' },
  ],
};
const JOURNAL = {
  name: 'journal',
  label: 'Journal',
  fields: [
    { name: 'name', type: 'text', required: true },
    { name: 'notes', type: 'text' },
  ],
};

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** axe-core's serious and critical findings on the page as it is (rule: targets), as admin-a11y.test.ts runs it. */
async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(`${AXE_SOURCE}\n;0`);
  return page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${(v.nodes as any[]).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

const box = (page: Page) => page.getByRole('combobox', { name: 'Search all content' });
const results = (page: Page) => page.getByRole('listbox', { name: 'Matching entries' });
/** The entries' titles each group lists (sorted), by the group's name (shown in capitals). */
async function grouped(page: Page): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const group of await results(page).getByRole('group').all()) {
    const label = (await group.locator('.group-label').innerText()).trim();
    out[label.toLowerCase()] = (await group.locator('[role="option"] .title').allInnerTexts()).map((s) => s.trim()).sort();
  }
  return out;
}

for (const variant of DB_VARIANTS) {
  describe(`admin UI: search across collections in the top bar (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t, apiCreate } = useAdminUiAsAda(variant);

    it('finds entries of two collections as one types, opens one by keyboard or click, says when nothing matches, and keeps to the rules of a role', async function () {
      await apiCreate('/api/collections', RECIPES);
      await apiCreate('/api/collections', JOURNAL);
      const ids: Record<string, string> = {};
      for (const [collection, body] of [
        ['recipes', { title: 'Tomato soup', method: 'Simmer the tomatoes slowly' }],
        ['recipes', { title: 'Green salad', method: 'Cucumber with a tomato dressing' }],
        ['recipes', { title: 'Plain bread', method: 'Flour and water' }],
        ['journal', { name: 'Market day', notes: 'Bought <b>tomatoes</b> & basil' }],
      ] as const) {
        const made = await apiCreate(`/api/collections/${collection}`, { ...body, status: 'published' });
        ids['title' in body ? body.title : body.name] = made._id;
      }

      const page = await openAdminPage(b, t, 'content', 'Content');
      await box(page).pressSequentially('tomat');
      await results(page).getByRole('option').first().waitFor();
      expect(await grouped(page)).to.deep.equal({ journal: ['Market day'], recipes: ['Green salad', 'Tomato soup'] });
      // The matches are marked; the entry's own "<b>" and "&" are shown as they are written.
      const soup = results(page).getByRole('option', { name: /Tomato soup/ });
      expect(await soup.locator('.title mark').allInnerTexts()).to.deep.equal(['Tomato']);
      expect(await soup.locator('.snippet').innerText()).to.equal('Simmer the tomatoes slowly');
      expect(await soup.locator('.snippet mark').allInnerTexts()).to.deep.equal(['tomatoes']);
      const market = results(page).getByRole('option', { name: /Market day/ });
      expect(await market.locator('.snippet').innerText()).to.equal('Bought <b>tomatoes</b> & basil');
      expect(await market.locator('b').count(), 'no HTML from the entry').to.equal(0);
      expect(
        await page
          .getByRole('status')
          .filter({ hasText: /entries in/ })
          .innerText(),
      ).to.equal('3 entries in 2 collections');
      expect(await box(page).getAttribute('aria-expanded')).to.equal('true');

      // ↓ marks the options one by one; Enter opens the marked entry's page.
      let marked = '';
      for (let i = 0; i < 3 && !marked.includes('Green salad'); i++) {
        await box(page).press('ArrowDown');
        const activeId = await box(page).getAttribute('aria-activedescendant');
        expect(activeId, 'an option is marked').to.be.a('string');
        const option = page.locator(`[id="${activeId}"]`);
        expect(await option.getAttribute('aria-selected')).to.equal('true');
        marked = await option.innerText();
      }
      expect(marked).to.contain('Green salad');
      expect(await axeFindings(page), 'axe-core on the open list').to.deep.equal([]);
      await box(page).press('Enter');
      await page.waitForURL(`**/admin/content/recipes/${ids['Green salad']}`);
      await page.getByRole('heading', { name: 'Green salad', level: 1 }).waitFor();
      expect(await results(page).isVisible()).to.equal(false);

      // Escape closes the list; typing again opens it; a click opens an entry.
      await box(page).click();
      await box(page).press('ArrowDown');
      await results(page).waitFor();
      await box(page).press('Escape');
      await results(page).waitFor({ state: 'hidden' });
      expect(await box(page).getAttribute('aria-expanded')).to.equal('false');
      await box(page).fill('');
      await box(page).pressSequentially('market');
      await results(page)
        .getByRole('option', { name: /Market day/ })
        .click();
      await page.waitForURL(`**/admin/content/journal/${ids['Market day']}`);
      await page.getByRole('heading', { name: 'Market day', level: 1 }).waitFor();

      // A word nothing matches.
      await box(page).fill('');
      await box(page).pressSequentially('zucchini');
      await page.getByRole('status').getByText('No entries match “zucchini”.').waitFor();
      expect(await results(page).isVisible()).to.equal(false);

      // The server out of reach (the browser offline): the search says so in words.
      await b.context.setOffline(true);
      await box(page).fill('');
      await box(page).pressSequentially('basil');
      const failed = page.getByRole('alert').filter({ hasText: 'The search did not work' });
      await failed.waitFor();
      expect(await failed.innerText()).to.equal('The search did not work: The server cannot be reached. Check that the CMS is running.');
      expect(await failed.getAttribute('data-code')).to.equal('NETWORK_ERROR');
      await b.context.setOffline(false);
      await box(page).press('Backspace');
      await results(page)
        .getByRole('option', { name: /Market day/ })
        .waitFor();
      expect(await failed.count()).to.equal(0);

      // A cook reads only their own journal entries (a rule of the role): Ada's stay out, the recipes show.
      await apiCreate('/api/roles', {
        name: 'cook',
        permissions: ['content:read'],
        rules: [{ action: 'read', collection: 'journal', where: { createdBy: '$user' } }],
      });
      await apiCreate('/api/user/create-user', { email: 'cook@example.com', password: PASSWORD, role: 'cook' });
      const cookContext = await b.newContext();
      await signInWithApi(cookContext, t.url, 'cook@example.com', PASSWORD);
      const cook = await cookContext.newPage();
      await cook.goto(`${t.url}/admin/`);
      await box(cook).pressSequentially('tomat');
      await results(cook).getByRole('option').first().waitFor();
      expect(await grouped(cook)).to.deep.equal({ recipes: ['Green salad', 'Tomato soup'] });
      await box(cook).fill('');
      await box(cook).pressSequentially('market');
      await cook.getByRole('status').getByText('No entries match “market”.').waitFor();

      // Someone who may not read content has no search box.
      await apiCreate('/api/roles', { name: 'uploader', permissions: ['media:read'] });
      await apiCreate('/api/user/create-user', { email: 'uploader@example.com', password: PASSWORD, role: 'uploader' });
      const uploaderContext = await b.newContext();
      await signInWithApi(uploaderContext, t.url, 'uploader@example.com', PASSWORD);
      const uploader = await uploaderContext.newPage();
      await uploader.goto(`${t.url}/admin/`);
      await uploader
        .getByRole('button', { name: /uploader/ })
        .first()
        .waitFor();
      expect(await box(uploader).count()).to.equal(0);

      // More matches than shown: the group ends with a link to its list, searched.
      for (const n of [1, 2, 3, 4]) await apiCreate('/api/collections/recipes', { title: `Tomato jam ${n}`, status: 'published' });
      await box(page).fill('');
      await box(page).pressSequentially('tomat');
      await results(page).getByRole('option', { name: 'All 6 matches in Recipes' }).click();
      await page.getByRole('heading', { name: 'Recipes', level: 1 }).waitFor();
      await page.getByText('1–6 of 6').waitFor();
      expect(new URL(page.url()).searchParams.get('search')).to.equal('tomat');
    });
  });
}
