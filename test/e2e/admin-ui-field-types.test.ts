import { expect } from 'chai';
import { openAdminPage, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { openNewCollection } from '../helpers/admin-pages.js';

// Issue 35, item 4 in the admin UI: the schema editor sets the new types and rules; the entry form edits them.
for (const variant of DB_VARIANTS) {
  describe(`admin UI: email, url, colour and multiple select fields (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t, apiGet, apiCreate } = useAdminUiAsAda(variant);

    it('defines the fields with their rules in the schema editor and writes an entry through their inputs', async function () {
      const { page } = b;
      await openAdminPage(b, t, '');
      await openNewCollection(page);
      await page.getByLabel(/^Name/).fill('contacts');
      const title = page.getByRole('listitem', { name: /^Field 1/ });
      // The pattern rules are said while typing (the server's own check, plugins/content/field-rules.ts).
      await title.getByLabel(/^Pattern/).fill('(a+)+');
      expect(await title.locator('.error').first().textContent()).to.match(/exponential/);
      await title.getByLabel(/^Pattern/).fill('^[A-Z]');
      await title.getByLabel(/^Maximum/).fill('40');
      const add = async (n: number, name: string, type: string) => {
        await page.getByRole('button', { name: 'Add field' }).click();
        const row = page.getByRole('listitem', { name: new RegExp(`^Field ${n}`) });
        await row.getByLabel('Field name').fill(name);
        await row.getByLabel('Type').selectOption(type);
        return row;
      };
      await add(2, 'mail', 'email');
      await add(3, 'site', 'url');
      await add(4, 'tint', 'color');
      const tags = await add(5, 'tags', 'select');
      await tags.getByLabel(/^Options/).fill('red\ngreen\nblue');
      await tags.getByLabel('Several options').check();
      await tags.getByLabel(/^Maximum/).fill('2');
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(/\/admin\/content\/contacts(\?.*)?$/);
      const schema = await apiGet('/api/collections/contacts/schema');
      expect(schema.fields).to.deep.equal([
        { name: 'title', type: 'text', required: true, max: 40, pattern: '^[A-Z]' },
        { name: 'mail', type: 'email' },
        { name: 'site', type: 'url' },
        { name: 'tint', type: 'color' },
        { name: 'tags', type: 'select', options: ['red', 'green', 'blue'], multiple: true, max: 2 },
      ]);

      await page.getByRole('link', { name: 'New contact' }).first().click();
      await page.getByRole('heading', { name: 'New contact', level: 1 }).waitFor();
      expect(await page.locator('#f-mail').getAttribute('type')).to.equal('email');
      expect(await page.locator('#f-site').getAttribute('type')).to.equal('url');
      expect(await page.locator('[data-field="tint"] input[type="color"]').count()).to.equal(1);
      await page.getByLabel(/^Title/).fill('Grace');
      await page.locator('#f-mail').fill('grace@example.org');
      await page.locator('#f-site').fill('https://example.org/grace');
      await page.locator('#f-tint').fill('#336699');
      const boxes = page.locator('[data-field="tags"]');
      for (const o of ['blue', 'red', 'green']) await boxes.getByRole('checkbox', { name: o }).check();
      // Three options where at most two are allowed: the API's message shows under the field.
      await page.getByRole('button', { name: 'Create contact' }).click();
      await boxes.locator('.error').waitFor();
      expect(await boxes.locator('.error').textContent()).to.match(/at most 2/);
      await boxes.getByRole('checkbox', { name: 'green' }).uncheck();
      await page.getByRole('button', { name: 'Create contact' }).click();
      await page.getByRole('heading', { name: 'Grace', level: 1 }).waitFor();
      const [entry] = (await apiGet('/api/collections/contacts')).items;
      expect(entry).to.include({ title: 'Grace', mail: 'grace@example.org', site: 'https://example.org/grace', tint: '#336699' });
      expect(entry.tags).to.have.members(['blue', 'red']).and.to.have.length(2);
      // Read back into the form: the picker shows the stored colour, the boxes the stored options.
      expect(await page.locator('[data-field="tint"] input[type="color"]').inputValue()).to.equal('#336699');
      expect(await boxes.getByRole('checkbox', { name: 'red' }).isChecked()).to.equal(true);
      expect(await boxes.getByRole('checkbox', { name: 'green' }).isChecked()).to.equal(false);
    });

    it('defines a many-relation with an inverse field, then picks, orders and removes its entries in the entry form', async function () {
      const { page } = b;
      const post = apiCreate;
      await post('/api/collections', { name: 'labels', fields: [{ name: 'name', type: 'text' }] });
      const label: Record<string, string> = {};
      for (const name of ['alpha', 'beta', 'gamma'])
        label[name] = (await post('/api/collections/labels', { name, status: 'published' }))._id;
      await openAdminPage(b, t, '');
      await openNewCollection(page);
      await page.getByLabel(/^Name/).fill('notes');
      await page.getByRole('button', { name: 'Add field' }).click();
      const row = page.getByRole('listitem', { name: /^Field 2/ });
      await row.getByLabel('Field name').fill('labels');
      await row.getByLabel('Type').selectOption('relation');
      await row.getByLabel('Target collection').selectOption('labels');
      await row.getByLabel('Several entries, in order').check();
      await row.getByLabel(/^Inverse field/).fill('notes');
      await row.getByLabel(/^Maximum/).fill('2');
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(/\/admin\/content\/notes(\?.*)?$/);
      const schema = await apiGet('/api/collections/notes/schema');
      expect(schema.fields[1]).to.deep.equal({
        name: 'labels',
        type: 'relation',
        collection: 'labels',
        cardinality: 'many',
        inverseName: 'notes',
        max: 2,
      });

      await page.getByRole('link', { name: 'New note' }).first().click();
      await page.getByRole('heading', { name: 'New note', level: 1 }).waitFor();
      await page.getByLabel(/^Title/).fill('Weekly');
      const field = page.locator('[data-field="labels"]');
      // The picker searches the target collection as one types; a click on a match adds it.
      for (const name of ['alpha', 'beta', 'gamma']) {
        await field.getByRole('combobox').fill(name);
        await field.getByRole('option', { name: `${name} (published)` }).click();
      }
      const chosen = field.getByRole('list', { name: /chosen entries/ });
      expect(await chosen.getByRole('listitem').allTextContents()).to.have.length(3);
      // Three where at most two are allowed: the API's message shows under the field.
      await page.getByRole('button', { name: 'Create note' }).click();
      await field.locator('.error').waitFor();
      expect(await field.locator('.error').textContent()).to.match(/at most 2/);
      await field.getByRole('button', { name: 'Remove alpha (published)' }).click();
      await field.getByRole('button', { name: 'Move gamma (published) up' }).click();
      await page.getByRole('button', { name: 'Create note' }).click();
      await page.getByRole('heading', { name: 'Weekly', level: 1 }).waitFor();
      const [note] = (await apiGet('/api/collections/notes')).items;
      expect(note.labels).to.deep.equal([label.gamma, label.beta]);
      // The target lists the note in its inverse field.
      expect((await apiGet(`/api/collections/labels/${label.gamma}`)).notes).to.deep.equal([note._id]);
      expect((await apiGet(`/api/collections/labels/${label.alpha}`)).notes).to.deep.equal([]);
      // The label's page lists the notes pointing at it.
      await page.goto(`${t.url}/admin/content/labels/${label.gamma}`);
      const pointing = page.getByRole('region', { name: /Notes pointing here/ });
      await pointing.getByRole('link', { name: 'Weekly' }).waitFor();
      await page.goBack();
      await page.getByRole('heading', { name: 'Weekly', level: 1 }).waitFor();
      // Read back into the form in order, by their titles.
      await chosen.getByText('beta (published)').waitFor();
      expect(await chosen.getByRole('listitem').locator('.title').allTextContents()).to.deep.equal([
        'gamma (published)',
        'beta (published)',
      ]);
    });

    it('creates a singleton from the form and finds it in the sidebar; a schema change that loses values asks first', async function () {
      const { page } = b;
      await openAdminPage(b, t, '');
      await openNewCollection(page);
      await page.getByLabel(/^Name/).fill('homepage');
      await page.getByLabel('One entry only').check();
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(/\/admin\/content\/homepage/);
      expect((await apiGet('/api/collections/homepage/schema')).singleton).to.equal(true);
      const sidebar = page.getByRole('complementary', { name: 'Main navigation' });
      await sidebar.getByRole('link', { name: 'Homepage', exact: true }).waitFor();
      // A singleton made elsewhere (the API, another editor) shows on the next load of the dashboard itself (/admin/).
      await apiCreate('/api/collections', { name: 'footer', singleton: true, fields: [{ name: 'text', type: 'text' }] });
      await page.goto(`${t.url}/admin/`);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      await sidebar.getByRole('link', { name: 'Footer', exact: true }).waitFor();

      await apiCreate('/api/collections', {
        name: 'memos',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'notes', type: 'text' },
        ],
      });
      await apiCreate('/api/collections/memos', { title: 'Kept', notes: 'keep me' });
      await page.goto(`${t.url}/admin/content/memos/schema`);
      await page.getByRole('button', { name: 'Remove field notes' }).click();
      await page.getByRole('button', { name: 'Save schema' }).click();
      const warning = page.getByRole('alert').filter({ hasText: 'Saving this schema loses stored values' });
      await warning.waitFor();
      expect(await warning.textContent()).to.match(/notes: the field is removed with its 1 value/);
      await warning.getByRole('button', { name: 'Keep editing' }).click();
      await warning.waitFor({ state: 'detached' });
      expect((await apiGet('/api/collections/memos/schema')).fields.map((f: { name: string }) => f.name)).to.deep.equal(['title', 'notes']);
      await page.getByRole('button', { name: 'Save schema' }).click();
      await warning.getByRole('button', { name: 'Save and lose these values' }).click();
      await page.waitForURL(/\/admin\/content\/memos(\?.*)?$/);
      expect((await apiGet('/api/collections/memos/schema')).fields.map((f: { name: string }) => f.name)).to.deep.equal(['title']);
    });
  });
}
