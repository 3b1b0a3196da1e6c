import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { seriousViolations } from '../helpers/axe.js';
import { ADA, PASSWORD, shot, signInWithApi, useBrowser, useUiKernelBeside } from '../helpers/browser.js';
import { fixturePlugin } from '../helpers/kernel.js';
import { startChildInstance, type ChildInstance } from '../helpers/content-sync-rig.js';
import { addSyncChannel, showSyncPlan } from '../helpers/admin-pages.js';

// Issue 33, item 3, in a real browser with two instances (each its own process, port and data folder):
// on B the sync page makes the key A needs (exactly content:read and content:sync, shown once), A adds B
// as a channel with it and pushes; an entry changed on both sides is shown with both versions, and the
// user keeps A's version of one and takes B's of another; both instances end with the chosen versions.
const POSTS = {
  name: 'posts',
  label: 'Posts',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'body', type: 'text' },
  ],
};
describe('admin UI: content sync between two instances: sync key, push, conflicts resolved (sqlite)', function () {
  this.timeout(240000);
  const browser = useBrowser();
  let b: ChildInstance;
  const a = useUiKernelBeside(
    // B is on loopback: the operator switch lets A's channel reach it.
    { db: 'sqlite', plugins: [fixturePlugin('test-identity')], config: { outbound: { allowPrivate: true } } },
    {
      users: [ADA],
      seed: async () => {
        expect((await a.request('/api/collections', { method: 'POST', identity: 'admin', json: POSTS })).status).to.equal(201);
        expect((await b.as('admin', 'POST', '/api/collections', POSTS)).status).to.equal(201);
      },
    },
    async () => {
      b = await startChildInstance();
      return () => b.stop();
    },
  );

  const onA = async (method: string, path: string, json?: unknown) => {
    const res = await a.request(path, { method, identity: 'admin', ...(json !== undefined ? { json } : {}) });
    const text = await res.text();
    expect(res.status, text).to.be.within(200, 201);
    return JSON.parse(text).data;
  };
  const onB = async (method: string, path: string, json?: unknown) => {
    const res = await b.as('admin', method, path, json);
    expect(res.status, JSON.stringify(res.body)).to.be.within(200, 201);
    return res.body.data;
  };
  const titles = async (on: typeof onA) =>
    Object.fromEntries(
      ((await on('GET', '/api/collections/posts?limit=100')).items as Array<{ syncId: string; title: string }>).map((e) => [
        e.syncId,
        e.title,
      ]),
    );

  it('B makes a sync key from its sync page; A adds B with it, pushes, and resolves two conflicts choosing a side for each', async function () {
    // On B: the shortcut makes a key with exactly what sync needs, shown once with a copy button.
    const bContext = await browser.newContext();
    await signInWithApi(bContext, b.url, 'sync-admin@example.com', PASSWORD);
    const bPage = await bContext.newPage();
    await bPage.goto(`${b.url}/admin/data/sync`);
    await bPage.getByRole('button', { name: 'Create a key for content sync' }).click();
    const shown = bPage.getByTestId('sync-key');
    await shown.waitFor();
    expect(await shown.innerText()).to.contain('not shown again');
    const key = await shown.getByLabel('Key for content sync').inputValue();
    expect(key).to.match(/^sck_/);
    const keys = (await (await bContext.request.get(`${b.url}/api/api-keys`)).json()).data;
    expect(keys.map((k: { permissions: string[] }) => k.permissions)).to.deep.equal([['content:read', 'content:sync']]);
    expect(await seriousViolations(bPage), 'axe on the sync page with the new key').to.deep.equal([]);
    await shot(bPage, 'content-sync-key');

    // On A: add B as a channel with that key, then push a new entry.
    const page = browser.page;
    await signInWithApi(browser.context, a.url, 'ada@example.com', PASSWORD);
    await page.goto(`${a.url}/admin/data/sync`);
    await addSyncChannel(page, 'instance B', b.url, key);
    await page.getByTestId('sync-channels').getByText('instance B').waitFor();

    const keep = await onA('POST', '/api/collections/posts', { title: 'Opening hours', body: 'Mon-Fri', status: 'published' });
    const take = await onA('POST', '/api/collections/posts', { title: 'Prices', body: '10 EUR', status: 'published' });
    await showSyncPlan(page);
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await page.locator('[data-testid="apply-outcome"][data-outcome="success"]').waitFor();
    expect(await titles(onB)).to.deep.equal({ [keep.syncId]: 'Opening hours', [take.syncId]: 'Prices' });

    // The same two entries changed on both instances.
    const bIds = Object.fromEntries(
      ((await onB('GET', '/api/collections/posts?limit=100')).items as Array<{ syncId: string; _id: string }>).map((e) => [
        e.syncId,
        e._id,
      ]),
    );
    await onA('PATCH', `/api/collections/posts/${keep._id}`, { title: 'Opening hours (A)' });
    await onB('PATCH', `/api/collections/posts/${bIds[keep.syncId]}`, { title: 'Opening hours (B)', body: 'Mon-Sat' });
    await onA('PATCH', `/api/collections/posts/${take._id}`, { title: 'Prices (A)' });
    await onB('PATCH', `/api/collections/posts/${bIds[take.syncId]}`, { title: 'Prices (B)' });

    await showSyncPlan(page);
    const conflicts = page.getByTestId('sync-conflicts');
    await conflicts.getByRole('heading', { name: 'Changed on both instances (2)' }).waitFor();
    const keepRow = conflicts.locator(`[data-item="posts/${keep.syncId}"]`);
    const takeRow = conflicts.locator(`[data-item="posts/${take.syncId}"]`);
    // Both versions: this instance's and the other's title, and the fields that differ.
    const keepText = await keepRow.innerText();
    expect(keepText).to.contain('Opening hours (A)').and.contain('Opening hours (B)').and.contain('title, body');
    expect(await takeRow.innerText())
      .to.contain('Prices (A)')
      .and.contain('Prices (B)');
    expect(keepText).to.not.match(/[0-9a-f]{8}-[0-9a-f]{4}-/, 'no sync ids shown');
    // The plan review lists the other warnings only: no conflict named by its sync id.
    expect(await page.getByTestId('plan-review').innerText())
      .to.not.contain(keep.syncId)
      .and.not.contain(take.syncId);
    expect(await seriousViolations(page), 'axe on the conflicts').to.deep.equal([]);

    // "For all" fills every row; then one row is changed back by keyboard-reachable radios.
    await conflicts.getByRole('button', { name: "Take the other's version for all" }).click();
    expect(await keepRow.getByLabel("Take the other's").isChecked()).to.equal(true);
    expect(await takeRow.getByLabel("Take the other's").isChecked()).to.equal(true);
    await keepRow.getByLabel("Keep this instance's").check();
    await shot(page, 'content-sync-conflicts');
    await conflicts.getByRole('button', { name: 'Use these choices' }).click();
    await page.getByTestId('sync-follow-up-note').getByText("the other instance's version of 1 entry is brought here").waitFor();
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await page.getByTestId('sync-follow-up').getByText("Took the other instance's version of 1 entry.").waitFor();
    await shot(page, 'content-sync-resolved');

    // Both instances hold the chosen versions: A's for the first entry, B's (with its body) for the second.
    const expected = { [keep.syncId]: 'Opening hours (A)', [take.syncId]: 'Prices (B)' };
    expect(await titles(onA)).to.deep.equal(expected);
    expect(await titles(onB)).to.deep.equal(expected);
    expect((await onB('GET', `/api/collections/posts/${bIds[keep.syncId]}`)).body).to.equal('Mon-Fri');

    // Nothing left to resolve: a new comparison shows no conflict.
    await showSyncPlan(page);
    expect(await page.getByTestId('sync-conflicts').count()).to.equal(0);
  });

  it('a key the other instance refuses, and an address where nothing answers, are said in words on the sync page', async function () {
    const page = browser.page;
    await signInWithApi(browser.context, a.url, 'ada@example.com', PASSWORD);
    await page.goto(`${a.url}/admin/data/sync`);
    // A real key of B without content:sync.
    const { key } = await b.apiKey(['content:read'], 'read only');
    const form = await addSyncChannel(page, 'wrong key', b.url, key);
    const alert = form.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).to.contain('The other instance refused the key').and.contain('lacks the content:sync');
    expect(text).to.contain('Create a key for content sync');
    expect(text).to.not.contain('The server could not do this').and.not.contain('sck_');

    // An address where nothing answers (a port just closed): said as such.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await addSyncChannel(page, 'nobody there', `http://127.0.0.1:${port}`, key);
    await form.getByRole('alert').getByText('Could not reach the other instance.').waitFor();
    expect(await form.getByRole('alert').getAttribute('data-code')).to.equal('SYNC_REMOTE_UNREACHABLE');
    expect(await form.getByRole('alert').innerText()).to.not.contain('The server could not do this');
  });
});
