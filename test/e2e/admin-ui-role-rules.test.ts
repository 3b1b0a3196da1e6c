import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { PASSWORD, signInWithApi, useAdminUiAsAda } from '../helpers/browser.js';
import { responseCookie, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38, rules of roles, in the browser (docs/features/roles.md): an admin builds the "author" role on the
 * Roles page with its rules matrix (read posts' title and body, own entries and published ones; change only their
 * own, title and body; delete only their own), sees a rule the server refuses explained next to its input, and
 * asks "explain" which rules decide. Two authors write posts; one signs in: the posts list, its search, the entry
 * editor and GraphQL show her own posts and the other's published one, never the other's draft nor the hidden field.
 */
const AUTHOR_RULES = [
  { action: 'read', collection: 'posts', fields: ['title', 'body'], where: { $or: [{ createdBy: '$user' }, { status: 'published' }] } },
  { action: 'update', collection: 'posts', fields: ['title', 'body'], where: { createdBy: '$user' } },
  { action: 'delete', collection: 'posts', where: { createdBy: '$user' } },
];

/** Opens a cell of the rules matrix, adds a rule there and answers its editor. */
async function addRule(page: Page, action: string) {
  const form = page.getByRole('dialog', { name: 'New role' });
  await form.getByTestId(`rule-cell-posts-${action}`).click();
  await form.getByRole('button', { name: 'Add a rule' }).click();
  return form.getByTestId('rule-editor');
}

/** Signs a user in through the API: the session cookie. */
async function cookieOf(t: TestKernel, email: string): Promise<string> {
  const res = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
  expect(res.status).to.equal(200);
  return responseCookie(res)!;
}

const titlesIn = (items: Array<{ title: string }>) => items.map((e) => e.title).sort();

for (const variant of DB_VARIANTS) {
  describe(`admin UI: rules of roles (${variant.name})`, function () {
    this.timeout(180000);
    const { b, t, session, apiCreate } = useAdminUiAsAda(variant);

    it('an author role built in the UI keeps its holders to their own posts and the published ones, without the hidden field', async function () {
      await apiCreate('/api/collections', {
        name: 'posts',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'body', type: 'text' },
          { name: 'internalNotes', type: 'text' },
        ],
      });
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/roles`);
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New role' }).click();
      const form = page.getByRole('dialog', { name: 'New role' });
      await form.getByLabel('Name').fill('author');
      await form.getByLabel('Description').fill('Writes its own posts');
      await form.locator('input[value="content:write"]').check();
      // An empty cell says the permissions decide.
      expect(await form.getByTestId('rule-cell-posts-read').getAttribute('aria-label')).to.equal(
        'Read in posts: no rule, the permissions decide',
      );

      const read = await addRule(page, 'read');
      await read.getByLabel('Title').check();
      await read.getByLabel('Body').check();
      await read.getByLabel('Their own entries and published ones').check();
      expect(await read.getByLabel('Condition as a filter (JSON)').inputValue()).to.contain('"$user"');
      const update = await addRule(page, 'update');
      await update.getByLabel('Title').check();
      await update.getByLabel('Body').check();
      await update.getByLabel('Only their own entries').check();
      // Delete: first a condition of my own that is not JSON (refused here), then one the server refuses.
      const del = await addRule(page, 'delete');
      await del.getByLabel('Condition as a filter (JSON)').fill('{"colour": ');
      await form.getByRole('button', { name: 'Save role' }).click();
      await del
        .getByRole('alert')
        .getByText(/The condition is not a JSON object/)
        .waitFor();
      expect(await del.getByLabel('A condition of my own (the filter below)').isChecked()).to.equal(true);
      await del.getByLabel('Condition as a filter (JSON)').fill('{"colour": "red"}');
      await form.getByRole('button', { name: 'Save role' }).click();
      await del
        .getByRole('alert')
        .getByText(/colour/)
        .waitFor();
      expect(await form.getByTestId('rule-cell-posts-delete').getAttribute('aria-label')).to.equal(
        'Delete in posts: a rule needs changing',
      );
      expect(
        (await (await t.request('/api/roles', { headers: { cookie: session.cookie } })).json()).data.map((r: any) => r.name),
      ).to.not.include('author');
      await del.getByLabel('Only their own entries').check();
      await form.getByRole('button', { name: 'Save role' }).click();
      await form.waitFor({ state: 'hidden' });
      const row = page.locator('tr[data-role="author"]');
      await row.getByText('3 rules').waitFor();
      const roles = (await (await t.request('/api/roles', { headers: { cookie: session.cookie } })).json()).data;
      const author = roles.find((r: any) => r.name === 'author');
      expect(author.permissions).to.have.members(['content:read', 'content:write']);
      expect(author.rules).to.deep.equal(AUTHOR_RULES);

      // Explain names the rule that decides changes.
      await row.getByRole('button', { name: 'Explain' }).click();
      const explain = page.getByRole('dialog', { name: 'What may author do?' });
      await explain.getByLabel('Collection').selectOption('posts');
      await explain.getByLabel('Action').selectOption('update');
      await explain.getByRole('button', { name: 'Explain' }).click();
      await explain.getByTestId('explain-answer').getByText('Allowed.').waitFor();
      expect(await explain.getByTestId('explain-rules').textContent()).to.equal(
        'Change in posts: only the fields title, body; only their own entries; every locale',
      );
      await page.keyboard.press('Escape');

      // Editing the role shows its rules in the matrix.
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit role author' });
      expect(await edit.getByTestId('rule-cell-posts-update').getAttribute('aria-label')).to.equal('Change in posts: a rule decides');
      await edit.getByTestId('rule-cell-posts-read').click();
      expect(await edit.getByTestId('rule-editor').getByLabel('Their own entries and published ones').isChecked()).to.equal(true);
      expect(await edit.getByTestId('rule-editor').getByLabel('Internal notes').isChecked()).to.equal(false);
      await page.keyboard.press('Escape');

      // Two authors write posts; the notes are written by the admin.
      await apiCreate('/api/user/create-user', { email: 'ann@example.com', password: PASSWORD, role: 'author' });
      await apiCreate('/api/user/create-user', { email: 'bob@example.com', password: PASSWORD, role: 'author' });
      const ann = await cookieOf(t, 'ann@example.com');
      const bob = await cookieOf(t, 'bob@example.com');
      const ids: Record<string, string> = {};
      for (const [who, title, status] of [
        [ann, 'Ann published', 'published'],
        [ann, 'Ann draft', 'draft'],
        [bob, 'Bob published', 'published'],
        [bob, 'Bob draft', 'draft'],
      ] as const) {
        const res = await t.request('/api/collections/posts', {
          method: 'POST',
          headers: { cookie: who },
          json: { title, body: `${title} text`, status },
        });
        expect(res.status, await res.clone().text()).to.equal(201);
        ids[title] = (await res.json()).data._id;
        const notes = await t.request(`/api/collections/posts/${ids[title]}`, {
          method: 'PATCH',
          headers: { cookie: session.cookie },
          json: { internalNotes: `zebra notes of ${title}` },
        });
        expect(notes.status).to.equal(200);
      }

      // Ann signs in: her posts and Bob's published one, no notes column.
      const other = await b.newContext();
      await signInWithApi(other, t.url, 'ann@example.com', PASSWORD);
      const annPage = await other.newPage();
      await annPage.goto(`${t.url}/admin/content/posts`);
      const table = annPage.locator('table.data');
      await table.getByRole('link', { name: 'Bob published' }).waitFor();
      const listed = (await table.locator('tbody tr td.cell a').allTextContents()).map((s) => s.trim()).sort();
      expect(listed).to.deep.equal(['Ann draft', 'Ann published', 'Bob published']);
      const headers = (await table.locator('thead th').allTextContents()).join(' | ');
      expect(headers).to.match(/Title/);
      expect(headers).to.not.match(/Internal notes/);
      expect(await annPage.getByText(/zebra/).count()).to.equal(0);

      // Search for a word only the notes hold finds nothing.
      await annPage.getByLabel('Search entries').fill('zebra');
      await annPage.getByRole('button', { name: 'Search', exact: true }).click();
      await annPage.getByText('No entries match.').waitFor();
      expect(await table.count()).to.equal(0);

      // Bob's published post: no notes input; saving it is refused, in words, and nothing changes.
      await annPage.goto(`${t.url}/admin/content/posts/${ids['Bob published']}`);
      await annPage.getByRole('textbox', { name: 'Title (required)' }).waitFor();
      expect(await annPage.getByLabel('Internal notes').count()).to.equal(0);
      await annPage.getByRole('textbox', { name: 'Title (required)' }).fill('Taken over');
      await annPage.getByRole('button', { name: 'Save', exact: true }).click();
      await annPage
        .getByRole('alert')
        .getByText(/does not let you update/)
        .waitFor();
      const stored = await (
        await t.request(`/api/collections/posts/${ids['Bob published']}`, { headers: { cookie: session.cookie } })
      ).json();
      expect(stored.data.title).to.equal('Bob published');
      expect(stored.data.internalNotes).to.equal('zebra notes of Bob published');

      // Her own draft: saved (the hidden field is not sent), the notes kept.
      await annPage.goto(`${t.url}/admin/content/posts/${ids['Ann draft']}`);
      await annPage.getByRole('textbox', { name: 'Title (required)' }).waitFor();
      expect(await annPage.getByLabel('Internal notes').count()).to.equal(0);
      await annPage.getByRole('textbox', { name: 'Title (required)' }).fill('Ann draft, revised');
      await annPage.getByRole('button', { name: 'Save draft', exact: true }).click();
      await annPage.getByRole('heading', { name: 'Ann draft, revised', level: 1 }).waitFor();
      const own = await (await t.request(`/api/collections/posts/${ids['Ann draft']}`, { headers: { cookie: session.cookie } })).json();
      expect(own.data.title).to.equal('Ann draft, revised');
      expect(own.data.internalNotes).to.equal('zebra notes of Ann draft');

      // GraphQL with her cookie: the same posts, the notes null.
      const gql = await annPage.request.post(`${t.url}/api/graphql`, {
        data: { query: '{ posts(limit: 50) { total items { title internalNotes } } }' },
        headers: { origin: t.url },
      });
      expect(gql.status()).to.equal(200);
      const answer = (await gql.json()) as { data: { posts: { total: number; items: Array<{ title: string; internalNotes: null }> } } };
      expect(answer.data.posts.total).to.equal(3);
      expect(titlesIn(answer.data.posts.items)).to.deep.equal(['Ann draft, revised', 'Ann published', 'Bob published']);
      expect(answer.data.posts.items.every((e) => e.internalNotes === null)).to.equal(true);
      await other.close();
    });
  });
}
