import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { openAdminPage, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

/** Types in a relation picker's search and waits for the match named `option` (the API's search answers). */
async function search(field: Locator, text: string, option: string): Promise<Locator> {
  await field.getByRole('combobox').fill(text);
  const match = field.getByRole('option', { name: option, exact: true });
  await match.waitFor();
  return match;
}

/** The accessible names of the items of a list, in order. */
const names = (list: Locator) => list.getByRole('listitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
/** The titles of a many-relation's chosen entries, in order. */
const chosenTitles = (field: Locator) =>
  field
    .getByRole('list', { name: /chosen entries/ })
    .locator('.title')
    .allTextContents();

/** Drags an item by its grip (the handle mouse users drag) onto another item. */
async function drag(item: Locator, onto: Locator): Promise<void> {
  await item.getByTitle('Drag to reorder').first().dragTo(onto);
}

// Issue 35, item 7: a page built in the admin UI as an editor would (blocks reordered by dragging, an author
// found by search, a tag created in place, a singleton filled), then read as a guest through the public API.
for (const variant of DB_VARIANTS) {
  describe(`admin UI: building a page with relations, blocks and a singleton (${variant.name})`, function () {
    this.timeout(180000);
    const { b, t, session, apiGet, apiCreate } = useAdminUiAsAda(variant);
    const makePublic = async (collection: string) => {
      const res = await t.request(`/api/collections/${collection}/public-access`, {
        method: 'PUT',
        headers: { cookie: session.cookie },
        json: { public: true },
      });
      expect(res.status, await res.clone().text()).to.equal(200);
    };

    async function model(): Promise<Record<string, string>> {
      await apiCreate('/api/components', { name: 'hero', label: 'Hero', fields: [{ name: 'title', type: 'text', required: true }] });
      await apiCreate('/api/components', {
        name: 'cta',
        label: 'Call to action',
        fields: [
          { name: 'text', type: 'text', required: true },
          { name: 'url', type: 'url' },
        ],
      });
      await apiCreate('/api/collections', { name: 'authors', fields: [{ name: 'name', type: 'text', required: true }] });
      await apiCreate('/api/collections', { name: 'tags', fields: [{ name: 'name', type: 'text', required: true }] });
      await apiCreate('/api/collections', {
        name: 'pages',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'body', type: 'blocks', components: ['hero', 'cta'] },
          { name: 'author', type: 'relation', collection: 'authors' },
          { name: 'tags', type: 'relation', collection: 'tags', cardinality: 'many' },
        ],
      });
      await apiCreate('/api/collections', {
        name: 'site_settings',
        label: 'Site settings',
        singleton: true,
        fields: [
          { name: 'siteName', type: 'text', required: true },
          { name: 'tagline', type: 'text' },
        ],
      });
      for (const c of ['pages', 'authors', 'tags', 'site_settings']) await makePublic(c);
      const ids: Record<string, string> = {};
      for (const name of ['Ada Lovelace', 'Grace Hopper'])
        ids[name] = (await apiCreate('/api/collections/authors', { name, status: 'published' }))._id;
      ids.news = (await apiCreate('/api/collections/tags', { name: 'news', status: 'published' }))._id;
      ids.secret = (await apiCreate('/api/collections/tags', { name: 'secret' }))._id; // a draft: never shown to guests
      return ids;
    }

    async function fillSingleton(page: Page): Promise<void> {
      await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Site settings', exact: true }).click();
      await page.getByRole('heading', { name: /^New /, level: 1 }).waitFor();
      await page.getByLabel(/^Site name/).fill('Analytical Engines');
      await page.getByLabel(/^Tagline/).fill('Notes on computing');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByRole('heading', { name: 'Analytical Engines', level: 1 }).waitFor();
    }

    it('fills a singleton, builds a page (blocks dragged, author searched, tag created in place), and a guest reads it populated', async function () {
      const { page } = b;
      const ids = await model();
      await openAdminPage(b, t, 'content', 'Content');
      await fillSingleton(page);

      await page.goto(`${t.url}/admin/content/pages/new`);
      await page.getByRole('heading', { name: 'New page', level: 1 }).waitFor();
      await page
        .getByLabel(/^Title/)
        .first()
        .fill('Launch');
      // Two blocks, then the second dragged above the first.
      const blocks = page.locator('[data-field="body"]').first();
      await blocks.getByRole('button', { name: 'Add Hero' }).click();
      await blocks.getByRole('button', { name: 'Add Call to action' }).click();
      const item = (name: string) => blocks.getByRole('listitem', { name, exact: true });
      await item('Hero (item 1)')
        .getByLabel(/^Title/)
        .fill('Welcome');
      await item('Call to action (item 2)').getByLabel(/^Text/).fill('Read the notes');
      await drag(item('Call to action (item 2)'), item('Hero (item 1)'));
      expect(await names(blocks.getByRole('list', { name: 'Body items' }))).to.deep.equal(['Call to action (item 1)', 'Hero (item 2)']);
      expect(
        await item('Hero (item 2)')
          .getByLabel(/^Title/)
          .inputValue(),
      ).to.equal('Welcome');

      // The author: found by typing part of the name, chosen with the keyboard.
      const author = page.locator('[data-field="author"]');
      await search(author, 'lovel', 'Ada Lovelace (published)');
      expect(await author.getByRole('option').count()).to.equal(1);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await author.getByTestId('relation-current').getByText('Ada Lovelace (published)').waitFor();

      // Tags: an existing one by search, a draft one, and a new one created in place (and published) from the search.
      const tags = page.locator('[data-field="tags"]');
      await (await search(tags, 'new', 'news (published)')).click();
      await (await search(tags, 'sec', 'secret (draft)')).click();
      await tags.getByRole('combobox').fill('launch notes');
      await tags.getByRole('status').getByText('No entries match').waitFor();
      await tags.getByRole('button', { name: 'New tag for Tags' }).click();
      const dialog = page.getByRole('dialog', { name: 'New tag (Tags)' });
      expect(await dialog.getByLabel(/^Name/).inputValue()).to.equal('launch notes');
      await dialog.getByLabel('Publish it now').check();
      await dialog.getByRole('button', { name: 'Create tag' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await chosenTitles(tags)).to.deep.equal(['news (published)', 'secret (draft)', 'launch notes (published)']);

      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByRole('heading', { name: 'Launch', level: 1 }).waitFor();
      const created = (await apiGet('/api/collections/tags?search=launch')).items;
      expect(created.map((x: { name: string; status: string }) => [x.name, x.status])).to.deep.equal([['launch notes', 'published']]);

      // A guest (no session) reads the page with its relations populated: the draft tag is left out.
      const guest = await t.request('/api/collections/pages?populate=author,tags');
      expect(guest.status).to.equal(200);
      const [read] = (await guest.json()).data.items;
      expect(read.title).to.equal('Launch');
      expect(read.author).to.include({ _id: ids['Ada Lovelace'], name: 'Ada Lovelace' });
      expect(read.tags.map((x: { name: string }) => x.name)).to.deep.equal(['news', 'launch notes']);
      expect(JSON.stringify(read)).to.not.contain(ids.secret);
      expect(read.body).to.deep.equal([
        { __component: 'cta', text: 'Read the notes', url: null },
        { __component: 'hero', title: 'Welcome' },
      ]);
      // An editor still sees the draft tag in the page's order.
      expect((await apiGet('/api/collections/pages?populate=tags')).items[0].tags.map((x: { name: string }) => x.name)).to.deep.equal([
        'news',
        'secret',
        'launch notes',
      ]);
      // And the singleton, public too, from a browser without a session.
      const visitor = await (await b.newContext()).newPage();
      await visitor.goto(`${t.url}/login`);
      const single: any = await visitor.evaluate(async () => (await fetch('/api/collections/site_settings/single')).json());
      expect(single.data).to.include({ siteName: 'Analytical Engines', tagline: 'Notes on computing' });
    });

    it('searches as one types, creates an entry in place showing the API issues, and reorders chosen entries by drag with Undo', async function () {
      const { page } = b;
      await apiCreate('/api/collections', {
        name: 'labels',
        fields: [
          { name: 'name', type: 'text', required: true },
          { name: 'code', type: 'text', required: true, pattern: '^[a-z]+$' },
          { name: 'notes', type: 'json' },
        ],
      });
      for (const name of ['alpha', 'beta', 'gamma']) await apiCreate('/api/collections/labels', { name, code: name, status: 'published' });
      await apiCreate('/api/collections', {
        name: 'notes',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'labels', type: 'relation', collection: 'labels', cardinality: 'many' },
        ],
      });
      await openAdminPage(b, t, 'content/notes/new', 'New note');
      await page.getByLabel(/^Title/).fill('Weekly');
      const field = page.locator('[data-field="labels"]');
      const box = field.getByRole('combobox');
      // Opening the list without typing shows the newest entries; typing narrows them through the API (the list's
      // search matches words by their beginning, docs/features/search.md).
      await box.click();
      await field.getByRole('option', { name: 'alpha (published)' }).waitFor();
      expect(await field.getByRole('option').count()).to.equal(3);
      await box.fill('gam');
      await field.getByRole('option', { name: 'gamma (published)' }).waitFor();
      await field.getByRole('option', { name: 'alpha (published)' }).waitFor({ state: 'detached' });
      expect(await box.getAttribute('aria-expanded')).to.equal('true');
      // The keyboard: ↓ marks the match (aria-activedescendant), Escape closes the list, Enter picks without submitting the form.
      await box.press('ArrowDown');
      expect(await box.getAttribute('aria-activedescendant')).to.match(/-options-/);
      await box.press('Escape');
      expect(await box.getAttribute('aria-expanded')).to.equal('false');
      await box.press('ArrowDown');
      await field.getByRole('option', { name: 'gamma (published)' }).waitFor();
      await box.press('ArrowDown');
      await box.press('Enter');
      expect(await chosenTitles(field)).to.deep.equal(['gamma (published)']);
      expect(page.url()).to.match(/\/notes\/new$/);
      for (const name of ['alpha', 'beta']) await (await search(field, name, `${name} (published)`)).click();
      // A chosen entry is not offered again.
      await box.fill('a');
      await field.getByRole('status').getByText('Every match is chosen already').waitFor();

      // Create in place: the dialog asks for the required fields; the API's issue shows under its input.
      await box.fill('delta');
      await field.getByRole('button', { name: 'New label for Labels' }).click();
      const dialog = page.getByRole('dialog', { name: 'New label (Labels)' });
      expect(await dialog.getByLabel(/^Name/).inputValue()).to.equal('delta');
      expect(await dialog.getByLabel(/^Notes/).count()).to.equal(0); // optional and not the title: not asked
      await dialog.getByLabel(/^Code/).fill('Not Valid');
      await dialog.getByLabel(/^Code/).press('Enter'); // creates here, does not submit the note
      await dialog.locator('[data-field="code"] .error').waitFor();
      expect(await dialog.getByLabel(/^Code/).getAttribute('aria-invalid')).to.equal('true');
      expect(page.url()).to.match(/\/notes\/new$/);
      await dialog.getByLabel(/^Code/).fill('delta');
      await dialog.getByRole('button', { name: 'Create label' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await chosenTitles(field)).to.deep.equal(['gamma (published)', 'alpha (published)', 'beta (published)', 'delta (draft)']);
      expect(await box.evaluate((el) => el === el.ownerDocument.activeElement)).to.equal(true);

      // Drag delta onto gamma: it takes the first place; beta onto delta's old place below moves it down.
      const chosen = field.getByRole('list', { name: /chosen entries/ });
      const entry = (title: string) => chosen.getByRole('listitem').filter({ hasText: title });
      await drag(entry('delta'), entry('gamma'));
      expect(await chosenTitles(field)).to.deep.equal(['delta (draft)', 'gamma (published)', 'alpha (published)', 'beta (published)']);
      await drag(entry('gamma'), entry('beta'));
      expect(await chosenTitles(field)).to.deep.equal(['delta (draft)', 'alpha (published)', 'beta (published)', 'gamma (published)']);
      // Remove, then Undo puts it back at its place; the Undo is gone after the next change.
      await field.getByRole('button', { name: 'Remove alpha (published)' }).click();
      expect(await chosenTitles(field)).to.deep.equal(['delta (draft)', 'beta (published)', 'gamma (published)']);
      await field.getByRole('button', { name: 'Undo' }).click();
      expect(await chosenTitles(field)).to.deep.equal(['delta (draft)', 'alpha (published)', 'beta (published)', 'gamma (published)']);
      await field.getByRole('button', { name: 'Remove beta (published)' }).click();
      await field.getByRole('button', { name: 'Move gamma (published) up' }).click();
      expect(await field.getByRole('button', { name: 'Undo' }).count()).to.equal(0);

      await page.getByRole('button', { name: 'Create note' }).click();
      await page.getByRole('heading', { name: 'Weekly', level: 1 }).waitFor();
      const labels = (await apiGet('/api/collections/labels?limit=10')).items as Array<{ _id: string; name: string; code: string }>;
      const idOf = (name: string) => labels.find((l) => l.name === name)!._id;
      expect(labels.find((l) => l.name === 'delta')).to.include({ code: 'delta', status: 'draft' });
      const [note] = (await apiGet('/api/collections/notes')).items;
      expect(note.labels).to.deep.equal([idOf('delta'), idOf('gamma'), idOf('alpha')]);
    });

    it('drags blocks and repeatable items within their own list, and brings a removed block back with Undo until the next change', async function () {
      const { page } = b;
      await apiCreate('/api/components', { name: 'link', label: 'Link', fields: [{ name: 'label', type: 'text' }] });
      await apiCreate('/api/components', {
        name: 'menu',
        label: 'Menu',
        fields: [
          { name: 'heading', type: 'text' },
          { name: 'links', type: 'component', component: 'link', repeatable: true },
        ],
      });
      await apiCreate('/api/collections', {
        name: 'sites',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'body', type: 'blocks', components: ['menu', 'link'] },
        ],
      });
      await openAdminPage(b, t, 'content/sites/new', 'New site');
      await page
        .getByLabel(/^Title/)
        .first()
        .fill('Docs');
      const body = page.locator('[data-field="body"]').first();
      const blocks = body.getByRole('list', { name: 'Body items' });
      await body.getByRole('button', { name: 'Add Menu' }).last().click();
      await body.getByRole('button', { name: 'Add Link' }).last().click();
      const menu = blocks.getByRole('listitem', { name: 'Menu (item 1)', exact: true });
      await menu.getByLabel(/^Heading/).fill('Main');
      // Two links inside the menu, dragged inside it: the outer blocks keep their order.
      const inner = menu.getByRole('list', { name: 'Links items' });
      await menu.getByRole('button', { name: 'Add Link' }).click();
      await menu.getByRole('button', { name: 'Add Link' }).click();
      await inner
        .getByRole('listitem', { name: 'Link (item 1)', exact: true })
        .getByLabel(/^Label/)
        .fill('Home');
      await inner
        .getByRole('listitem', { name: 'Link (item 2)', exact: true })
        .getByLabel(/^Label/)
        .fill('About');
      await drag(
        inner.getByRole('listitem', { name: 'Link (item 2)', exact: true }),
        inner.getByRole('listitem', { name: 'Link (item 1)', exact: true }),
      );
      expect(
        await inner
          .getByRole('listitem')
          .getByLabel(/^Label/)
          .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value)),
      ).to.deep.equal(['About', 'Home']);
      // The outer Link block dragged above the menu.
      const outerLink = blocks.locator(':scope > li').nth(1);
      await outerLink.getByLabel(/^Label/).fill('Top');
      await drag(outerLink, blocks.locator(':scope > li').first());
      expect(await blocks.locator(':scope > li').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).to.deep.equal([
        'Link (item 1)',
        'Menu (item 2)',
      ]);
      // Collapse hides an item's fields; Remove and Undo bring it back at its place, until the next change.
      await body.getByRole('button', { name: 'Collapse Menu (item 2)' }).click();
      expect(
        await blocks
          .getByRole('listitem', { name: 'Menu (item 2)', exact: true })
          .getByLabel(/^Heading/)
          .count(),
      ).to.equal(0);
      await body.getByRole('button', { name: 'Remove Link (item 1)' }).first().click();
      await body.getByRole('button', { name: 'Undo' }).click();
      expect(
        await blocks
          .locator(':scope > li')
          .first()
          .getByLabel(/^Label/)
          .inputValue(),
      ).to.equal('Top');
      await body.getByRole('button', { name: 'Remove Link (item 1)' }).first().click();
      await body.getByRole('button', { name: 'Add Link' }).last().click();
      expect(await body.getByRole('button', { name: 'Undo' }).count()).to.equal(0);
      await blocks
        .locator(':scope > li')
        .nth(1)
        .getByLabel(/^Label/)
        .fill('Bottom');

      await page.getByRole('button', { name: 'Create site' }).click();
      await page.getByRole('heading', { name: 'Docs', level: 1 }).waitFor();
      const [site] = (await apiGet('/api/collections/sites')).items;
      expect(site.body).to.deep.equal([
        { __component: 'menu', heading: 'Main', links: [{ label: 'About' }, { label: 'Home' }] },
        { __component: 'link', label: 'Bottom' },
      ]);
    });
  });
}
