import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { openAdminPage, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { openNewCollection } from '../helpers/admin-pages.js';

/** In a field-list editor: Add field, then its name and type; the new row. */
async function addField(page: Page, n: number, name: string, type: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Add field' }).click();
  const row = page.getByRole('listitem', { name: new RegExp(`^Field ${n}`) });
  await row.getByLabel('Field name').fill(name);
  await row.getByLabel('Type').selectOption(type);
  return row;
}

/** On the Components page: New component, its name and label, the first field renamed; the page. */
async function newComponent(page: Page, name: string, label: string, first: string): Promise<void> {
  await page.getByRole('link', { name: 'New component' }).click();
  await page.getByRole('heading', { name: 'New component', level: 1 }).waitFor();
  await page.getByLabel(/^Name/).fill(name);
  await page
    .getByRole('textbox', { name: /^Label/ })
    .first()
    .fill(label);
  await page
    .getByRole('listitem', { name: /^Field 1/ })
    .getByLabel('Field name')
    .fill(first);
}

// Issue 35, item 7: components on their page, component and blocks fields in the schema editor and the entry form.
for (const variant of DB_VARIANTS) {
  describe(`admin UI: components and blocks (${variant.name})`, function () {
    this.timeout(180000);
    const { b, t, apiGet, apiCreate } = useAdminUiAsAda(variant);

    it('creates components, a collection using them, and writes a page of blocks (order, undo, nested issues)', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'content', 'Content');
      await page.getByRole('link', { name: 'Components', exact: true }).click();
      await page.getByRole('heading', { name: 'Components', level: 1 }).waitFor();

      await newComponent(page, 'cta', 'Call to action', 'text');
      const url = await addField(page, 2, 'url', 'url');
      await url.getByLabel('Required').check();
      await page.getByRole('button', { name: 'Create component' }).click();
      await page.getByRole('heading', { name: 'Components', level: 1 }).waitFor();

      await newComponent(page, 'hero', 'Hero', 'title');
      const cta = await addField(page, 2, 'cta', 'component');
      // No component chosen: the API's issue (fields.1.component) shows under that input.
      await page.getByRole('button', { name: 'Create component' }).click();
      await cta.locator('.error').first().waitFor();
      expect(await cta.getByLabel(/^Component/).getAttribute('aria-invalid')).to.equal('true');
      await cta.getByLabel(/^Component/).selectOption('cta');
      expect(await cta.getByLabel('Repeatable').isChecked()).to.equal(false);
      // The preview draws the form an editor will get, nested component included, before anything is saved.
      await page.getByText('Preview the form').click();
      const preview = page.getByRole('group', { name: 'Hero' });
      await preview.getByRole('textbox', { name: /^Title/ }).fill('Typed in the preview');
      const nested = preview.getByRole('group', { name: /^Cta/ });
      expect(await nested.getByRole('textbox', { name: /^Url/ }).count()).to.equal(1);
      await addField(page, 3, 'note', 'text');
      await preview.getByRole('textbox', { name: /^Note/ }).waitFor();
      await page
        .getByRole('listitem', { name: /^Field 3/ })
        .getByRole('button', { name: /Remove/ })
        .click();
      await preview.getByRole('textbox', { name: /^Note/ }).waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Create component' }).click();
      await page.getByRole('heading', { name: 'Components', level: 1 }).waitFor();
      expect(await apiGet('/api/components/hero')).to.deep.include({
        name: 'hero',
        label: 'Hero',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'cta', type: 'component', component: 'cta' },
        ],
      });
      // The list: field counts and where each is used; deleting a used one shows the API's 409 message.
      const ctaRow = page.getByRole('row', { name: 'Component cta' });
      expect(await ctaRow.getByTestId('field-count').textContent()).to.equal('2 fields');
      expect(await ctaRow.getByTestId('used-by').textContent()).to.contain('hero (component).cta');
      await ctaRow.getByRole('button', { name: 'Delete component cta' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete component' }).click();
      expect(await page.getByRole('alert').first().textContent()).to.match(/hero/);
      expect((await apiGet('/api/components')).map((c: { name: string }) => c.name)).to.have.members(['cta', 'hero']);

      // The schema editor: a component field and a blocks field with its allowed components.
      await openNewCollection(page);
      await page.getByLabel(/^Name/).fill('pages');
      const seo = await addField(page, 2, 'seo', 'component');
      await seo.getByLabel(/^Component/).selectOption('cta');
      const body = await addField(page, 3, 'body', 'blocks');
      await body.getByRole('group', { name: 'Allowed components' }).getByLabel('Hero').check();
      await body.getByRole('group', { name: 'Allowed components' }).getByLabel('Call to action').check();
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(/\/admin\/content\/pages(\?.*)?$/);
      expect((await apiGet('/api/collections/pages/schema')).fields).to.deep.equal([
        { name: 'title', type: 'text', required: true },
        { name: 'seo', type: 'component', component: 'cta' },
        { name: 'body', type: 'blocks', components: ['cta', 'hero'] },
      ]);

      // The entry form: a fieldset for the component, an ordered list of blocks.
      await page.getByRole('link', { name: 'New page' }).first().click();
      await page.getByRole('heading', { name: 'New page', level: 1 }).waitFor();
      await page
        .getByLabel(/^Title/)
        .first()
        .fill('Home');
      const seoSet = page.getByRole('group', { name: /^Seo/ });
      await seoSet.getByLabel(/^Text/).fill('Read more');
      await seoSet.getByLabel(/^Url/).fill('https://example.org/more');
      const blocks = page.locator('[data-field="body"]').first();
      await blocks.getByRole('button', { name: 'Add Hero' }).click();
      await blocks.getByRole('button', { name: 'Add Call to action' }).click();
      const item = (name: string) => blocks.getByRole('listitem', { name, exact: true });
      const hero = item('Hero (item 1)');
      await hero.getByLabel(/^Title/).fill('Welcome');
      await hero.getByRole('group', { name: /^Cta/ }).getByLabel(/^Text/).fill('Go');
      await hero.getByRole('group', { name: /^Cta/ }).getByLabel(/^Url/).fill('https://example.org/go');
      await item('Call to action (item 2)').getByLabel(/^Text/).fill('Buy');
      await item('Call to action (item 2)').getByLabel(/^Url/).fill('not a web address');

      // Reorder with the keyboard-reachable buttons; the moved item's button keeps the focus.
      await blocks.getByRole('button', { name: 'Move Call to action (item 2) up' }).click();
      const names = () => blocks.getByRole('listitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      expect(await names()).to.deep.equal(['Call to action (item 1)', 'Hero (item 2)']);
      const focused = blocks.getByRole('button', { name: 'Move Call to action (item 1) down' });
      expect(await focused.evaluate((el) => el === el.ownerDocument.activeElement)).to.equal(true);
      // Collapse and expand.
      await blocks.getByRole('button', { name: 'Collapse Hero (item 2)' }).click();
      expect(
        await item('Hero (item 2)')
          .getByLabel(/^Title/)
          .count(),
      ).to.equal(0);
      await blocks.getByRole('button', { name: 'Expand Hero (item 2)' }).click();
      expect(
        await item('Hero (item 2)')
          .getByLabel(/^Title/)
          .inputValue(),
      ).to.equal('Welcome');
      // Remove, then Undo puts it back at its place with its values.
      await blocks.getByRole('button', { name: 'Remove Call to action (item 1)' }).click();
      expect(await names()).to.deep.equal(['Hero (item 1)']);
      await blocks.getByRole('button', { name: 'Undo' }).click();
      expect(await names()).to.deep.equal(['Call to action (item 1)', 'Hero (item 2)']);
      expect(await item('Call to action (item 1)').getByLabel(/^Text/).inputValue()).to.equal('Buy');

      // The API's issue inside a block shows under that block's input.
      await page.getByRole('button', { name: 'Create page' }).click();
      const badUrl = blocks.locator('[data-path="body.0.url"]');
      await badUrl.locator('.error').waitFor();
      expect(await badUrl.getByRole('textbox').getAttribute('aria-invalid')).to.equal('true');
      await badUrl.getByRole('textbox').fill('https://example.org/buy');
      await page.getByRole('button', { name: 'Create page' }).click();
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();

      const [stored] = (await apiGet('/api/collections/pages')).items;
      expect(stored.seo).to.deep.equal({ text: 'Read more', url: 'https://example.org/more' });
      expect(stored.body).to.deep.equal([
        { __component: 'cta', text: 'Buy', url: 'https://example.org/buy' },
        { __component: 'hero', title: 'Welcome', cta: { text: 'Go', url: 'https://example.org/go' } },
      ]);
      // Read back into the form in order, with the nested values.
      expect(await names()).to.deep.equal(['Call to action (item 1)', 'Hero (item 2)']);
      expect(await item('Hero (item 2)').getByRole('group', { name: /^Cta/ }).getByLabel(/^Url/).inputValue()).to.equal(
        'https://example.org/go',
      );
    });

    it('edits a repeatable component with the keyboard, up to its maximum, and reads stored items back in order', async function () {
      const { page } = b;
      const post = apiCreate;
      await post('/api/components', {
        name: 'link',
        label: 'Link',
        fields: [
          { name: 'label', type: 'text', required: true },
          { name: 'weight', type: 'number' },
          { name: 'at', type: 'date' },
        ],
      });
      await post('/api/collections', {
        name: 'menus',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'links', type: 'component', component: 'link', repeatable: true, max: 2 },
        ],
      });
      await openAdminPage(b, t, 'content/menus/new', 'New menu');
      await page
        .getByLabel(/^Title/)
        .first()
        .fill('Main');
      const links = page.locator('[data-field="links"]').first();
      const add = links.getByRole('button', { name: 'Add Link' });
      await add.click();
      await add.click();
      expect(await add.isDisabled()).to.equal(true);
      const item = (n: number) => links.getByRole('listitem', { name: `Link (item ${n})`, exact: true });
      await item(1)
        .getByLabel(/^Label/)
        .fill('Home');
      await item(1)
        .getByLabel(/^Weight/)
        .fill('2');
      await item(1).getByLabel(/^At/).fill('2026-03-04T05:06');
      await item(2)
        .getByLabel(/^Label/)
        .fill('About');
      // The keyboard: Enter on the focused button moves the item, and the focus follows it.
      await links.getByRole('button', { name: 'Move Link (item 2) up' }).focus();
      await page.keyboard.press('Enter');
      expect(
        await item(1)
          .getByLabel(/^Label/)
          .inputValue(),
      ).to.equal('About');
      await page.keyboard.press('Enter'); // now "Move Link (item 1) down" has the focus
      expect(
        await item(1)
          .getByLabel(/^Label/)
          .inputValue(),
      ).to.equal('Home');
      await page.getByRole('button', { name: 'Create menu' }).click();
      await page.getByRole('heading', { name: 'Main', level: 1 }).waitFor();
      const [menu] = (await apiGet('/api/collections/menus')).items;
      expect(menu.links).to.deep.equal([
        { label: 'Home', weight: 2, at: new Date('2026-03-04T05:06').toISOString() },
        { label: 'About', weight: null, at: null },
      ]);
      expect(await item(1).getByLabel(/^At/).inputValue()).to.equal('2026-03-04T05:06');
      expect(
        await item(2)
          .getByLabel(/^Label/)
          .inputValue(),
      ).to.equal('About');
    });

    it("a component change that loses values stored in entries shows the server's plan and asks first", async function () {
      const { page } = b;
      await apiCreate('/api/components', {
        name: 'note',
        fields: [
          { name: 'text', type: 'text' },
          { name: 'extra', type: 'text' },
        ],
      });
      await apiCreate('/api/collections', { name: 'notes', fields: [{ name: 'note', type: 'component', component: 'note' }] });
      const made = await apiCreate('/api/collections/notes', { note: { text: 'Kept', extra: 'keep me' } });
      await openAdminPage(b, t, 'components/note', 'Component note');
      await page.getByRole('button', { name: 'Remove field extra' }).click();
      await page.getByRole('button', { name: 'Save component' }).click();
      const warning = page.getByRole('alert').filter({ hasText: 'Saving this component loses stored values' });
      await warning.waitFor();
      expect(await warning.textContent()).to.match(/extra: the field is removed with its 1 value/);
      expect(await warning.textContent()).to.match(/1 entry of every tenant holding this component/);
      await warning.getByRole('button', { name: 'Keep editing' }).click();
      await warning.waitFor({ state: 'detached' });
      expect((await apiGet('/api/components/note')).fields).to.have.length(2);
      await page.getByRole('button', { name: 'Save component' }).click();
      await warning.getByRole('button', { name: 'Save and lose these values' }).click();
      await page.getByRole('heading', { name: 'Components', level: 1 }).waitFor();
      expect((await apiGet('/api/components/note')).fields).to.deep.equal([{ name: 'text', type: 'text' }]);
      expect((await apiGet(`/api/collections/notes/${made._id}`)).note).to.deep.equal({ text: 'Kept' });
    });
  });
}
