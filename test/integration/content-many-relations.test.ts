import { expect } from 'chai';
import { as, createCollections, dataOf, entryMaker, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Many-relations of API-DECISIONS "Content model v2": `cardinality: 'many'` holds an ordered array of entry
// ids, checked on write; populated it answers the targets the caller may see, in order; `min`/`max` count
// its items; filters take `has` (also on a multiple select) and relation paths that hold when any target
// matches; deleting a target drops its id (no dangling id is ever answered).
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: many-relations (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createCollections(
          t,
          { name: 'tags', fields: [{ name: 'name', type: 'text' }] },
          {
            name: 'articles',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'tags', type: 'relation', collection: 'tags', cardinality: 'many', max: 3, inverseName: 'articles' },
              { name: 'lead', type: 'relation', collection: 'tags', inverseName: 'leading' },
              { name: 'moods', type: 'select', multiple: true, options: ['calm', 'angry', '50%_off'] },
            ],
          },
        );
        const made = entryMaker(t);
        ids.red = await made('tags', { name: 'red' });
        ids.green = await made('tags', { name: 'green' });
        ids.blue = await made('tags', { name: 'blue', status: 'draft' });
        ids.one = await made('articles', { title: 'One', tags: [ids.green, ids.red], moods: ['calm'], lead: ids.red });
        ids.two = await made('articles', { title: 'Two', tags: [ids.blue], moods: ['angry', '50%_off'] });
        ids.three = await made('articles', { title: 'Three', tags: [] });
      },
    });
    /** The seeded entries' ids by name. */
    const ids: Record<string, string> = {};
    const titles = async (query: string, who: string | null = 'editor'): Promise<string[]> => {
      const res = who
        ? await as(t, who).get(`/api/collections/articles?sort=title&${query}`)
        : await t.request(`/api/collections/articles?sort=title&${query}`);
      return (await dataOf(res)).items.map((e: Entry) => e.title);
    };
    const filtered = (filter: unknown) => titles(`filter=${encodeURIComponent(JSON.stringify(filter))}`);
    const refusedFilter = async (filter: unknown, naming: string) => {
      const res = await as(t, 'editor').get(`/api/collections/articles?filter=${encodeURIComponent(JSON.stringify(filter))}`);
      const body = await failureOf(res, 400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(body.message).to.include(naming);
    };

    it('stores the ids in the order sent and answers them unpopulated', async function () {
      const one = await dataOf(await as(t, 'editor').get(`/api/collections/articles/${ids.one}`));
      expect(one.tags).to.deep.equal([ids.green, ids.red]);
      const three = await dataOf(await as(t, 'editor').get(`/api/collections/articles/${ids.three}`));
      expect(three.tags).to.deep.equal([]);
      const schema = await dataOf(await as(t, 'editor').get('/api/collections/articles/schema'));
      expect(schema.fields[1]).to.include({ name: 'tags', cardinality: 'many', collection: 'tags', max: 3, inverseName: 'articles' });
    });

    it('checks the ids on write: unknown ones, a bare id, repeats and more than max are 400 naming the place', async function () {
      const editor = as(t, 'editor');
      const post = async (tags: unknown) => failureOf(await editor.post('/api/collections/articles', { title: 'X', tags }), 400);
      const unknown = await post([ids.red, '00000000-0000-4000-8000-000000000000']);
      expect(unknown.message).to.include('body.tags.1').and.include('no entry');
      expect((await post(ids.red)).message).to.include('body.tags');
      expect((await post([ids.red, ids.red])).message).to.include('at most once');
      expect((await post([ids.red, ids.green, ids.blue, ids.one])).message).to.match(/at most 3/);
      const list = await dataOf(await as(t, 'editor').get('/api/collections/articles?sort=title'));
      expect(
        list.items.map((e: Entry) => e.title),
        'nothing written',
      ).to.deep.equal(['One', 'Three', 'Two']);
    });

    it('populates the targets in order, leaving out what the caller may not see', async function () {
      const items = (await dataOf(await as(t, 'editor').get('/api/collections/articles?sort=title&populate=tags'))).items as Entry[];
      expect(items[0]!.tags.map((x: Entry) => x.name)).to.deep.equal(['green', 'red']);
      expect(items[2]!.tags.map((x: Entry) => x.name)).to.deep.equal(['blue']); // an editor sees drafts
      const open = (name: string, on: boolean) =>
        t.request(`/api/collections/${name}/public-access`, { method: 'PUT', identity: 'admin', json: { public: on } });
      expect((await open('articles', true)).status).to.equal(200);
      try {
        const guest = async () => (await dataOf(await t.request('/api/collections/articles?sort=title&populate=tags'))).items as Entry[];
        // tags is not public: the guest gets no targets, not ids it could not follow.
        expect((await guest())[0]!.tags).to.deep.equal([]);
        expect((await open('tags', true)).status).to.equal(200);
        const seen = await guest();
        expect(seen[0]!.tags.map((x: Entry) => x.name)).to.deep.equal(['green', 'red']);
        expect(seen[1]!.tags).to.deep.equal([]); // the draft tag is left out for a guest
      } finally {
        await open('articles', false);
        await open('tags', false);
      }
      const single = await dataOf(await as(t, 'editor').get(`/api/collections/articles/${ids.one}?populate=tags`));
      expect(single.tags.map((x: Entry) => x._id)).to.deep.equal([ids.green, ids.red]);
    });

    it('filters with has on a many-relation and a multiple select, and with any-match relation paths', async function () {
      expect(await filtered({ tags: { has: ids.red } })).to.deep.equal(['One']);
      expect(await filtered({ moods: { has: 'angry' } })).to.deep.equal(['Two']);
      expect(await filtered({ moods: { has: '50%_off' } })).to.deep.equal(['Two']);
      expect(await filtered({ tags: { null: true } })).to.deep.equal(['Three']);
      expect(await filtered({ $not: { tags: { has: ids.green } } })).to.deep.equal(['Three', 'Two']);
      expect(await filtered({ 'tags.name': 'red' })).to.deep.equal(['One']);
      expect(await filtered({ 'tags.name': { in: ['blue', 'green'] } })).to.deep.equal(['One', 'Two']);
      expect(await filtered({ $or: [{ 'tags.name': 'blue' }, { moods: { has: 'calm' } }] })).to.deep.equal(['One', 'Two']);
      await refusedFilter({ moods: { has: 'happy' } }, 'moods.has');
      await refusedFilter({ tags: { has: 'not-an-id' } }, 'tags.has');
      await refusedFilter({ tags: ids.red }, 'has or null');
      await refusedFilter({ tags: { eq: ids.red } }, "unknown operator 'eq'");
      await refusedFilter({ title: { has: 'x' } }, 'title.has');
    });

    it('a guest filtering through a many-relation matches published targets only', async function () {
      const open = (name: string, on: boolean) =>
        t.request(`/api/collections/${name}/public-access`, { method: 'PUT', identity: 'admin', json: { public: on } });
      await open('articles', true);
      await open('tags', true);
      try {
        const q = `filter=${encodeURIComponent(JSON.stringify({ 'tags.name': 'blue' }))}`;
        expect(await titles(q, null)).to.deep.equal([]);
        expect(await titles(q, 'editor')).to.deep.equal(['Two']);
      } finally {
        await open('articles', false);
        await open('tags', false);
      }
    });

    it('reads the ids and the entries over GraphQL', async function () {
      const res = await as(t, 'editor').post('/api/graphql', {
        query: '{ articles(sort: "title") { items { title tags tagsEntries { name } moods } } }',
      });
      const body = await res.json();
      expect(body.errors).to.equal(undefined);
      const [one, three] = body.data.articles.items;
      expect(one.tags).to.deep.equal([ids.green, ids.red]);
      expect(one.tagsEntries.map((x: Entry) => x.name)).to.deep.equal(['green', 'red']);
      expect(three.tagsEntries).to.deep.equal([]);
    });

    it('refuses what a many-relation cannot be: indexed, unique, a changed cardinality, rules on a one-relation', async function () {
      const admin = as(t, 'admin');
      const make = (fields: unknown[]) => admin.post('/api/collections', { name: 'bad', fields });
      expect(
        (await failureOf(await make([{ name: 'x', type: 'relation', collection: 'tags', cardinality: 'many', indexed: true }]), 400))
          .message,
      ).to.include('many-relation');
      expect((await failureOf(await make([{ name: 'x', type: 'relation', collection: 'tags', max: 2 }]), 400)).message).to.include('max');
      expect((await failureOf(await make([{ name: 'x', type: 'text', cardinality: 'many' }]), 400)).message).to.include('cardinality');
      const schema = await dataOf(await admin.get('/api/collections/articles/schema'));
      const fields = schema.fields.map((f: Entry) => (f.name === 'tags' ? { ...f, cardinality: 'one', max: undefined } : f));
      expect((await failureOf(await admin.patch('/api/collections/articles/schema', { fields }), 400)).message).to.include('cardinality');
    });

    it('deleting a target drops its id from every many-relation', async function () {
      const editor = as(t, 'editor');
      const extra = (await dataOf(await editor.post('/api/collections/tags', { name: 'temporary' }), 201))._id;
      const holder = (
        await dataOf(await editor.post('/api/collections/articles', { title: 'Holder', tags: [ids.red, extra, ids.green] }), 201)
      )._id;
      expect((await editor.delete(`/api/collections/tags/${extra}`)).status).to.be.oneOf([200, 204]);
      const after = await dataOf(await editor.get(`/api/collections/articles/${holder}`));
      expect(after.tags).to.deep.equal([ids.red, ids.green]);
      // A cached list shows it too.
      const listed = (await dataOf(await editor.get('/api/collections/articles?sort=title'))).items.find((e: Entry) => e._id === holder);
      expect(listed.tags).to.deep.equal([ids.red, ids.green]);
      expect((await editor.delete(`/api/collections/articles/${holder}`)).status).to.be.oneOf([200, 204]);
    });

    it('shows inverse fields on the target: read-only lists of the entries pointing at it, populated and filtered', async function () {
      const editor = as(t, 'editor');
      const tag = async (id: string, query = '') => dataOf(await editor.get(`/api/collections/tags/${id}${query}`));
      expect((await tag(ids.red)).articles).to.deep.equal([ids.one]);
      expect((await tag(ids.red)).leading).to.deep.equal([ids.one]);
      expect((await tag(ids.green)).leading).to.deep.equal([]);
      expect((await tag(ids.blue)).articles).to.deep.equal([ids.two]);
      expect((await tag(ids.red, '?populate=articles')).articles.map((e: Entry) => e.title)).to.deep.equal(['One']);
      const names = async (filter: unknown) =>
        (await dataOf(await editor.get(`/api/collections/tags?sort=name&filter=${encodeURIComponent(JSON.stringify(filter))}`))).items.map(
          (e: Entry) => e.name,
        );
      expect(await names({ 'articles.title': 'One' })).to.deep.equal(['green', 'red']);
      expect(await names({ articles: { has: ids.two } })).to.deep.equal(['blue']);
      expect(await names({ leading: { null: true } })).to.deep.equal(['blue', 'green']);
      expect(await names({ leading: { null: false } })).to.deep.equal(['red']);
      expect(await names({ 'leading.moods': { has: 'calm' } })).to.deep.equal(['red']);
      // A list of tags is cached: a new article pointing at a tag shows in it at once.
      const before = (await dataOf(await editor.get('/api/collections/tags?sort=name'))).items;
      expect(before.find((e: Entry) => e.name === 'green').articles).to.deep.equal([ids.one]);
      const four = (await dataOf(await editor.post('/api/collections/articles', { title: 'Four', tags: [ids.green] }), 201))._id;
      const after = (await dataOf(await editor.get('/api/collections/tags?sort=name'))).items;
      expect(after.find((e: Entry) => e.name === 'green').articles).to.deep.equal([ids.one, four]);
      // A guest sees published pointing entries only (Four is a draft).
      const open = (name: string, on: boolean) =>
        t.request(`/api/collections/${name}/public-access`, { method: 'PUT', identity: 'admin', json: { public: on } });
      await open('tags', true);
      try {
        const guestGreen = (await dataOf(await t.request(`/api/collections/tags/${ids.green}`))).articles;
        expect(guestGreen).to.deep.equal([]); // articles is not public
        await open('articles', true);
        expect((await dataOf(await t.request(`/api/collections/tags/${ids.green}`))).articles).to.deep.equal([ids.one]);
      } finally {
        await open('tags', false);
        await open('articles', false);
      }
      // Never written: an inverse field in a body is not a field of the collection.
      expect((await failureOf(await editor.post('/api/collections/tags', { name: 'x', articles: [ids.one] }), 400)).message).to.include(
        'articles',
      );
      expect((await editor.delete(`/api/collections/articles/${four}`)).status).to.be.oneOf([200, 204]);
    });

    it('shows inverse fields over GraphQL (read, not written) and in the generated types', async function () {
      const res = await as(t, 'editor').post('/api/graphql', {
        query: `{ tag(_id: "${ids.red}") { name articles articlesEntries { title } leading } }`,
      });
      const body = await res.json();
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      expect(body.data.tag).to.deep.equal({ name: 'red', articles: [ids.one], articlesEntries: [{ title: 'One' }], leading: [ids.one] });
      const written = await as(t, 'editor').post('/api/graphql', {
        query: 'mutation { createTag(input: { name: "x", articles: [] }) { _id } }',
      });
      const refusal = await written.json();
      expect(refusal.errors[0].message).to.match(/"articles" is not defined by type "TagInput"/);
      const types = await (await as(t, 'editor').get('/api/types.ts')).text();
      expect(types).to.match(/articles: "articles" extends P \? Article\[\] : string\[\]/);
    });

    it('refuses an inverse name that clashes: reserved, a field of the target, another inverse, or a field added later', async function () {
      const admin = as(t, 'admin');
      const make = (inverseName: string) =>
        admin.post('/api/collections', { name: 'clashing', fields: [{ name: 'x', type: 'relation', collection: 'tags', inverseName }] });
      expect((await failureOf(await make('name'), 400)).message).to.include("already has a field 'name'");
      expect((await failureOf(await make('articles'), 400)).message).to.include("already shows an inverse field 'articles'");
      expect((await failureOf(await make('status'), 400)).message).to.include('reserved');
      const schema = await dataOf(await admin.get('/api/collections/tags/schema'));
      const res = await admin.patch('/api/collections/tags/schema', { fields: [...schema.fields, { name: 'leading', type: 'text' }] });
      expect((await failureOf(res, 400)).message).to.include("'leading' is the inverse field");
    });
  });
}
