import { expect } from 'chai';
import { openAdminPage, PASSWORD, signInWithApi, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';
import { openNewCollection, pickCover, solidPng } from '../helpers/admin-pages.js';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: content pages in the browser (${variant.name})`, function () {
    this.timeout(120000);
    const { b, t, session, apiGet } = useAdminUiAsAda(variant);
    const call = async (method: string, path: string, json: unknown) => {
      const res = await t.request(path, { method, headers: { cookie: session.cookie }, json });
      expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
      return (await res.json()).data;
    };

    it('opens a singleton as its one entry: the form the first time, the same entry afterwards', async function () {
      const { page } = b;
      const name = `site${variant.name.replace(/[^a-z]/g, '')}`;
      await call('POST', '/api/collections', {
        name,
        singular: `${name}_item`,
        singleton: true,
        fields: [{ name: 'title', type: 'text', required: true }],
      });
      await openAdminPage(b, t, 'content');
      const tile = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: new RegExp(`^${name}$`) }) });
      await tile.getByTestId('single-badge').waitFor();
      await tile.getByRole('link', { name: 'Edit', exact: true }).click();
      await page.waitForURL(`**/admin/content/${name}/new`);
      await page.getByLabel(/^Title/).fill('My site');
      await page.getByRole('button', { name: `Create ${name}_item` }).click();
      await page.waitForURL(new RegExp(`/admin/content/${name}/[0-9a-f-]{36}$`));
      const written = (await (await t.request(`/api/collections/${name}/single`, { headers: { cookie: session.cookie } })).json()).data as {
        _id: string;
        title: string;
      };
      expect(written.title).to.equal('My site');
      expect(page.url()).to.match(new RegExp(`/${written._id}$`));
      // The second time, the collection opens its entry, not a new form.
      await page.goto(`${t.url}/admin/content/${name}`);
      await page.waitForURL(`**/admin/content/${name}/${written._id}`);
      // The editor fills its form once the entry has loaded.
      await until(async () => ((await page.getByLabel(/^Title/).inputValue()) === 'My site' ? true : undefined), 'the title in the form');
    });

    it('makes a collection public in its settings: a guest then reads the published entry, not the draft, and the entry links to its API view', async function () {
      const { page } = b;
      const name = `notes${variant.name.replace(/[^a-z]/g, '')}`;
      await call('POST', '/api/collections', { name, fields: [{ name: 'title', type: 'text', required: true }] });
      const open = await call('POST', `/api/collections/${name}`, { title: 'Opening hours', status: 'published' });
      await call('POST', `/api/collections/${name}`, { title: 'Unfinished thoughts' });
      // A visitor without a session (no cookie at all) is asked to sign in.
      expect((await fetch(`${t.url}/api/collections/${name}`)).status).to.equal(401);

      await openAdminPage(b, t, `content/${name}/schema`);
      const card = page.getByRole('region', { name: 'Public access' });
      await card.getByText('Private: readers need a session').waitFor();
      await card.getByRole('checkbox', { name: /Anyone can read the published entries/ }).check();
      await page.getByRole('status').getByText('Published entries are now public').waitFor();
      expect(await card.getByTestId('public-list-url').textContent()).to.equal(`${t.url}/api/collections/${name}`);
      // The collection list says which collections are public.
      await page.goto(`${t.url}/admin/content`);
      const tile = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: new RegExp(`^${name}$`) }) });
      await tile.getByTestId('public-badge').waitFor();

      const list = (await (await fetch(`${t.url}/api/collections/${name}`)).json()) as { data: { items: Array<{ title: string }> } };
      expect(list.data.items.map((e) => e.title)).to.deep.equal(['Opening hours']);
      const viaGraphql = (await (
        await fetch(`${t.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ ${name} { total } }` }),
        })
      ).json()) as { data?: Record<string, { total: number }> };
      expect(viaGraphql.data?.[name]?.total, JSON.stringify(viaGraphql)).to.equal(1);

      // The entry's page links to the entry as the API serves it.
      await page.goto(`${t.url}/admin/content/${name}/${open._id}`);
      expect(await page.getByRole('link', { name: 'View in API' }).getAttribute('href')).to.equal(`/api/collections/${name}/${open._id}`);

      // Private again: the visitor is refused at once.
      await page.goto(`${t.url}/admin/content/${name}/schema`);
      await page.getByRole('region', { name: 'Public access' }).getByRole('checkbox').uncheck();
      await page.getByRole('status').getByText('Entries are private again').waitFor();
      expect((await fetch(`${t.url}/api/collections/${name}`)).status).to.equal(401);
    });

    it("a very long title is cut in the list with its full text kept, and the row's buttons stay in view (normal and narrow screen)", async function () {
      const { page, context } = b;
      const name = `memos${variant.name.replace(/[^a-z]/g, '')}`;
      const post = async (path: string, json: unknown) => {
        const res = await t.request(path, { method: 'POST', headers: { cookie: session.cookie }, json });
        expect(res.status, await res.clone().text()).to.equal(201);
      };
      await post('/api/collections', { name, fields: [{ name: 'title', type: 'text' }] });
      const long = `Minutes of the ${'very '.repeat(20)}long meeting about the harbour_${'x'.repeat(80)}`;
      await post(`/api/collections/${name}`, { title: long });
      await post(`/api/collections/${name}`, { title: 'Short one' });
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${t.url}/admin/content/${name}`);
        const link = page.getByRole('link', { name: long, exact: true });
        await link.waitFor();
        expect(await link.getAttribute('title'), 'the whole title on hover').to.equal(long);
        expect(await link.evaluate((el) => el.scrollWidth > el.clientWidth), `the title is cut at ${width}px`).to.equal(true);
        const remove = page.getByRole('button', { name: `Delete ${long}`, exact: true });
        const box = (await remove.boundingBox())!;
        expect(box, `the Delete button is laid out at ${width}px`).to.not.equal(null);
        expect(box.x + box.width, `the Delete button is inside the window at ${width}px`).to.be.at.most(width);
        expect(box.x, `at ${width}px`).to.be.at.least(0);
        // It is the button under the pointer there (not covered by the cut title), and it works.
        const hit = await remove.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return el.ownerDocument.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === el;
        });
        expect(hit, `nothing covers the Delete button at ${width}px`).to.equal(true);
      }
      await page.getByRole('button', { name: `Delete ${long}`, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('link', { name: long, exact: true }).waitFor({ state: 'detached' });
      await page.setViewportSize({ width: 1280, height: 800 });
      // A page number past the deepest one (PAGE_TOO_DEEP, docs/features/content.md) is said in words, not as a code.
      await page.goto(`${t.url}/admin/content/${name}?page=402`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).to.match(/past the first 10,000 entries.*Search, filter or sort the other way/);
    });

    it('makes a preview link of a draft: someone without an account sees it as it is now, until it is revoked', async function () {
      const { page } = b;
      const name = `letters${variant.name.replace(/[^a-z]/g, '')}`;
      const authors = `${name}_authors`;
      await call('POST', '/api/collections', { name: authors, fields: [{ name: 'name', type: 'text' }] });
      const author = await call('POST', `/api/collections/${authors}`, { name: 'Grace Hopper' });
      await call('POST', '/api/collections', {
        name,
        fields: [
          { name: 'title', type: 'text' },
          { name: 'body', type: 'richtext' },
          { name: 'pages', type: 'number' },
          { name: 'author', type: 'relation', collection: authors },
        ],
      });
      const draft = await call('POST', `/api/collections/${name}`, {
        title: 'Letter to the board',
        body: '<h2>Summary</h2><p>We <strong>grew</strong>.</p><ul><li>one</li><li>two</li></ul>',
        pages: 4,
        author: author._id,
      });
      await openAdminPage(b, t, `content/${name}/${draft._id}`);
      const card = page.getByRole('region', { name: 'Preview' });
      await card.getByLabel('Valid for').selectOption('24');
      await card.getByRole('button', { name: 'Make preview link' }).click();
      const url = await card.getByLabel('Preview link').inputValue();
      expect(url).to.match(new RegExp(`^${t.url}/admin/preview\\?token=pv_`));
      await card.getByTestId('preview-active').getByText('1 live link').waitFor();

      // A visitor with no session opens it: the draft as it is, formatted, marked as not published.
      const visitor = await (await b.newContext()).newPage();
      await visitor.goto(url);
      const article = visitor.getByTestId('preview-article');
      await article.getByRole('heading', { level: 1, name: 'Letter to the board' }).waitFor();
      expect(await visitor.getByTestId('preview-status').textContent()).to.contain('is a draft: it is not published');
      expect(await article.getByRole('heading', { level: 2, name: 'Summary' }).count()).to.equal(1);
      expect(await article.locator('strong').textContent()).to.equal('grew');
      expect(await article.getByRole('listitem').allTextContents()).to.deep.equal(['one', 'two']);
      expect(await article.locator('[data-field="pages"]').textContent()).to.contain('4');
      // A relation shows the related entry by its title, not its id.
      const related = await article.locator('[data-field="author"]').textContent();
      expect(related).to.contain('Grace Hopper');
      expect(related).to.not.contain(author._id);
      expect(await visitor.title()).to.contain('Letter to the board (preview)');

      // An edit shows on reload; revoking closes the link.
      await call('PATCH', `/api/collections/${name}/${draft._id}`, { title: 'Letter to the board, final' });
      await visitor.reload();
      await article.getByRole('heading', { level: 1, name: 'Letter to the board, final' }).waitFor();
      await page.reload();
      await card.getByRole('button', { name: 'Revoke it' }).click();
      await page.getByRole('status').getByText('Preview link revoked').waitFor();
      await visitor.reload();
      await visitor.getByRole('alert').getByText('This preview link does not exist or was revoked.').waitFor();
    });

    it('schedules a draft for publishing from its page and cancels it again', async function () {
      const { page } = b;
      const name = `drafts${variant.name.replace(/[^a-z]/g, '')}`;
      const res = await t.request('/api/collections', {
        method: 'POST',
        headers: { cookie: session.cookie },
        json: { name, fields: [{ name: 'title', type: 'text' }] },
      });
      expect(res.status).to.equal(201);
      const draft = (
        await (
          await t.request(`/api/collections/${name}`, {
            method: 'POST',
            headers: { cookie: session.cookie },
            json: { title: 'Spring sale' },
          })
        ).json()
      ).data;
      await openAdminPage(b, t, `content/${name}/${draft._id}`);
      const card = page.getByRole('region', { name: 'Schedule' });
      // An hour ahead, in the browser's local time as the input takes it.
      const inAnHour = new Date(Date.now() + 3600_000);
      const local = new Date(inAnHour.getTime() - inAnHour.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      await card.getByLabel('Publish at').fill(local);
      await card.getByRole('button', { name: 'Schedule publishing' }).click();
      await card.getByTestId('scheduled-at').waitFor();
      const scheduled = await apiGet(`/api/collections/${name}/${draft._id}/schedule`);
      expect(Math.abs(new Date(scheduled.publishAt).getTime() - inAnHour.getTime())).to.be.below(60_000);
      // And back to draft an hour after that (a window): the unpublish time is shown, then cancelled on its own.
      const inTwoHours = new Date(inAnHour.getTime() + 3600_000);
      await card
        .getByLabel('Unpublish at')
        .fill(new Date(inTwoHours.getTime() - inTwoHours.getTimezoneOffset() * 60_000).toISOString().slice(0, 16));
      await card.getByRole('button', { name: 'Schedule unpublishing' }).click();
      await card.getByTestId('unscheduled-at').waitFor();
      const windowed = await apiGet(`/api/collections/${name}/${draft._id}/schedule`);
      expect(Math.abs(new Date(windowed.unpublishAt).getTime() - inTwoHours.getTime())).to.be.below(60_000);
      await card.getByRole('button', { name: 'Cancel unpublishing' }).click();
      await card.getByRole('button', { name: 'Schedule unpublishing' }).waitFor();
      expect((await apiGet(`/api/collections/${name}/${draft._id}/schedule`)).unpublishAt).to.equal(null);
      await card.getByRole('button', { name: 'Cancel schedule' }).click();
      await card.getByRole('button', { name: 'Schedule publishing' }).waitFor();
      expect((await apiGet(`/api/collections/${name}/${draft._id}/schedule`)).publishAt).to.equal(null);
    });

    it("creates a collection in the schema editor and an entry with a cover image (the API's field messages shown), publishes it, restores a revision, then archives and deletes in bulk", async function () {
      const { page } = b;
      const name = `posts${variant.name.replace(/[^a-z]/g, '')}`;
      await openAdminPage(b, t, '');
      await openNewCollection(page);

      // The label follows the name until edited, the singular shows its default; the rules are shown while typing.
      await page.getByLabel(/^Name/).fill('team_notes');
      expect(await page.locator('input[name="label"]').inputValue()).to.equal('Team notes');
      expect(await page.locator('input[name="singular"]').getAttribute('placeholder')).to.equal('team_note');
      const firstField = page.getByRole('listitem', { name: /^Field 1/ });
      const firstName = firstField.getByLabel('Field name');
      // The rule is always there (described by), the problem appears while typing, before any request.
      const ruleId = (await firstName.getAttribute('aria-describedby'))!.split(' ')[0]!;
      expect(await page.locator(`#${ruleId}`).textContent()).to.match(/may only contain letters and digits/);
      await firstName.fill('published_at');
      expect(await firstField.locator('.error').textContent()).to.match(/The name cannot contain "_": only letters and digits/);
      const described = (await firstName.getAttribute('aria-describedby'))!.split(' ');
      expect(described).to.have.length(2);
      expect(await page.locator(`#${described[1]}`).textContent()).to.match(/cannot contain "_"/);
      expect(await firstName.getAttribute('aria-invalid')).to.equal('true');
      await firstName.fill('status');
      expect(await firstField.locator('.error').textContent()).to.match(/"status" is a name every entry already has/);
      await firstName.fill('title');
      expect(await firstField.locator('.error').count()).to.equal(0);
      expect(await firstName.getAttribute('aria-invalid')).to.equal('false');

      // A name the API refuses: its message appears next to the field.
      await page.getByLabel(/^Name/).fill('Bad Name');
      await page.locator('input[name="label"]').fill('Blog posts');
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.locator('.basics .error').first().waitFor();
      expect(await page.locator('.basics .error').first().textContent()).to.match(/lower-case/);
      // The top-of-page error says the server's refusal in words: no error code, no request path.
      const banner = page.locator('form > .alert.error');
      await banner.waitFor();
      const said = (await banner.textContent())!;
      expect(said).to.match(/One value needs changing:\s*The name may only contain lower-case letters/);
      expect(said).to.not.match(/VALIDATION_ERROR|body\.|Invalid request/);

      await page.getByLabel(/^Name/).fill(name);
      // The first field (title, required text) is there; add a rich text body and a select.
      await page.getByRole('button', { name: 'Add field' }).click();
      const body = page.getByRole('listitem', { name: /^Field 2/ });
      // A name another field has: said while typing, and the server's refusal names the field by its position.
      await body.getByLabel('Field name').fill('Title');
      expect(await body.locator('.error').textContent()).to.match(/Another field is already called "Title"/);
      await page.getByRole('button', { name: 'Create collection' }).click();
      await banner.getByText(/Field 2, name: 'Title' is defined twice/).waitFor();
      expect(await banner.textContent()).to.not.match(/VALIDATION_ERROR|body\.|fields\.1/);
      await body.getByLabel('Field name').fill('body');
      await body.getByLabel('Type').selectOption('richtext');
      await page.getByRole('button', { name: 'Add field' }).click();
      const category = page.getByRole('listitem', { name: /^Field 3/ });
      await category.getByLabel('Field name').fill('category');
      await category.getByLabel('Type').selectOption('select');
      await category.getByLabel(/^Options/).fill('news\nguides');
      await category.getByLabel('Editing widget').selectOption('radio');
      await page.getByRole('button', { name: 'Add field' }).click();
      const cover = page.getByRole('listitem', { name: /^Field 4/ });
      await cover.getByLabel('Field name').fill('cover');
      await cover.getByLabel('Type').selectOption('media');
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.waitForURL(new RegExp(`/admin/content/${name}(\\?.*)?$`));
      await page.getByRole('heading', { name: 'Blog posts', level: 1 }).waitFor();
      const schema = await apiGet(`/api/collections/${name}/schema`);
      expect(schema.fields.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).to.deep.equal([
        'title:text',
        'body:richtext',
        'category:select',
        'cover:media',
      ]);
      expect(schema.fields[2].options).to.deep.equal(['news', 'guides']);
      expect(schema.fields[2].widget, 'the chosen editing widget is stored with the field').to.equal('radio');

      // New entry: without a title the API answers VALIDATION_ERROR and "required" shows under Title.
      await page.getByRole('link', { name: 'New post' }).first().click();
      await page.getByRole('heading', { name: 'New post', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create post' }).click();
      const titleField = page.locator('[data-field="title"]');
      await titleField.locator('.error').waitFor();
      expect(await titleField.locator('.error').textContent()).to.match(/required/);
      expect(await page.getByLabel(/^Title/).getAttribute('aria-invalid')).to.equal('true');

      await page.getByLabel(/^Title/).fill('Hello from the browser');
      await page.getByLabel(/^Body/).fill('First words.');
      // The select field asked for radio buttons: the editor shows them instead of a dropdown.
      await page.locator('[data-field="category"]').getByRole('radio', { name: 'guides' }).check();
      // The cover image: uploaded from the media field's picker without leaving the entry.
      await pickCover(page, 'cover.png', await solidPng(400, 300, { r: 200, g: 60, b: 40 }));
      await page.getByRole('button', { name: 'Create post' }).click();
      await page.getByRole('heading', { name: 'Hello from the browser', level: 1 }).waitFor();
      expect(await page.getByTestId('entry-version').textContent()).to.equal('version 1');

      // A draft offers Publish: the edited form saved as published, one request, a second revision.
      expect(await page.getByRole('button', { name: 'Save draft' }).isVisible()).to.equal(true);
      await page.getByLabel(/^Body/).fill('First words, edited.');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByTestId('entry-version').filter({ hasText: 'version 2' }).waitFor();
      await page.getByRole('status').getByText('Published', { exact: true }).waitFor();
      // Published: Save keeps it published, Unpublish is offered instead of Publish.
      await page.getByRole('button', { name: 'Unpublish', exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Publish', exact: true }).count()).to.equal(0);
      const revisions = page.getByRole('region', { name: 'Revisions' });
      await revisions.getByRole('button', { name: 'Version 1' }).waitFor();

      const list = await apiGet(`/api/collections/${name}`);
      expect(list.total).to.equal(1);
      const [media] = (await apiGet('/api/media')).items;
      expect(list.items[0].cover).to.equal(media._id);
      expect(list.items[0]).to.include({
        title: 'Hello from the browser',
        body: '<p>First words, edited.</p>',
        category: 'guides',
        status: 'published',
        slug: 'hello-from-the-browser',
      });

      // What version 2 changed against version 1: the body word by word, and the status.
      await revisions.getByRole('button', { name: 'Version 2' }).click();
      const diff = page.getByRole('dialog', { name: 'Version 2' }).getByTestId('revision-diff');
      await diff.waitFor();
      const bodyRow = diff.locator('tr[data-field="body"]');
      expect(await bodyRow.locator('td.before').innerText()).to.equal('First words.');
      expect(await bodyRow.locator('td.before del').count()).to.equal(0);
      expect(await bodyRow.locator('td.after ins').allInnerTexts()).to.deep.equal([', edited']);
      expect(await diff.locator('tr[data-field="status"] td.before del').innerText()).to.equal('draft');
      expect(await diff.locator('tr[data-field="status"] td.after ins').innerText()).to.equal('published');
      expect(await diff.locator('tr[data-field="title"]').count()).to.equal(0);
      await page.getByRole('dialog', { name: 'Version 2' }).getByText('Close', { exact: true }).click();

      // Restore version 1 from the revisions: the old body comes back as a new version.
      await revisions.getByRole('button', { name: 'Version 1' }).click();
      await page.getByRole('dialog', { name: 'Version 1' }).getByRole('button', { name: 'Restore this version' }).click();
      await page.waitForFunction((sel) => (globalThis as any).document.querySelector(sel)?.textContent === 'First words.', '#f-body');

      // The entries table: search, status filter, sort.
      await page.getByRole('link', { name: 'Blog posts' }).click();
      const table = page.getByRole('table', { name: 'Entries of Blog posts' });
      await table.getByRole('link', { name: 'Hello from the browser' }).waitFor();
      expect(await table.locator('.badge').first().textContent()).to.equal('published');
      await page.getByLabel('Status filter').selectOption('draft');
      await page.getByText('No entries match.').waitFor();
      await page.getByLabel('Status filter').selectOption('');
      await page.getByLabel('Search entries').fill('nothing-like-this');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('No entries match.').waitFor();
      expect(page.url()).to.match(/search=nothing-like-this/);

      // Bulk: select every entry on the page, archive them, then delete them (batch-delete).
      await page.getByLabel('Search entries').fill('');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await table.getByRole('link', { name: 'Hello from the browser' }).waitFor();
      await page.getByLabel('Select all entries on this page').check();
      const bulk = page.getByRole('region', { name: 'Selected entries' });
      await bulk.getByRole('button', { name: 'Archive' }).click();
      await table.locator('.badge', { hasText: 'archived' }).waitFor();
      await page.getByLabel('Select all entries on this page').check();
      await bulk.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: /Delete 1 entry$/ })
        .getByRole('button', { name: 'Delete' })
        .click();
      await page.getByText('No entries yet.').waitFor();
      expect((await apiGet(`/api/collections/${name}`)).total).to.equal(0);
    });
  });
}
