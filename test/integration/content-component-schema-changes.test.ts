import { expect } from 'chai';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, item 6, for components: their values live inside entries as JSON (component and blocks fields,
// nested), so POST /api/components/:name/schema/plan walks every entry holding the component and counts per
// field what a change keeps, converts, drops or makes null; a PATCH that would lose values answers 409
// SCHEMA_CHANGE_LOSES_DATA until the plan's planHash comes back, and then rewrites the stored JSON.
type Entry = Record<string, any>;

const LINK = [
  { name: 'label', type: 'text' },
  { name: 'url', type: 'text' },
  { name: 'clicks', type: 'text' },
];

for (const variant of DB_VARIANTS) {
  describe(`content: component changes through a plan (${variant.name})`, function () {
    this.timeout(60000);
    const ids: Record<string, string> = {};
    const t = useIdentityKernel(
      variant,
      {
        seed: async () => {
          const admin = as(t, 'admin');
          for (const c of [
            { name: 'link', fields: LINK },
            { name: 'hero', fields: [{ name: 'heading', type: 'text' }] },
            { name: 'quote', fields: [{ name: 'text', type: 'text' }] },
            {
              name: 'card',
              fields: [
                { name: 'title', type: 'text' },
                { name: 'link', type: 'component', component: 'link' },
              ],
            },
            {
              name: 'section',
              fields: [
                { name: 'name', type: 'text' },
                { name: 'items', type: 'blocks', components: ['hero', 'quote'] },
              ],
            },
          ])
            await dataOf(await admin.post('/api/components', c), 201);
          await createCollections(t, {
            name: 'pages',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'cta', type: 'component', component: 'link' },
              { name: 'card', type: 'component', component: 'card' },
              { name: 'body', type: 'blocks', components: ['link', 'hero'] },
              { name: 'section', type: 'component', component: 'section' },
            ],
          });
          const made = async (body: Entry, tenant?: string) =>
            (await dataOf(await as(t, 'editor', tenant).post('/api/collections/pages', body), 201))._id as string;
          ids.a = await made({
            title: 'A',
            cta: { label: 'A', url: 'https://a', clicks: '12' },
            card: { title: 'C', link: { label: 'B', url: 'https://b', clicks: 'lots' } },
            body: [
              { __component: 'link', label: 'L1', clicks: '3' },
              { __component: 'hero', heading: 'H' },
            ],
            section: {
              name: 'S',
              items: [
                { __component: 'quote', text: 'q1' },
                { __component: 'hero', heading: 'H2' },
                { __component: 'quote', text: 'q2' },
              ],
            },
          });
          ids.b = await made({ title: 'B', cta: { label: 'Z', clicks: '7.5' } }, 'other');
          ids.c = await made({ title: 'C' });
        },
      },
      { config: { multiTenant: true } },
    );
    const plan = (name: string, body: Entry) => as(t, 'admin').post(`/api/components/${name}/schema/plan`, body);
    const patch = (name: string, body: Entry) => as(t, 'admin').patch(`/api/components/${name}`, body);
    const page = async (id: string, tenant?: string) => dataOf(await as(t, 'editor', tenant).get(`/api/collections/pages/${id}`));
    const newLink = [
      { name: 'label', type: 'text' },
      { name: 'clicks', type: 'number' },
      { name: 'note', type: 'text' },
    ];

    it('plans over every entry holding the component (directly, nested, as a block), refuses without the planHash, rewrites with it', async function () {
      const p = await dataOf(await plan('link', { fields: newLink }));
      expect(p).to.include({ component: 'link', version: 1, entries: 2, instances: 4, losesData: true });
      expect(p.collections).to.deep.equal(['pages']);
      expect(p.fields).to.deep.equal([
        { field: 'label', change: 'kept', values: 4, lost: 0 },
        { field: 'clicks', change: 'converted', from: 'text', to: 'number', values: 4, lost: 1, lostExamples: ['lots'] },
        { field: 'note', change: 'added', values: 0, lost: 0 },
        { field: 'url', change: 'dropped', values: 2, lost: 2 },
      ]);
      // The list is cached before the change; it must not answer the old values after it.
      const listed = async () => (await dataOf(await as(t, 'editor').get('/api/collections/pages?sort=title'))).items as Entry[];
      expect((await listed())[0].cta.url).to.equal('https://a');

      const refused = await failureOf(await patch('link', { fields: newLink }), 409);
      expect(refused.error).to.equal('SCHEMA_CHANGE_LOSES_DATA');
      expect(refused.message).to.include("2 value(s) of 'url' (dropped)");
      expect((refused as Entry).plan.planHash).to.equal(p.planHash);
      expect((await page(ids.a)).cta.url).to.equal('https://a');
      expect((await dataOf(await as(t, 'admin').get('/api/components/link'))).fields).to.deep.equal(LINK);
      expect((await failureOf(await patch('link', { fields: newLink, planHash: 'f'.repeat(64) }), 409)).error).to.equal(
        'SCHEMA_CHANGE_LOSES_DATA',
      );

      const [versionA, versionC] = [(await page(ids.a)).version, (await page(ids.c)).version];
      const done = await dataOf(await patch('link', { fields: newLink, planHash: p.planHash }));
      expect(done.fields).to.deep.equal(newLink);
      const a = await page(ids.a);
      expect(a.cta).to.deep.equal({ label: 'A', clicks: 12 });
      expect(a.card).to.deep.equal({ title: 'C', link: { label: 'B', clicks: null } });
      expect(a.body).to.deep.equal([
        { __component: 'link', label: 'L1', clicks: 3 },
        { __component: 'hero', heading: 'H' },
      ]);
      expect((await page(ids.b, 'other')).cta).to.deep.equal({ label: 'Z', clicks: 7.5 });
      // A rewritten entry is a new version; one that holds no instance keeps its own.
      expect(a.version).to.equal(versionA + 1);
      expect((await page(ids.c)).version).to.equal(versionC);
      expect((await listed())[0].cta).to.deep.equal({ label: 'A', clicks: 12 });
      // The rewritten entry takes a write under the new list (no stale keys refused).
      await dataOf(await as(t, 'editor').patch(`/api/collections/pages/${ids.a}`, { title: 'A2' }));
      // A new plan of the same list finds nothing left to lose.
      const again = await dataOf(await plan('link', { fields: newLink }));
      expect(again.losesData).to.equal(false);
      expect(again.version).to.equal(2);
    });

    it('counts and drops the blocks of a type a blocks field of the component no longer allows', async function () {
      const fields = [
        { name: 'name', type: 'text' },
        { name: 'items', type: 'blocks', components: ['hero'] },
      ];
      const p = await dataOf(await plan('section', { fields }));
      expect(p).to.include({ entries: 1, instances: 1, losesData: true });
      expect(p.fields.find((f: Entry) => f.field === 'items')).to.deep.equal({
        field: 'items',
        change: 'kept',
        values: 1,
        lost: 2,
        droppedBlocks: [{ component: 'quote', blocks: 2 }],
      });
      expect((await failureOf(await patch('section', { fields }), 409)).error).to.equal('SCHEMA_CHANGE_LOSES_DATA');
      expect((await page(ids.a)).section.items).to.have.length(3);
      await dataOf(await patch('section', { fields, planHash: p.planHash }));
      expect((await page(ids.a)).section).to.deep.equal({ name: 'S', items: [{ __component: 'hero', heading: 'H2' }] });
    });

    it('a lossless change (a new optional field, a label, an empty field dropped, a lossless conversion) needs no plan', async function () {
      const withTarget = [...newLink, { name: 'target', type: 'select', options: ['_blank'] }];
      expect((await dataOf(await plan('link', { fields: withTarget }))).losesData).to.equal(false);
      await dataOf(await patch('link', { fields: withTarget, label: 'Link' }));
      expect(await dataOf(await as(t, 'admin').get('/api/components/link'))).to.deep.equal({
        name: 'link',
        label: 'Link',
        fields: withTarget,
      });
      const noNote = withTarget.filter((f) => f.name !== 'note');
      const empty = await dataOf(await plan('link', { fields: noNote }));
      expect(empty.fields.find((f: Entry) => f.field === 'note')).to.deep.equal({ field: 'note', change: 'dropped', values: 0, lost: 0 });
      await dataOf(await patch('link', { fields: noNote }));
      const markdown = [{ name: 'text', type: 'markdown' }];
      const p = await dataOf(await plan('quote', { fields: markdown }));
      expect(p.fields).to.deep.equal([{ field: 'text', change: 'converted', from: 'text', to: 'markdown', values: 0, lost: 0 }]);
      await dataOf(await patch('quote', { fields: markdown }));
      expect((await page(ids.a)).cta).to.deep.equal({ label: 'A', clicks: 12 });
    });

    it("another tenant's admin can neither plan nor change the component; bad input is a 4xx with a stable code", async function () {
      const other = as(t, 'admin', 'other');
      expect((await failureOf(await other.post('/api/components/link/schema/plan', { fields: newLink }), 403)).error).to.equal('FORBIDDEN');
      expect((await failureOf(await other.patch('/api/components/link', { fields: newLink }), 403)).error).to.equal('FORBIDDEN');
      expect((await failureOf(await as(t, 'editor').post('/api/components/link/schema/plan', { fields: newLink }), 403)).error).to.equal(
        'FORBIDDEN',
      );
      expect((await failureOf(await plan('nope', { fields: newLink }), 404)).error).to.equal('NOT_FOUND');
      expect((await failureOf(await plan('link', { fields: 'x' }), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await plan('link', { fields: newLink, extra: 1 }), 400)).error).to.equal('VALIDATION_ERROR');
      const toJson = LINK.map((f) => (f.name === 'label' ? { ...f, type: 'json' } : f));
      const refused = await failureOf(await plan('link', { fields: toJson }), 400);
      expect(refused.error).to.equal('VALIDATION_ERROR');
      expect(refused.message).to.include("'label' cannot change from text to json");
      expect((await failureOf(await patch('link', { fields: toJson }), 400)).error).to.equal('VALIDATION_ERROR');
      // A component in use is still not deleted.
      expect((await failureOf(await as(t, 'admin').delete('/api/components/link'), 409)).error).to.equal('CONFLICT');
      expect((await page(ids.a)).cta.label).to.equal('A');
    });

    it("a collection's blocks field that stops allowing a component counts and drops those blocks through its plan", async function () {
      const admin = as(t, 'admin');
      const fields = ((await dataOf(await admin.get('/api/collections/pages/schema'))).fields as Entry[]).map((f) =>
        f.name === 'body' ? { ...f, components: ['link'] } : f,
      );
      const p = await dataOf(await admin.post('/api/collections/pages/schema/plan', { fields }));
      expect(p.losesData).to.equal(true);
      expect(p.fields.find((f: Entry) => f.field === 'body')).to.deep.equal({
        field: 'body',
        change: 'kept',
        values: 1,
        lost: 1,
        droppedBlocks: [{ component: 'hero', blocks: 1 }],
      });
      expect((await failureOf(await admin.patch('/api/collections/pages/schema', { fields }), 409)).error).to.equal(
        'SCHEMA_CHANGE_LOSES_DATA',
      );
      expect((await page(ids.a)).body).to.have.length(2);
      await dataOf(await admin.patch('/api/collections/pages/schema', { fields, planHash: p.planHash }));
      expect((await page(ids.a)).body).to.deep.equal([{ __component: 'link', label: 'L1', clicks: 3 }]);
    });

    it('an entry written while the rewrite runs keeps the write and ends in the new shape (the rewrite reads it again)', async function () {
      const admin = as(t, 'admin');
      await dataOf(
        await admin.post('/api/components', {
          name: 'badge',
          fields: [
            { name: 'text', type: 'text' },
            { name: 'size', type: 'text' },
          ],
        }),
        201,
      );
      await createCollections(t, { name: 'badges', fields: [{ name: 'badge', type: 'component', component: 'badge' }] });
      const madeIds: string[] = [];
      for (let n = 0; n < 3; n++) {
        const entries = Array.from({ length: 100 }, (_, i) => ({ badge: { text: `b${n}-${i}`, size: String(i) } }));
        const made = await dataOf(await as(t, 'editor').post('/api/collections/badges/batch', { entries }), 201);
        madeIds.push(...(made.items as Entry[]).map((e) => e._id as string));
      }
      expect(madeIds).to.have.length(300);
      const fields = [{ name: 'text', type: 'text' }];
      const p = await dataOf(await as(t, 'admin').post('/api/components/badge/schema/plan', { fields }));
      expect(p).to.include({ entries: 300, losesData: true });
      // Writes to the same entries while the rewrite walks them, each changing `text`. Until the schema changes a write
      // keeps `size` as it was, so the plan's counts (and its hash) stay what the admin confirmed; once the new shape
      // refuses `size`, the writer drops it and its writes race the rewrite under the new shape.
      const sizes = new Map(madeIds.map((id, i) => [id, String(i % 100)]));
      const last = new Map<string, string>();
      let stop = false;
      let newShape = false;
      const writer = (async () => {
        for (let round = 0; !stop && round < 20; round++)
          for (const id of madeIds.slice(0, 100)) {
            const text = `w${round}-${id.slice(0, 4)}`;
            const badge = newShape ? { text } : { text, size: sizes.get(id) };
            const res = await as(t, 'editor').patch(`/api/collections/badges/${id}`, { badge });
            if (res.status === 200) last.set(id, text);
            else if (res.status === 400 && !newShape) newShape = true;
            if (stop) break;
          }
      })();
      await dataOf(await as(t, 'admin').patch('/api/components/badge', { fields, planHash: p.planHash }));
      stop = true;
      await writer;
      expect(last.size).to.be.greaterThan(0);
      const all = (await dataOf(await as(t, 'editor').get('/api/collections/badges?limit=100&page=1'))).items as Entry[];
      const rest = [2, 3].map((n) => as(t, 'editor').get(`/api/collections/badges?limit=100&page=${n}`));
      for (const r of await Promise.all(rest)) all.push(...((await dataOf(r)).items as Entry[]));
      expect(all).to.have.length(300);
      for (const e of all) {
        expect(Object.keys(e.badge), e._id).to.deep.equal(['text']);
        if (last.has(e._id)) expect(e.badge.text).to.equal(last.get(e._id));
      }
    });
  });
}
