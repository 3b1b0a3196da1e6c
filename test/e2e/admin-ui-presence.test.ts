// Issue 37, item 7 ("who is editing"): two people open the same entry; each sees the other, the second gets a
// read-only form until they take over, and then the first turns read-only; closing the page frees the entry.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ADA, PASSWORD, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';
import { signInCookie } from '../helpers/users.js';

const BEA = { email: 'bea@example.com', password: PASSWORD, role: 'editor', username: 'Bea' };

for (const variant of DB_VARIANTS) {
  describe(`admin UI: who is editing (${variant.name})`, function () {
    this.timeout(120000);
    let id = '';
    const b = useBrowser();
    // A short time to live: heartbeats every 2 s, so the test sees a take-over within seconds.
    const t = useUiKernel(() => ({ db: variant.name, config: { plugins: { options: { presence: { ttlMs: 4000 } } } } as never }), {
      variant,
      users: [ADA, BEA],
      seed: async () => {
        const cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
        const post = async (path: string, json: unknown) => {
          const res = await t.request(path, { method: 'POST', headers: { cookie }, json });
          expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
          return (await res.json()).data;
        };
        await post('/api/collections', { name: 'notes', singular: 'note', fields: [{ name: 'title', type: 'text', required: true }] });
        id = (await post('/api/collections/notes', { title: 'Shared note' }))._id;
      },
    });

    async function open(page: Page, email: string): Promise<void> {
      await signInWithApi(page.context(), t.url, email, PASSWORD);
      await page.goto(`${t.url}/admin/content/notes/${id}`);
      await page.getByRole('heading', { name: 'Shared note', level: 1 }).waitFor();
    }
    const title = (page: Page) => page.getByRole('textbox', { name: /^Title/ });

    it('the second person sees who edits and a read-only form, takes over, and the first turns read-only', async function () {
      const ada = b.page;
      await open(ada, ADA.email);
      await until(async () => (await title(ada).isEditable()) || undefined, 'Ada can edit');
      const bea = await (await b.newContext({ locale: 'en-GB' })).newPage();
      await open(bea, BEA.email);
      const beaPresence = bea.getByTestId('presence');
      await beaPresence.waitFor();
      expect(await beaPresence.innerText()).to.contain('Ada is editing this entry, so you see it read-only.');
      expect(await title(bea).isDisabled()).to.equal(true);
      expect(await bea.getByRole('button', { name: 'Save draft' }).count()).to.equal(0);
      // Ada sees Bea at her next heartbeat, and still edits.
      await until(async () => (await ada.getByTestId('presence').count()) > 0 || undefined, 'Ada sees Bea');
      expect(await ada.getByTestId('presence').innerText()).to.contain('Bea');
      expect(await title(ada).isEditable()).to.equal(true);

      // Bea takes over: she edits and saves; Ada turns read-only, told who took over.
      await bea.getByRole('button', { name: 'Take over' }).click();
      await until(async () => (await title(bea).isEditable()) || undefined, 'Bea can edit');
      await title(bea).fill('Shared note, by Bea');
      await bea.getByRole('button', { name: 'Save draft' }).click();
      await bea.getByText('Saved').first().waitFor();
      await until(async () => (await title(ada).isDisabled()) || undefined, 'Ada is read-only after the take-over');
      expect(await ada.getByTestId('presence').innerText()).to.contain('Bea is editing this entry');

      // Bea closes the page: Ada edits again at once (the page's leave), not only after the time to live.
      await bea.close();
      await until(async () => (await title(ada).isEditable()) || undefined, 'Ada edits again after Bea left');
      await until(async () => (await ada.getByTestId('presence').count()) === 0 || undefined, 'nobody else is shown');
    });
  });
}
