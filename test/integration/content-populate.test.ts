import { expect } from 'chai';
import { as, createCollections, dataOf, entryMaker } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

// populate= of API-DECISIONS "Content model v2": a populated one-relation answers the target entry or null
// (missing, or not visible to the caller); a populated media field answers {_id, filename, mimeType, size,
// url, width?, height?} or null (private media for a guest); dotted paths to 3 levels; * = every relation and
// media field of the first level; a deeper path or one through another field type is a 400 naming it.
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`content: populate (${variant.name})`, function () {
    this.timeout(60000);
    const ids: Record<string, string> = {};
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createCollections(
          t,
          { name: 'countries', fields: [{ name: 'name', type: 'text' }] },
          {
            name: 'authors',
            fields: [
              { name: 'name', type: 'text' },
              { name: 'avatar', type: 'media' },
              { name: 'country', type: 'relation', collection: 'countries' },
            ],
          },
          {
            name: 'posts',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'author', type: 'relation', collection: 'authors' },
              { name: 'cover', type: 'media' },
              { name: 'previous', type: 'relation', collection: 'posts' },
            ],
          },
        );
        const png = await imageBytes(4, 3);
        ids.publicImage = (await dataOf(await uploadFile(t, png, 'face.png'), 201))._id;
        ids.privateImage = (await dataOf(await uploadFile(t, png, 'secret.png', { fields: { private: 'true' } }), 201))._id;
        const made = entryMaker(t);
        ids.country = await made('countries', { name: 'Iceland' });
        ids.ada = await made('authors', { name: 'Ada', avatar: ids.publicImage, country: ids.country });
        ids.draftAuthor = await made('authors', { name: 'Draft Dan', status: 'draft', avatar: ids.privateImage });
        ids.first = await made('posts', { title: 'First', author: ids.ada, cover: ids.privateImage });
        ids.second = await made('posts', { title: 'Second', author: ids.ada, cover: ids.publicImage, previous: ids.first });
        ids.third = await made('posts', { title: 'Third', author: ids.draftAuthor });
      },
    });
    const list = async (who: string | null, query: string): Promise<Entry[]> => {
      const res = who
        ? await as(t, who).get(`/api/collections/posts?sort=title&${query}`)
        : await t.request(`/api/collections/posts?sort=title&${query}`);
      return (await dataOf(res)).items;
    };
    const refused = async (query: string, naming: string) => {
      const res = await as(t, 'editor').get(`/api/collections/posts?${query}`);
      const body = await res.json();
      expect(res.status, query).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(body)).to.include(naming);
    };

    it('answers ids without populate, and objects with it', async function () {
      const [first, second] = await list('editor', '');
      expect(second!.author).to.equal(ids.ada);
      expect(second!.cover).to.equal(ids.publicImage);
      const populated = await list('editor', 'populate=author,cover');
      const ada = populated[1]!.author;
      expect(ada).to.include({ _id: ids.ada, name: 'Ada', avatar: ids.publicImage, country: ids.country, status: 'published' });
      expect(populated[1]!.cover).to.deep.equal({
        _id: ids.publicImage,
        filename: 'face.png',
        mimeType: 'image/png',
        size: populated[1]!.cover.size,
        url: populated[1]!.cover.url,
        width: 4,
        height: 3,
      });
      expect(populated[1]!.cover.url).to.match(/^\/files\//);
      expect(populated[1]!.previous).to.equal(ids.first); // not asked for
      expect(first!.title).to.equal('First');
    });

    it('follows dotted paths to three levels, and * populates every relation and media field of the first level', async function () {
      const [, second] = await list('editor', 'populate=author.country,author.avatar,previous.author.country');
      expect(second!.author.country).to.include({ _id: ids.country, name: 'Iceland' });
      expect(second!.author.avatar).to.include({ _id: ids.publicImage, filename: 'face.png' });
      expect(second!.previous.author.country.name).to.equal('Iceland');
      const [, starred] = await list('editor', 'populate=*');
      expect(starred!.author._id).to.equal(ids.ada);
      expect(starred!.author.country).to.equal(ids.country); // * is the first level only
      expect(starred!.cover._id).to.equal(ids.publicImage);
      expect(starred!.previous._id).to.equal(ids.first);
    });

    it('shows a guest only what it may read: published targets of public collections, public media', async function () {
      const open = (name: string) =>
        t.request(`/api/collections/${name}/public-access`, { method: 'PUT', identity: 'admin', json: { public: true } });
      expect((await open('posts')).status).to.equal(200);
      try {
        const [first, second] = await list(null, 'populate=author,cover');
        // authors is not public: the guest gets null, not the id it could not follow.
        expect(second!.author).to.equal(null);
        expect(second!.cover).to.include({ _id: ids.publicImage });
        expect(first!.cover).to.equal(null); // private media
        expect((await open('authors')).status).to.equal(200);
        const after = await list(null, 'populate=author.avatar');
        expect(after.find((e) => e.title === 'Second')!.author).to.include({ name: 'Ada' });
        expect(after.find((e) => e.title === 'Second')!.author.avatar).to.include({ filename: 'face.png' });
        // A draft author is not visible to a guest even in a public collection.
        expect(after.find((e) => e.title === 'Third')!.author).to.equal(null);
        const editorView = await list('editor', 'populate=author.avatar');
        expect(editorView.find((e) => e.title === 'Third')!.author).to.include({ name: 'Draft Dan' });
        expect(editorView.find((e) => e.title === 'Third')!.author.avatar).to.include({ filename: 'secret.png' });
      } finally {
        for (const name of ['posts', 'authors'])
          await t.request(`/api/collections/${name}/public-access`, { method: 'PUT', identity: 'admin', json: { public: false } });
      }
    });

    it('populates one entry too, and a target changed after a cached list shows the change', async function () {
      const one = await dataOf(await as(t, 'editor').get(`/api/collections/posts/${ids.second}?populate=author&fields=title,author`));
      expect(Object.keys(one)).to.deep.equal(['_id', 'title', 'author', '_locale', '_locales']);
      expect(one.author.name).to.equal('Ada');
      expect((await list('viewer', 'populate=author'))[1]!.author.name).to.equal('Ada');
      await dataOf(await as(t, 'editor').patch(`/api/collections/authors/${ids.ada}`, { name: 'Ada L.' }));
      expect((await list('viewer', 'populate=author'))[1]!.author.name).to.equal('Ada L.');
    });

    it('filters by fields of related entries (author.name, author.country.name), kept to what the caller may read', async function () {
      const titles = async (who: string | null, filter: unknown) =>
        (await list(who, `filter=${encodeURIComponent(JSON.stringify(filter))}`)).map((e) => e.title);
      // (An earlier test renamed Ada to 'Ada L.'.)
      expect(await titles('editor', { 'author.name': 'Ada L.' })).to.deep.equal(['First', 'Second']);
      expect(await titles('editor', { 'author.name': { startsWith: 'draft' } })).to.deep.equal(['Third']);
      expect(await titles('editor', { 'author.country.name': { eq: 'Iceland' } })).to.deep.equal(['First', 'Second']);
      expect(await titles('editor', { $or: [{ 'author.name': 'Draft Dan' }, { 'previous.title': 'First' }] })).to.deep.equal([
        'Second',
        'Third',
      ]);
      expect(await titles('editor', { $not: { 'author.name': { startsWith: 'ada' } } })).to.deep.equal(['Third']);
      // A viewer sees published entries only, through the path too: the draft author matches nothing.
      expect(await titles('viewer', { 'author.name': 'Draft Dan' })).to.deep.equal([]);
      const bad = async (filter: unknown, naming: string, who = 'editor') => {
        const res =
          who === 'guest'
            ? await t.request(`/api/collections/posts?filter=${encodeURIComponent(JSON.stringify(filter))}`)
            : await as(t, who).get(`/api/collections/posts?filter=${encodeURIComponent(JSON.stringify(filter))}`);
        const body = await res.json();
        expect(res.status, JSON.stringify(filter)).to.equal(400);
        expect(body.error).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(body)).to.include(naming);
      };
      await bad({ 'author.nickname': 'x' }, "unknown field 'author.nickname'");
      await bad({ 'title.length': 3 }, "'title' is not a relation");
      await bad({ 'previous.author.country.name': 'x' }, 'more than 2 relations deep');
      await bad({ 'author.name': { like: 'x' } }, "unknown operator 'like'");
      // A guest reading a public collection may not look into one it cannot read.
      await t.request('/api/collections/posts/public-access', { method: 'PUT', identity: 'admin', json: { public: true } });
      try {
        await bad({ 'author.name': 'Ada' }, "you may not read the collection 'authors'", 'guest');
      } finally {
        await t.request('/api/collections/posts/public-access', { method: 'PUT', identity: 'admin', json: { public: false } });
      }
    });

    it('GraphQL resolves the relations of a whole page with one query per target collection and level', async function () {
      const sequelize = t.kernel.container.resolve<{ options: { logging: unknown } }>('sequelize');
      const statements: string[] = [];
      const before = sequelize.options.logging;
      sequelize.options.logging = (sql: string) => statements.push(sql);
      let body: any;
      try {
        const res = await as(t, 'editor').post('/api/graphql', {
          query: '{ posts(sort: "title") { items { title authorEntry { _id countryEntry { name } } previousEntry { title } } } }',
        });
        body = await res.json();
      } finally {
        sequelize.options.logging = before;
      }
      expect(body.errors).to.equal(undefined);
      const items = body.data.posts.items;
      expect(items.map((e: Entry) => e.authorEntry?._id)).to.deep.equal([ids.ada, ids.ada, ids.draftAuthor]);
      expect(items[1].authorEntry.countryEntry.name).to.equal('Iceland');
      expect(items[1].previousEntry.title).to.equal('First');
      const reads = (table: string) =>
        statements.filter(
          (s) =>
            (/^Executing \([^)]*\): SELECT/.test(s) && s.includes(`\`${table}\``)) || (s.includes('SELECT') && s.includes(`"${table}"`)),
        ).length;
      expect(reads('cms_c_authors'), statements.join('\n')).to.equal(1);
      expect(reads('cms_c_countries'), statements.join('\n')).to.equal(1);
    });

    it('deleting a target leaves no dangling id: one-relations to it read null, populated or not', async function () {
      // Cached first, so the delete must also drop the lists of the collections that pointed at it.
      expect((await list('viewer', ''))[1]!.previous).to.equal(ids.first);
      expect((await list('viewer', ''))[1]!.author).to.equal(ids.ada);
      await dataOf(await as(t, 'editor').delete(`/api/collections/posts/${ids.first}`));
      await dataOf(await as(t, 'editor').delete(`/api/collections/authors/${ids.ada}`));
      const [second] = await list('viewer', '');
      expect(second).to.include({ title: 'Second', previous: null, author: null });
      expect((await list('viewer', 'populate=author,previous'))[0]).to.include({ previous: null, author: null });
      const one = await dataOf(await as(t, 'viewer').get(`/api/collections/posts/${ids.second}`));
      expect(one).to.include({ previous: null, author: null });
    });

    it('refuses a path deeper than 3 levels, through a field that is not a relation, or past a media field', async function () {
      await refused('populate=previous.previous.previous.author', 'deeper than 3 levels');
      await refused('populate=title', "'title' is not a relation or media field");
      await refused('populate=writer', "'writer' is not a relation or media field");
      await refused('populate=cover.author', "'cover' is a media field and ends the path");
      await refused('populate=author.title', "'title' is not a relation or media field");
    });
  });
}
