import { expect } from 'chai';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Revisions per locale (docs/features/localisation.md): a write in a locale records a revision naming it (the entry as
// answered there); GET .../revisions?locale= lists one locale's.
const NOTES = {
  name: 'notes',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'summary', type: 'text', localized: true },
    { name: 'price', type: 'number' },
  ],
};
type Revision = { version: number; action: string; locale: string; data: Record<string, any> };

for (const variant of DB_VARIANTS) {
  describe(`content: revisions per locale (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const revisions = async (id: string, query = ''): Promise<Revision[]> =>
      dataOf(await as(t, 'editor').get(`/api/collections/notes/${id}/revisions${query}`));

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await createCollections(t, NOTES);
    });

    it('a write in a locale records a revision naming it, holding the entry as answered there', async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/notes', { title: 'Hello', price: 1 }), 201);
      const path = `/api/collections/notes/${made._id}`;
      await dataOf(await as(t, 'editor').patch(`${path}?locale=de`, { title: 'Hallo' }));
      await dataOf(await as(t, 'editor').patch(path, { price: 2 }));
      await dataOf(await as(t, 'editor').patch(`${path}/status?locale=de`, { status: 'published' }));
      const all = await revisions(made._id);
      expect(all.map((r) => [r.version, r.action, r.locale])).to.deep.equal([
        [4, 'status', 'de'],
        [3, 'update', 'en'],
        [2, 'update', 'de'],
        [1, 'create', 'en'],
      ]);
      expect(all[2]!.data).to.include({ title: 'Hallo', price: 1, status: 'draft', _locale: 'de' });
      expect(all[0]!.data).to.include({ title: 'Hallo', price: 2, status: 'published', _locale: 'de' });
      expect(all[1]!.data).to.include({ title: 'Hello', price: 2, status: 'draft' });
      expect((await revisions(made._id, '?locale=de')).map((r) => r.version)).to.deep.equal([4, 2]);
      expect((await revisions(made._id, '?locale=en')).map((r) => r.version)).to.deep.equal([3, 1]);
      expect((await revisions(made._id, '?locale=*')).map((r) => r.version)).to.deep.equal([4, 3, 2, 1]);
      const sdk = await createLocalClient(t.kernel).entries('notes').revisions(made._id, { locale: 'de' });
      expect(sdk.map((r) => r.version)).to.deep.equal([4, 2]);
    });

    it('creating in a locale records its first revision in that locale; a bad locale is 400; readers are 403', async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/notes?locale=de', { title: 'Neu' }), 201);
      const all = await revisions(made._id);
      expect(all.map((r) => [r.version, r.action, r.locale, r.data.title])).to.deep.equal([[1, 'create', 'de', 'Neu']]);
      expect(await revisions(made._id, '?locale=en')).to.deep.equal([]);
      const failure = await failureOf(await as(t, 'editor').get(`/api/collections/notes/${made._id}/revisions?locale=zz`), 400);
      expect(failure.error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await as(t, 'viewer').get(`/api/collections/notes/${made._id}/revisions?locale=de`), 403)).error).to.equal(
        'FORBIDDEN',
      );
    });

    it("restoring a locale's revision writes that locale's version (its fallbacks fall back again); the row's, the row", async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/notes', { title: 'One', summary: 'Short', price: 1 }), 201);
      const path = `/api/collections/notes/${made._id}`;
      await dataOf(await as(t, 'editor').patch(`${path}?locale=de`, { title: 'Eins' }));
      await dataOf(await as(t, 'editor').patch(`${path}?locale=de`, { title: 'Zwei', summary: 'Kurz' }));
      await dataOf(await as(t, 'editor').patch(path, { title: 'Two', price: 2 }));
      const restored = await dataOf(await as(t, 'editor').post(`${path}/revisions/2/restore`));
      expect(restored).to.include({ _locale: 'de', title: 'Eins', summary: 'Short', price: 2, version: 5 });
      expect(restored._fallbackFields).to.deep.equal(['summary']);
      expect(await dataOf(await as(t, 'editor').get(path))).to.include({ title: 'Two', summary: 'Short', price: 2 });
      const [latest] = await revisions(made._id);
      expect(latest).to.include({ version: 5, locale: 'de' });
      const row = await dataOf(await as(t, 'editor').post(`${path}/revisions/1/restore`));
      expect(row).to.include({ _locale: 'en', title: 'One', price: 1, version: 6 });
      expect((await dataOf(await as(t, 'editor').get(`${path}?locale=de`))).title).to.equal('Eins');
      const sdk = await createLocalClient(t.kernel).entries('notes').restoreRevision(made._id, 3);
      expect(sdk).to.include({ _locale: 'de', title: 'Zwei', summary: 'Kurz' });
      expect((await failureOf(await as(t, 'editor').post(`${path}/revisions/99/restore`), 404)).error).to.equal('NOT_FOUND');
      const unknown = '/api/collections/notes/00000000-0000-4000-8000-000000000000/revisions/1/restore';
      expect((await failureOf(await as(t, 'editor').post(unknown), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await as(t, 'viewer').post(`${path}/revisions/1/restore`), 403)).error).to.equal('FORBIDDEN');
      // Another tenant's administrator neither restores nor lists them.
      expect((await failureOf(await as(t, 'admin', 'acme').post(`${path}/revisions/2/restore`), 404)).error).to.equal('ENTRY_NOT_FOUND');
      expect((await failureOf(await as(t, 'admin', 'acme').get(`${path}/revisions?locale=de`), 404)).error).to.equal('ENTRY_NOT_FOUND');
    });
  });
}

// Scheduled publishing per locale: PUT .../schedule?locale= {publishAt} publishes that locale's version when due.
for (const variant of DB_VARIANTS) {
  describe(`content: scheduled publishing per locale (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { content: { scheduleIntervalMs: 100 } } } },
      },
      { variant },
    );
    const schedule = (id: string, query: string, publishAt: string | null) =>
      t.request(`/api/collections/notes/${id}/schedule${query}`, { method: 'PUT', identity: 'editor', json: { publishAt } });
    const statusIn = async (id: string, query = '') =>
      (await dataOf(await as(t, 'editor').get(`/api/collections/notes/${id}${query}`))).status;
    /** Polls (bounded) until the entry has the status in the locale. */
    async function statusBecomes(id: string, query: string, status: string): Promise<void> {
      for (let i = 0; i < 100; i++) {
        if ((await statusIn(id, query)) === status) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect.fail(`entry ${id} did not become ${status} (${query}) within 5 s`);
    }

    before(async function () {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      await createCollections(t, NOTES);
    });

    it("a schedule naming a locale publishes that locale's version when due; each locale has its own", async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/notes', { title: 'Hello' }), 201);
      await dataOf(await as(t, 'editor').patch(`/api/collections/notes/${made._id}?locale=de`, { title: 'Hallo' }));
      const at = new Date(Date.now() + 800).toISOString();
      expect(await dataOf(await schedule(made._id, '?locale=de', at))).to.deep.equal({ publishAt: at, unpublishAt: null });
      expect(await dataOf(await as(t, 'editor').get(`/api/collections/notes/${made._id}/schedule?locale=de`))).to.deep.equal({
        publishAt: at,
        unpublishAt: null,
      });
      expect(await dataOf(await as(t, 'editor').get(`/api/collections/notes/${made._id}/schedule`))).to.deep.equal({
        publishAt: null,
        unpublishAt: null,
      });
      expect(await statusIn(made._id, '?locale=de')).to.equal('draft');
      await statusBecomes(made._id, '?locale=de', 'published');
      // The default's version is not touched: it had no schedule.
      expect(await statusIn(made._id)).to.equal('draft');
      expect(await dataOf(await as(t, 'editor').get(`/api/collections/notes/${made._id}/schedule?locale=de`))).to.deep.equal({
        publishAt: null,
        unpublishAt: null,
      });
      const [latest] = await dataOf(await as(t, 'editor').get(`/api/collections/notes/${made._id}/revisions`));
      expect(latest).to.include({ action: 'status', locale: 'de' });
      // The default locale's own schedule publishes the row.
      await dataOf(await schedule(made._id, '', new Date(Date.now() + 300).toISOString()));
      await statusBecomes(made._id, '', 'published');
    });

    it('refuses a locale whose version is published already, an unknown locale and *', async function () {
      const made = await dataOf(await as(t, 'editor').post('/api/collections/notes?locale=de', { title: 'Neu', status: 'published' }), 201);
      const soon = new Date(Date.now() + 60_000).toISOString();
      expect((await schedule(made._id, '?locale=de', soon)).status).to.equal(400);
      // The default's version is a draft: it may be scheduled.
      expect(await dataOf(await schedule(made._id, '?locale=en', soon))).to.deep.equal({ publishAt: soon, unpublishAt: null });
      const acme = await t.request(`/api/collections/notes/${made._id}/schedule?locale=en`, {
        method: 'PUT',
        identity: 'admin',
        headers: { 'x-test-tenant': 'acme' },
        json: { publishAt: soon },
      });
      expect(acme.status, "another tenant's administrator").to.equal(404);
      for (const query of ['?locale=zz', '?locale=*']) {
        const res = await schedule(made._id, query, soon);
        expect(res.status, query).to.equal(400);
        expect(((await res.json()) as { error: string }).error).to.equal('VALIDATION_ERROR');
      }
    });
  });
}
