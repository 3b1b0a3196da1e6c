import { expect } from 'chai';
import { PASSWORD, signInWithApi, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38, first part, in the browser: an admin creates a role on the Roles page, asks it what it may do
 * (explain), gives it to a user through the API; that user signs in and the role's permissions apply
 * (content:read only: no "New" button, and a write through the API is refused); the role cannot be
 * deleted while held, and the page says why in words; built-in roles offer no delete.
 */
for (const variant of DB_VARIANTS) {
  describe(`admin UI: roles (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t, session, apiGet, apiCreate } = useAdminUiAsAda(variant);

    it('creates a role in the UI, explains it, and a user holding it can read but not write', async function () {
      await apiCreate('/api/collections', { name: 'notes', fields: [{ name: 'title', type: 'text' }] });
      await apiCreate('/api/collections/notes', { title: 'First note', status: 'published' });

      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/roles`);
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      // Built-in roles are listed without a delete button.
      const editorRow = page.locator('tr[data-role="editor"]');
      await editorRow.getByText('built-in').waitFor();
      expect(await editorRow.getByRole('button', { name: 'Delete' }).count()).to.equal(0);

      // Create: content:read is ticked by default; nothing else.
      await page.getByRole('button', { name: 'New role' }).click();
      const form = page.getByRole('dialog', { name: 'New role' });
      await form.getByLabel('Name').fill('readers');
      await form.getByLabel('Description').fill('Reads the notes');
      await form.getByRole('button', { name: 'Save role' }).click();
      await form.waitFor({ state: 'hidden' });
      const row = page.locator('tr[data-role="readers"]');
      await row.getByText('Reads the notes').waitFor();
      const roles = (await (await t.request('/api/roles', { headers: { cookie: session.cookie } })).json()).data as Array<{
        name: string;
        permissions: string[];
      }>;
      expect(roles.find((r) => r.name === 'readers')?.permissions).to.deep.equal(['content:read']);

      // Explain: may it create entries in notes? No, that needs content:write.
      await row.getByRole('button', { name: 'Explain' }).click();
      const explain = page.getByRole('dialog', { name: 'What may readers do?' });
      await explain.getByLabel('Collection').selectOption('notes');
      await explain.getByLabel('Action').selectOption('create');
      await explain.getByRole('button', { name: 'Explain' }).click();
      await explain.getByTestId('explain-answer').getByText('Refused.').waitFor();
      expect(await explain.getByTestId('explain-answer').textContent()).to.contain('content:write');
      await explain.getByLabel('Action').selectOption('read');
      await explain.getByRole('button', { name: 'Explain' }).click();
      await explain.getByTestId('explain-answer').getByText('Allowed.').waitFor();
      await page.keyboard.press('Escape');

      // A user gets the role through the API.
      const user = await apiCreate('/api/user/create-user', { email: 'reader@example.com', password: PASSWORD, role: 'readers' });
      expect(user.role).to.equal('readers');

      // Held: deleting is refused, and the page says why in words.
      await row.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete role' }).getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('alert')
        .getByText(/cannot be deleted while users still hold it/)
        .waitFor();

      // The user signs in: the entries are listed, but there is no "New" button, and a write is refused.
      const other = await b.newContext();
      await signInWithApi(other, t.url, 'reader@example.com', PASSWORD);
      const readerPage = await other.newPage();
      await readerPage.goto(`${t.url}/admin/content/notes`);
      await readerPage.getByText('First note').waitFor();
      expect(await readerPage.getByRole('link', { name: /^New/ }).count()).to.equal(0);
      const write = await other.request.post(`${t.url}/api/collections/notes`, {
        data: { title: 'Not allowed' },
        headers: { origin: t.url },
      });
      expect(write.status()).to.equal(403);
      await other.close();
    });
    it("the website-token form offers 'read published content' first and by default, and says what a token with an admin's rights can do", async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/account`);
      const tokens = page.getByRole('region', { name: 'Website tokens' });
      const choices = tokens.getByTestId('token-scope').getByRole('radio');
      await tokens.getByLabel(/Read published content/).waitFor();
      expect(await choices.count()).to.equal(3);
      expect(await choices.first().getAttribute('value')).to.equal('read');
      expect(await tokens.getByLabel(/Read published content/).isChecked()).to.equal(true);
      expect(await tokens.getByTestId('token-all-warning').count()).to.equal(0);
      await tokens.getByLabel('Everything I can do').check();
      expect(await tokens.getByTestId('token-all-warning').textContent()).to.match(/administrator too.*delete users/s);
      // Back to the default: the created token reads only.
      await tokens.getByLabel(/Read published content/).check();
      await tokens.getByLabel('Name').fill('Shop front');
      await tokens.getByRole('button', { name: 'Create website token' }).click();
      const secret = await tokens.getByLabel('New website token').inputValue();
      const bearer = { authorization: `Bearer ${secret}` };
      expect((await t.request('/api/collections/notes', { headers: bearer })).status).to.equal(200);
      expect((await t.request('/api/collections/notes', { method: 'POST', headers: bearer, json: { title: 'x' } })).status).to.equal(403);
    });
    it('an API key limited in the form to reading posts reads posts only: another collection and writing are 403', async function () {
      const have = ((await apiGet('/api/collections')) as Array<{ name: string }>).map((c) => c.name);
      for (const name of ['posts', 'notes'].filter((n) => !have.includes(n)))
        await apiCreate('/api/collections', { name, fields: [{ name: 'title', type: 'text' }] });
      await apiCreate('/api/collections/posts', { title: 'First post', status: 'published' });
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/account`);
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByLabel('Name').fill('Posts reader');
      await keys.getByLabel(/Only some collections and actions/).check();
      // Ticked with no action: said inline, nothing sent.
      await keys.getByRole('button', { name: 'Create API key' }).click();
      await keys.getByTestId('key-scope-empty').waitFor();
      expect(await apiGet('/api/api-keys')).to.deep.equal([]);
      // Changing posts needs content:write, which the key lacks: the server's 400 is said on the posts row.
      await keys.getByLabel(/^Read in posts$/i).check();
      await keys.getByLabel(/^Change in posts$/i).check();
      expect(await keys.getByTestId('key-scope-empty').count()).to.equal(0);
      await keys.getByRole('button', { name: 'Create API key' }).click();
      await keys
        .locator('tr[data-collection="posts"]')
        .getByRole('alert')
        .getByText(/update needs the permission content:write/)
        .waitFor();
      await keys.getByLabel(/^Change in posts$/i).uncheck();
      await keys.getByRole('button', { name: 'Create API key' }).click();
      await keys.getByTestId('key-scope-created').getByText('Limited to: posts (read)').waitFor();
      // The list of keys shows the scope too.
      await keys.getByTestId('key-scope-listed').getByText('Limited to: posts (read)').waitFor();
      const bearer = { authorization: `Bearer ${await keys.getByLabel('New API key').inputValue()}` };
      const posts = await t.request('/api/collections/posts', { headers: bearer });
      expect(posts.status).to.equal(200);
      expect(((await posts.json()).data.items as Array<{ title: string }>).map((e) => e.title)).to.include('First post');
      expect((await t.request('/api/collections/notes', { headers: bearer })).status).to.equal(403);
      expect((await t.request('/api/collections/posts', { method: 'POST', headers: bearer, json: { title: 'x' } })).status).to.equal(403);
      // A key for every collection (the first row, `*`): it reads notes too, and still writes nothing.
      await keys.getByRole('button', { name: 'Done' }).click();
      await keys.getByLabel('Name').fill('Everything reader');
      await keys.getByLabel(/Only some collections and actions/).check();
      await keys.getByLabel(/^Read in All collections/i).check();
      await keys.getByRole('button', { name: 'Create API key' }).click();
      await keys.getByTestId('key-scope-created').getByText('Limited to: all collections (read)').waitFor();
      const wide = { authorization: `Bearer ${await keys.getByLabel('New API key').inputValue()}` };
      expect((await t.request('/api/collections/notes', { headers: wide })).status).to.equal(200);
      expect((await t.request('/api/collections/posts', { method: 'POST', headers: wide, json: { title: 'x' } })).status).to.equal(403);
      expect((await apiGet('/api/api-keys')).map((k: { scope: unknown }) => k.scope)).to.deep.include([
        { collection: '*', actions: ['read'] },
      ]);
    });
  });
}
