import { expect } from 'chai';
import { ADA, PASSWORD, openAdminPage, useAdminUi } from '../helpers/browser.js';
import { signInCookie } from '../helpers/users.js';

const BEA = { email: 'bea@example.com', password: PASSWORD, role: 'editor', username: 'Bea' };

// Issue 37, item 4 in the admin UI: the review board of a collection shows entries as cards in columns by stage;
// dragging a card moves the entry (PUT .../stage); a move the editor's role may not make is refused in words and the
// card stays; the entry page shows the stage.
describe('admin UI: review board', function () {
  this.timeout(120000);
  let cookie = '';
  let entryId = '';
  const api = async (method: string, path: string, json?: unknown) => {
    const res = await t.request(path, { method, headers: { cookie }, json });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).to.be.oneOf([200, 201]);
    return body.data;
  };
  const { b, t } = useAdminUi(undefined, {
    users: [BEA],
    seed: async () => {
      cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
      await api('POST', '/api/collections', { name: 'posts', fields: [{ name: 'title', type: 'text' }] });
      await api('POST', '/api/workflows', {
        name: 'Editorial',
        collections: ['posts'],
        stages: [{ name: 'draft' }, { name: 'review' }, { name: 'approved', roles: ['admin'] }],
        publishStage: 'approved',
      });
      entryId = (await api('POST', '/api/collections/posts', { title: 'First post' }))._id;
      await api('POST', '/api/collections', { name: 'notes', fields: [{ name: 'title', type: 'text' }] });
    },
  });
  const stageOf = async () => (await api('GET', `/api/collections/posts/${entryId}`))._stage;

  it('moves a card by dragging it, explains a refused move, and shows the stage on the entry page', async function () {
    const page = await openAdminPage(b, t, 'content/posts/board', undefined, BEA.email);
    const column = (stage: string) => page.locator(`section[data-stage="${stage}"]`);
    const card = page.locator(`li[data-entry="${entryId}"]`);
    await column('draft').locator(`li[data-entry="${entryId}"]`).waitFor();
    await card.dragTo(column('review'));
    await column('review').locator(`li[data-entry="${entryId}"]`).waitFor();
    await page.getByRole('status').filter({ hasText: '“First post” is now in the stage review.' }).waitFor();
    expect(await stageOf()).to.equal('review');
    // Only administrators may move entries into "approved": refused in words, the card stays in review.
    await card.getByLabel('Stage').selectOption('approved');
    await page.getByRole('status').filter({ hasText: 'Not moved: only admin may move entries into the stage approved.' }).waitFor();
    expect(await column('review').locator(`li[data-entry="${entryId}"]`).count()).to.equal(1);
    expect(await card.getByLabel('Stage').inputValue()).to.equal('review');
    expect(await stageOf()).to.equal('review');
    // The entry page shows the stage the entry is in.
    await page.goto(`${t.url}/admin/content/posts/${entryId}`);
    const line = page.getByTestId('entry-stage');
    await line.waitFor();
    expect(await line.getByLabel('Review stage').inputValue()).to.equal('review');
    expect(await line.innerText()).to.contain('Entries are published from the stage approved.');
    // Publishing outside the publish stage is refused in words; the entry stays a draft.
    const refused = page.waitForResponse((r) => r.url().includes(`/api/collections/posts/${entryId}`) && r.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    expect((await refused).status()).to.equal(409);
    await page
      .getByRole('alert')
      .filter({
        hasText: 'Not published: entries of this collection are published from the review stage approved, and this one is in review.',
      })
      .waitFor();
    expect((await api('GET', `/api/collections/posts/${entryId}`)).status).to.equal('draft');
  });

  it("shows every entry of a stage page by page with the stage's total, and moves a card of a later page", async function () {
    const entries = Array.from({ length: 30 }, (_, i) => ({ title: `Batch ${String(i + 1).padStart(2, '0')}` }));
    await api('POST', '/api/collections/posts/batch', { entries });
    const totalOf = async (stage: string) => (await api('GET', `/api/collections/posts?stage=${stage}&limit=1`)).total as number;
    const [drafts, reviews] = [await totalOf('draft'), await totalOf('review')];
    expect(drafts).to.be.at.least(30);
    const page = await openAdminPage(b, t, 'content/posts/board', undefined, BEA.email);
    const column = (stage: string) => page.locator(`section[data-stage="${stage}"]`);
    const draft = column('draft');
    const cards = draft.locator('li.card');
    await cards.first().waitFor();
    // One page of 25 cards, and the stage's total in the heading.
    expect(await cards.count()).to.equal(25);
    expect(await draft.getByTestId('stage-total').innerText()).to.equal(`(${drafts})`);
    expect(await column('review').getByTestId('stage-total').innerText()).to.equal(`(${reviews})`);
    await draft.getByRole('button', { name: `Show more (25 of ${drafts})` }).click();
    await cards.nth(drafts - 1).waitFor();
    expect(await cards.count()).to.equal(drafts);
    expect(await draft.getByRole('button', { name: /Show more/ }).count()).to.equal(0);
    // The last card came with the second page: it moves like the others, and both totals follow.
    const last = cards.last();
    const id = (await last.getAttribute('data-entry'))!;
    await last.getByLabel('Stage').selectOption('review');
    await column('review').locator(`li[data-entry="${id}"]`).waitFor();
    expect(await draft.getByTestId('stage-total').innerText()).to.equal(`(${drafts - 1})`);
    expect(await column('review').getByTestId('stage-total').innerText()).to.equal(`(${reviews + 1})`);
    expect(await totalOf('review')).to.equal(reviews + 1);
  });

  it('creates a workflow on the Review stages page; a collection in another workflow is refused in words', async function () {
    const page = await openAdminPage(b, t, 'workflows', 'Review stages');
    await page.getByRole('button', { name: 'New workflow' }).click();
    const form = page.getByRole('form', { name: 'New workflow' });
    await form.getByLabel('Name').fill('Notes review');
    await form.getByLabel('posts').check();
    await form.getByLabel('Stages, in order').fill('written\nchecked: admin');
    await form.getByLabel('Publish stage').selectOption('checked');
    await form.getByRole('button', { name: 'Save workflow' }).click();
    await form.getByRole('alert').filter({ hasText: "'posts' is already in another workflow" }).waitFor();
    await form.getByLabel('posts').uncheck();
    await form.getByLabel('notes').check();
    await form.getByRole('button', { name: 'Save workflow' }).click();
    await page.locator('li[data-workflow="Notes review"]').waitFor();
    const made = (await api('GET', '/api/workflows')).find((w: any) => w.name === 'Notes review');
    expect(made).to.deep.include({ collections: ['notes'], publishStage: 'checked' });
    expect(made.stages).to.deep.equal([{ name: 'written' }, { name: 'checked', roles: ['admin'] }]);
  });
});
