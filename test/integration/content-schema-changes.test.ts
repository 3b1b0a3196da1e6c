import { expect } from 'chai';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, item 6: schema changes never lose data silently. POST .../schema/plan says per field what happens to
// the stored values (added, kept, converted with how many are lost, dropped); a PATCH that would lose values
// answers 409 SCHEMA_CHANGE_LOSES_DATA until the plan's planHash comes back; type changes that can convert are
// allowed and convert the stored values.
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: schema changes through a plan (${variant.name})`, function () {
    this.timeout(60000);
    const ids: Record<string, string> = {};
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        await createCollections(
          t,
          { name: 'labels', fields: [{ name: 'name', type: 'text' }] },
          {
            name: 'items',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'price', type: 'text', indexed: true },
              { name: 'kind', type: 'text' },
              { name: 'label', type: 'relation', collection: 'labels' },
              { name: 'size', type: 'select', options: ['s', 'm'] },
              { name: 'stock', type: 'number' },
              { name: 'notes', type: 'richtext' },
              { name: 'unused', type: 'text' },
            ],
          },
        );
        ids.label = (await dataOf(await admin.post('/api/collections/labels', { name: 'red' }), 201))._id;
        const made = async (body: Entry, tenant?: string) =>
          (await dataOf(await as(t, 'editor', tenant).post('/api/collections/items', body), 201))._id as string;
        ids.a = await made({ title: 'A', price: '12', kind: 'a', label: ids.label, size: 's', stock: 3, notes: '<p>x</p>' });
        ids.b = await made({ title: 'B', price: 'call us', kind: 'b', size: 'm', stock: 0 });
        ids.c = await made({ title: 'C', price: '7.5', kind: 'a' }, 'other');
      },
    });
    const schema = async () => (await dataOf(await as(t, 'admin').get('/api/collections/items/schema'))).fields as Entry[];
    const withField = (fields: Entry[], name: string, change: Entry) => fields.map((f) => (f.name === name ? { ...f, ...change } : f));
    const plan = async (fields: Entry[]) => dataOf(await as(t, 'admin').post('/api/collections/items/schema/plan', { fields }));
    const patch = (body: Entry) => as(t, 'admin').patch('/api/collections/items/schema', body);
    const item = async (id: string, tenant?: string) => dataOf(await as(t, 'editor', tenant).get(`/api/collections/items/${id}`));

    it('plans a conversion that loses values, refuses it without the planHash, converts with it (every tenant, index kept)', async function () {
      const fields = withField(await schema(), 'price', { type: 'number' });
      const p = await plan(fields);
      expect(p).to.include({ collection: 'items', entries: 3, losesData: true });
      expect(p.fields.find((f: Entry) => f.field === 'price')).to.deep.equal({
        field: 'price',
        change: 'converted',
        from: 'text',
        to: 'number',
        values: 3,
        lost: 1,
        lostExamples: ['call us'],
      });
      expect(p.fields.find((f: Entry) => f.field === 'title')).to.deep.equal({ field: 'title', change: 'kept', values: 3, lost: 0 });
      // Nothing changed by planning.
      expect((await item(ids.a)).price).to.equal('12');
      const refused = await failureOf(await patch({ fields }), 409);
      expect(refused.error).to.equal('SCHEMA_CHANGE_LOSES_DATA');
      expect(refused.message).to.include("1 value(s) of 'price'");
      expect((refused as Entry).plan.planHash).to.equal(p.planHash);
      expect((await item(ids.a)).price).to.equal('12');
      const done = await dataOf(await patch({ fields, planHash: p.planHash }));
      expect(done.fields.find((f: Entry) => f.name === 'price')).to.include({ type: 'number', indexed: true });
      expect((await item(ids.a)).price).to.equal(12);
      expect((await item(ids.b)).price).to.equal(null);
      expect((await item(ids.c, 'other')).price).to.equal(7.5);
      // The converted column sorts and filters as a number.
      const cheap = await dataOf(await as(t, 'editor').get(`/api/collections/items?filter=${encodeURIComponent('{"price":{"gt":10}}')}`));
      expect(cheap.items.map((e: Entry) => e.title)).to.deep.equal(['A']);
    });

    it('converts without confirmation when nothing is lost: one-relation to many, select to multiple, number to text', async function () {
      let fields = withField(await schema(), 'label', { cardinality: 'many' });
      fields = withField(fields, 'size', { multiple: true });
      fields = withField(fields, 'stock', { type: 'text' });
      const p = await plan(fields);
      expect(p.losesData).to.equal(false);
      expect(
        p.fields.filter((f: Entry) => f.change === 'converted').map((f: Entry) => `${f.field}:${f.from}->${f.to}:${f.lost}`),
      ).to.deep.equal(['label:relation->relation (many):0', 'size:select->select (multiple):0', 'stock:number->text:0']);
      await dataOf(await patch({ fields }));
      const a = await item(ids.a);
      expect(a).to.include({ stock: '3' });
      expect(a.label).to.deep.equal([ids.label]);
      expect(a.size).to.deep.equal(['s']);
      expect((await item(ids.b)).stock).to.equal('0');
    });

    it('text to select keeps the values among the options and lists the others; dropping a field with values needs the planHash', async function () {
      const fields = withField(await schema(), 'kind', { type: 'select', options: ['a'] });
      const p = await plan(fields);
      expect(p.fields.find((f: Entry) => f.field === 'kind')).to.include({ change: 'converted', values: 3, lost: 1 });
      expect(p.fields.find((f: Entry) => f.field === 'kind').lostExamples).to.deep.equal(['b']);
      await dataOf(await patch({ fields, planHash: p.planHash }));
      expect((await item(ids.a)).kind).to.equal('a');
      expect((await item(ids.b)).kind).to.equal(null);

      // An empty field goes without confirmation; one with values does not.
      const noUnused = (await schema()).filter((f) => f.name !== 'unused');
      expect((await plan(noUnused)).losesData).to.equal(false);
      await dataOf(await patch({ fields: noUnused }));
      const noNotes = (await schema()).filter((f) => f.name !== 'notes');
      const dropPlan = await plan(noNotes);
      expect(dropPlan.fields.find((f: Entry) => f.field === 'notes')).to.deep.equal({
        field: 'notes',
        change: 'dropped',
        values: 1,
        lost: 1,
      });
      expect((await failureOf(await patch({ fields: noNotes }), 409)).error).to.equal('SCHEMA_CHANGE_LOSES_DATA');
      // A plan made before another change no longer confirms: the schema version is part of its hash.
      await dataOf(await patch({ label: 'Items' }));
      expect((await failureOf(await patch({ fields: noNotes, planHash: dropPlan.planHash }), 409)).error).to.equal(
        'SCHEMA_CHANGE_LOSES_DATA',
      );
      await dataOf(await patch({ fields: noNotes, planHash: (await plan(noNotes)).planHash }));
      expect((await item(ids.a)).notes).to.equal(undefined);
    });

    it('refuses type changes that cannot convert (400 naming the field), and bad bodies', async function () {
      const fields = withField(await schema(), 'title', { type: 'json' });
      const res = await failureOf(await patch({ fields }), 400);
      expect(res.error).to.equal('VALIDATION_ERROR');
      expect(res.message).to.include("'title' cannot change from text to json");
      expect((await failureOf(await as(t, 'admin').post('/api/collections/items/schema/plan', { fields: 'x' }), 400)).error).to.equal(
        'VALIDATION_ERROR',
      );
      expect((await as(t, 'editor').post('/api/collections/items/schema/plan', { fields })).status).to.equal(403);
    });
  });
}
