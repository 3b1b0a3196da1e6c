import { expect } from 'chai';
import { as, dataOf, POSTS } from '../helpers/content.js';
import {
  fixturePlugin,
  startTestKernel,
  tempDir,
  type TestKernel,
  useIdentityKernel,
  useTestKernel,
  writePlugin,
} from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const AUTHORS = { name: 'authors', fields: [{ name: 'name', type: 'text', required: true }] };
const POSTS_WITH_AUTHOR = { ...POSTS, fields: [...POSTS.fields, { name: 'author', type: 'relation', collection: 'authors' }] };
const PAGES = {
  name: 'pages',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'parent', type: 'relation', collection: 'pages' },
  ],
};
/** Every field of a post, so a GraphQL item can be compared with the REST item. */
const POST_FIELDS =
  '_id slug status syncId version createdAt updatedAt createdBy updatedBy title body views featured publishedOn category meta author _locale _locales';

interface Gql {
  status: number;
  body: {
    data?: any;
    errors?: Array<{
      message: string;
      locations?: unknown[];
      path?: string[];
      extensions: { code: string; issues?: Array<{ path: string; message: string }> };
    }>;
  };
  headers: Headers;
}

async function gql(
  t: TestKernel,
  query: string,
  options: { identity?: string; tenant?: string; variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Gql> {
  const { identity = 'editor', tenant, variables, headers = {} } = options;
  const res = await t.request('/api/graphql', {
    method: 'POST',
    identity: identity || undefined,
    json: { query, variables },
    headers: { ...(tenant ? { 'x-test-tenant': tenant } : {}), ...headers },
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The data of a GraphQL answer, failing the test (with the body) on errors. */
async function dataOfGql(answer: Promise<Gql>): Promise<any> {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body)).to.equal(200);
  expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
  return body.data;
}

const codes = (a: Gql) => (a.body.errors ?? []).map((e) => e.extensions.code);

for (const variant of DB_VARIANTS) {
  describe(`graphql over HTTP: an empty schema and clashing names (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('serves a valid schema: the collections query answers an empty list and there are no mutations', async function () {
      const data = await dataOfGql(
        gql(
          t,
          '{ collections { name } __schema { queryType { fields { name } } mutationType { name } subscriptionType { fields { name } } } }',
        ),
      );
      expect(data.collections).to.deep.equal([]);
      expect(data.__schema.queryType.fields.map((f: { name: string }) => f.name)).to.have.members(['search', 'collections']);
      expect(data.__schema.mutationType).to.equal(null);
      expect(data.__schema.subscriptionType.fields.map((f: { name: string }) => f.name)).to.have.members([
        'mediaUploaded',
        'userCreated',
        'userUpdated',
        'userDeleted',
        'dataOperationCompleted',
      ]);
    });

    it("a collection whose GraphQL names would clash with another's is refused, and the schema stays valid", async function () {
      await dataOf(await as(t, 'admin').post('/api/collections', { name: 'notes', fields: [{ name: 'text', type: 'text' }] }), 201);
      const clash = await as(t, 'admin').post('/api/collections', { name: 'note', fields: [{ name: 'text', type: 'text' }] });
      expect(clash.status).to.equal(409);
      const data = await dataOfGql(gql(t, '{ collections { name typeName listQuery } notes { total } }'));
      expect(data.collections).to.deep.equal([{ name: 'notes', typeName: 'Note', listQuery: 'notes' }]);
      expect(data.notes.total).to.equal(0);
    });
  });

  describe(`graphql over HTTP (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await dataOf(await as(t, 'admin').post('/api/collections', AUTHORS), 201);
        await dataOf(await as(t, 'admin').post('/api/collections', POSTS_WITH_AUTHOR), 201);
        await dataOf(await as(t, 'admin').post('/api/collections', PAGES), 201);
      },
    });
    const editor = () => as(t, 'editor');

    it('generates the types, queries, mutations and subscriptions of each collection', async function () {
      const data = await dataOfGql(
        gql(
          t,
          `{
        post: __type(name: "Post") { fields { name type { kind name ofType { name } } } }
        category: __type(name: "PostCategory") { kind enumValues { name } }
        list: __type(name: "PostList") { fields { name } }
        input: __type(name: "PostInput") { inputFields { name type { kind name } } }
        __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } }
      }`,
        ),
      );
      const type = Object.fromEntries(
        data.post.fields.map((f: any) => [f.name, f.type.kind === 'NON_NULL' ? `${f.type.ofType.name}!` : f.type.name]),
      );
      expect(type).to.deep.equal({
        _id: 'ID!',
        slug: 'String!',
        status: 'EntryStatus!',
        syncId: 'ID',
        version: 'Int!',
        createdAt: 'String!',
        updatedAt: 'String!',
        createdBy: 'ID',
        updatedBy: 'ID',
        _locale: 'String',
        _locales: null,
        _fallbackFields: null,
        _stage: 'String',
        _highlight: 'JSON',
        hasDraft: 'Boolean',
        title: 'String',
        body: 'String',
        views: 'Float',
        featured: 'Boolean',
        publishedOn: 'String',
        category: 'PostCategory',
        meta: 'JSON',
        author: 'ID',
        authorEntry: 'Author',
      });
      expect(data.category).to.deep.equal({ kind: 'ENUM', enumValues: [{ name: 'news' }, { name: 'guide' }, { name: 'opinion' }] });
      expect(data.list.fields.map((f: any) => f.name)).to.deep.equal(['items', 'total', 'page', 'limit', 'nextCursor', 'prevCursor']);
      expect(data.input.inputFields.map((f: any) => f.name)).to.include.members(['title', 'category', 'meta', 'author', 'slug', 'status']);
      const names = (t: { fields: Array<{ name: string }> }) => t.fields.map((f) => f.name);
      expect(names(data.__schema.queryType)).to.include.members(['collections', 'posts', 'post', 'authors', 'author', 'pages', 'page']);
      expect(names(data.__schema.mutationType)).to.include.members([
        'createPost',
        'updatePost',
        'deletePost',
        'setPostStatus',
        'createAuthor',
      ]);
      expect(names(data.__schema.subscriptionType)).to.include.members([
        'postAdded',
        'postUpdated',
        'postDeleted',
        'authorAdded',
        'mediaUploaded',
        'userCreated',
      ]);
      const collections = await dataOfGql(gql(t, '{ collections { name singular typeName listQuery fields { name type } } }'));
      expect(collections.collections.find((c: any) => c.name === 'posts')).to.deep.include({
        singular: 'post',
        typeName: 'Post',
        listQuery: 'posts',
      });
    });

    it('regenerates the schema when a field or a collection is added, without a restart', async function () {
      const before = await gql(t, '{ authors { items { name country } } }');
      expect(before.status).to.equal(400);
      expect(codes(before)).to.deep.equal(['GRAPHQL_VALIDATION_FAILED']);
      await dataOf(
        await as(t, 'admin').patch('/api/collections/authors/schema', { fields: [...AUTHORS.fields, { name: 'country', type: 'text' }] }),
      );
      await dataOf(await editor().post('/api/collections/authors', { name: 'Ada', country: 'UK' }), 201);
      const after = await dataOfGql(gql(t, '{ authors(filter: {country: "UK"}) { items { name country } } }'));
      expect(after.authors.items).to.deep.equal([{ name: 'Ada', country: 'UK' }]);
      expect((await gql(t, '{ tags { total } }')).status).to.equal(400);
      await dataOf(await as(t, 'admin').post('/api/collections', { name: 'tags', fields: [{ name: 'label', type: 'text' }] }), 201);
      const created = await dataOfGql(gql(t, 'mutation { createTag(input: {label: "fresh"}) { label } }'));
      expect(created.createTag).to.deep.equal({ label: 'fresh' });
      expect((await dataOfGql(gql(t, '{ tags { total } }'))).tags.total).to.equal(1);
    });

    it('list queries answer exactly what REST answers for page, limit, sort, filter, search and status', async function () {
      const author = await dataOf(await editor().post('/api/collections/authors', { name: 'Grace' }), 201);
      const categories = ['news', 'guide', 'opinion'];
      const statuses = ['published', 'draft', 'published', 'archived'];
      const entries = Array.from({ length: 30 }, (_, i) => ({
        title: `${i % 5 === 0 ? 'Alpha' : 'Beta'} post ${String(i).padStart(2, '0')}`,
        views: (i * 7) % 23,
        featured: i % 2 === 0,
        category: categories[i % 3],
        status: statuses[i % 4],
        publishedOn: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
        meta: { n: i },
        author: i % 4 === 0 ? author._id : null,
      }));
      await dataOf(await editor().post('/api/collections/posts/batch', { entries }), 201);
      const cases: Array<Record<string, unknown>> = [
        {},
        { page: 2, limit: 7 },
        { limit: 500 },
        { sort: '-views' },
        { sort: 'title:asc', limit: 5, page: 3 },
        { sort: 'category,-views' },
        { filter: { category: 'guide' } },
        { filter: { views: { gte: 10 } }, sort: 'views' },
        { filter: { category: { in: ['news', 'opinion'] } }, search: 'alpha' },
        { search: 'ALPHA' },
        { status: 'draft' },
        { status: 'published', limit: 3 },
        { filter: { author: author._id } },
      ];
      for (const identity of ['editor', 'viewer']) {
        for (const c of cases) {
          const query = new URLSearchParams(
            Object.entries(c).map(([k, v]): [string, string] => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
          );
          const rest = await dataOf(await as(t, identity).get(`/api/collections/posts?${query}`));
          const answer = await dataOfGql(
            gql(
              t,
              `query($page: Int, $limit: Int, $sort: String, $filter: JSON, $search: String, $status: EntryStatus) {
            posts(page: $page, limit: $limit, sort: $sort, filter: $filter, search: $search, status: $status) { total page limit items { ${POST_FIELDS} } }
          }`,
              { identity, variables: c },
            ),
          );
          // A searched REST list's items carry `_highlight` (docs/features/search.md), which these GraphQL fields do not select.
          for (const item of rest.items) delete item._highlight;
          expect(answer.posts, `${identity} ${JSON.stringify(c)}`).to.deep.equal(rest);
        }
      }
      // The filter may also come as the JSON text REST takes.
      const asText = await dataOfGql(gql(t, '{ posts(filter: "{\\"category\\":\\"guide\\"}", limit: 100) { total } }'));
      expect(asText.posts.total).to.equal(
        (await dataOf(await editor().get('/api/collections/posts?limit=100&filter={"category":"guide"}'))).total,
      );
      // Readers see published entries only.
      const viewer = await dataOfGql(gql(t, '{ posts(limit: 100) { items { status } } }', { identity: 'viewer' }));
      expect(viewer.posts.items.length).to.be.greaterThan(0);
      expect(new Set(viewer.posts.items.map((i: { status: string }) => i.status))).to.deep.equal(new Set(['published']));
      // The same refusals for bad list arguments.
      for (const [args, rest] of [
        ['limit: 0', 'limit=0'],
        ['sort: "meta"', 'sort=meta'],
        ['filter: {colour: "red"}', 'filter={"colour":"red"}'],
      ]) {
        const refused = await gql(t, `{ posts(${args}) { total } }`);
        const restRefused = await editor().get(`/api/collections/posts?${rest}`);
        expect(restRefused.status).to.equal(400);
        expect(refused.status).to.equal(200);
        expect(refused.body.data).to.equal(null);
        expect(codes(refused)).to.deep.equal(['VALIDATION_ERROR']);
        expect(refused.body.errors![0]!.extensions.issues).to.deep.equal((await restRefused.json()).issues);
      }
    });

    it('post(_id) answers what REST answers; null when unknown or hidden from a reader', async function () {
      const draft = await dataOf(await editor().post('/api/collections/posts', { title: 'Secret draft' }), 201);
      const one = (identity: string, id: string) =>
        dataOfGql(gql(t, `query($id: ID!) { post(_id: $id) { ${POST_FIELDS} } }`, { identity, variables: { id } }));
      expect((await one('editor', draft._id)).post).to.deep.equal(await dataOf(await editor().get(`/api/collections/posts/${draft._id}`)));
      expect((await one('viewer', draft._id)).post).to.equal(null);
      expect((await one('editor', '00000000-0000-4000-8000-000000000000')).post).to.equal(null);
      const nobody = await gql(t, `{ post(_id: "${draft._id}") { title } }`, { identity: 'nobody' });
      expect(codes(nobody)).to.deep.equal(['FORBIDDEN']);
      expect(nobody.body.data).to.deep.equal({ post: null });
      const guest = await gql(t, `{ post(_id: "${draft._id}") { title } }`, { identity: '' });
      expect(codes(guest)).to.deep.equal(['AUTHENTICATION_REQUIRED']);
    });

    it('mutations validate as REST does (VALIDATION_ERROR with issues) and need content:write', async function () {
      const bad = { body: 'no title', author: '00000000-0000-4000-8000-000000000000' };
      const rest = await editor().post('/api/collections/posts', bad);
      expect(rest.status).to.equal(400);
      const restBody = await rest.json();
      const refused = await gql(t, 'mutation($input: PostInput!) { createPost(input: $input) { _id } }', { variables: { input: bad } });
      expect(refused.status).to.equal(200);
      expect(refused.body.data).to.equal(null);
      expect(refused.body.errors).to.have.length(1);
      expect(refused.body.errors![0]).to.deep.include({ message: restBody.message, path: ['createPost'] });
      expect(refused.body.errors![0]!.extensions).to.deep.equal({ code: 'VALIDATION_ERROR', issues: restBody.issues });
      expect(JSON.stringify(refused.body)).to.not.match(/\n\s+at /);
      // A value of the wrong type is refused by the schema itself, before anything runs.
      const typed = await gql(t, 'mutation { createPost(input: {title: "x", views: "many"}) { _id } }');
      expect(typed.status).to.equal(400);
      expect(codes(typed)).to.deep.equal(['GRAPHQL_VALIDATION_FAILED']);

      const count = async () => (await dataOf(await editor().get('/api/collections/posts?search=by-viewer'))).total;
      const viewer = await gql(t, 'mutation { createPost(input: {title: "by-viewer"}) { _id } }', { identity: 'viewer' });
      expect(codes(viewer)).to.deep.equal(['FORBIDDEN']);
      const guest = await gql(t, 'mutation { createPost(input: {title: "by-viewer"}) { _id } }', { identity: '' });
      expect(codes(guest)).to.deep.equal(['AUTHENTICATION_REQUIRED']);
      expect(await count()).to.equal(0);

      const created = (
        await dataOfGql(
          gql(
            t,
            'mutation { createPost(input: {title: "Via GraphQL", category: guide, meta: {tags: ["a"]}}) { _id title status category meta version } }',
          ),
        )
      ).createPost;
      expect(created).to.deep.include({ title: 'Via GraphQL', status: 'draft', category: 'guide', version: 1 });
      expect(created.meta).to.deep.equal({ tags: ['a'] });
      const updated = (
        await dataOfGql(
          gql(t, `mutation { updatePost(_id: "${created._id}", input: {views: 3, category: null}) { views category version } }`),
        )
      ).updatePost;
      expect(updated).to.deep.equal({ views: 3, category: null, version: 2 });
      const cleared = await gql(t, `mutation { updatePost(_id: "${created._id}", input: {title: null}) { title } }`);
      expect(codes(cleared)).to.deep.equal(['VALIDATION_ERROR']);
      expect(cleared.body.errors![0]!.extensions.issues).to.deep.equal([{ path: 'body.title', message: 'required' }]);
      const published = (await dataOfGql(gql(t, `mutation { setPostStatus(_id: "${created._id}", status: published) { status } }`)))
        .setPostStatus;
      expect(published.status).to.equal('published');
      expect(await dataOf(await as(t, 'viewer').get(`/api/collections/posts/${created._id}`))).to.deep.include({
        title: 'Via GraphQL',
        views: 3,
        status: 'published',
      });
      expect((await dataOfGql(gql(t, `mutation { deletePost(_id: "${created._id}") }`))).deletePost).to.equal(true);
      expect((await editor().get(`/api/collections/posts/${created._id}`)).status).to.equal(404);
      const again = await gql(t, `mutation { deletePost(_id: "${created._id}") }`);
      expect(codes(again)).to.deep.equal(['ENTRY_NOT_FOUND']);
    });

    it('a relation field also resolves to the related entry', async function () {
      const author = await dataOf(await editor().post('/api/collections/authors', { name: 'Linus' }), 201);
      const post = await dataOf(
        await editor().post('/api/collections/posts', { title: 'Related', author: author._id, status: 'published' }),
        201,
      );
      const data = await dataOfGql(gql(t, `{ post(_id: "${post._id}") { author authorEntry { _id name } } }`));
      expect(data.post).to.deep.equal({ author: author._id, authorEntry: { _id: author._id, name: 'Linus' } });
      // The author is a draft: a reader sees the id but not the entry.
      const viewer = await dataOfGql(gql(t, `{ post(_id: "${post._id}") { author authorEntry { name } } }`, { identity: 'viewer' }));
      expect(viewer.post).to.deep.equal({ author: author._id, authorEntry: null });
    });

    it('keeps tenants apart: another tenant sees none of these entries and writes its own', async function () {
      const mine = await dataOf(await editor().post('/api/collections/posts', { title: 'Default tenant only' }), 201);
      const other = await dataOfGql(
        gql(t, `{ posts(search: "default tenant only") { total } post(_id: "${mine._id}") { _id } }`, { tenant: 'acme' }),
      );
      expect(other).to.deep.equal({ posts: { total: 0 }, post: null });
      const theirs = (await dataOfGql(gql(t, 'mutation { createPost(input: {title: "Acme tenant only"}) { _id } }', { tenant: 'acme' })))
        .createPost;
      expect((await dataOfGql(gql(t, '{ posts(search: "acme tenant only") { total } }'))).posts.total).to.equal(0);
      expect((await dataOfGql(gql(t, `{ post(_id: "${theirs._id}") { _id } }`))).post).to.equal(null);
      expect(codes(await gql(t, `mutation { deletePost(_id: "${theirs._id}") }`))).to.deep.equal(['ENTRY_NOT_FOUND']);
    });

    it('refuses operations that are too deep, too costly or too long before running them', async function () {
      const nest = (levels: number) => `${'parentEntry { '.repeat(levels)}_id${' }'.repeat(levels)}`;
      // createPage + 9 relations + _id: 11 levels.
      const deep = await gql(t, `mutation { createPage(input: {title: "too deep"}) { ${nest(9)} } }`);
      expect(deep.status).to.equal(400);
      expect(codes(deep)).to.deep.equal(['GRAPHQL_DEPTH_LIMIT']);
      expect(deep.body.errors![0]!.message).to.match(/11 deep; the limit is 10/);
      expect(deep.body).to.not.have.property('data');
      expect(
        (await dataOf(await editor().get('/api/collections/pages?search=too%20deep'))).total,
        'the refused mutation did not run',
      ).to.equal(0);
      // Through fragments too.
      const viaFragments = await gql(
        t,
        `query { page(_id: "x") { ...A } } fragment A on Page { parentEntry { ...B } } fragment B on Page { ${nest(8)} }`,
      );
      expect(codes(viaFragments)).to.deep.equal(['GRAPHQL_DEPTH_LIMIT']);
      expect((await gql(t, `mutation { createPage(input: {title: "deep enough"}) { ${nest(8)} } }`)).status).to.equal(200);

      const lists = (n: number, limit: string) =>
        `query($limit: Int) { ${Array.from({ length: n }, (_, i) => `a${i}: posts(limit: ${limit}) { items { _id } }`).join(' ')} }`;
      const costly = await gql(t, lists(10, '$limit'), { variables: { limit: 100 } });
      expect(costly.status).to.equal(400);
      expect(codes(costly)).to.deep.equal(['GRAPHQL_COST_LIMIT']);
      expect(costly.body.errors![0]!.message).to.match(/cost is 1010; the limit is 1000/);
      expect((await gql(t, lists(10, '$limit'), { variables: { limit: 90 } })).status).to.equal(200);
      // A relation per item costs one more load per item: 5 x (1 + 100 x 2) = 1005.
      const fiveLists = (selection: string) =>
        `{ ${['a', 'b', 'c', 'd', 'e'].map((a) => `${a}: posts(limit: 100) { items { ${selection} } }`).join(' ')} }`;
      expect(codes(await gql(t, fiveLists('authorEntry { name }')))).to.deep.equal(['GRAPHQL_COST_LIMIT']);
      expect((await gql(t, fiveLists('_id title author'))).status).to.equal(200);

      const long = await gql(t, `{ posts { total } ${'#'.repeat(21_000)}\n}`);
      expect(long.status).to.equal(413);
      expect(codes(long)).to.deep.equal(['GRAPHQL_QUERY_TOO_LARGE']);
    });

    it('answers in the GraphQL shape: request errors 4xx, execution errors 200 with data; GET runs queries only', async function () {
      const syntax = await gql(t, '{ posts { total }');
      expect(syntax.status).to.equal(400);
      expect(syntax.body.errors![0]).to.deep.include({
        locations: [{ line: 1, column: 18 }],
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      });
      const variables = await gql(t, 'query($limit: Int) { posts(limit: $limit) { total } }', { variables: { limit: 'ten' } });
      expect(variables.status).to.equal(400);
      expect(codes(variables)).to.deep.equal(['GRAPHQL_VALIDATION_FAILED']);
      const overHttp = await gql(t, 'subscription { postAdded { _id } }');
      expect(overHttp.status).to.equal(400);
      expect(overHttp.body.errors![0]!.message).to.match(/WebSocket/);

      const query = '{ posts(limit: 2, sort: "title") { total items { title } } }';
      const viaGet = await t.request(`/api/graphql?query=${encodeURIComponent(query)}`, { identity: 'editor' });
      expect(viaGet.status).to.equal(200);
      expect(await viaGet.json()).to.deep.equal((await gql(t, query)).body);
      const mutationViaGet = await t.request(
        `/api/graphql?query=${encodeURIComponent('mutation { createTag(input: {label: "via get"}) { label } }')}`,
        { identity: 'editor' },
      );
      expect(mutationViaGet.status).to.equal(405);
      expect(mutationViaGet.headers.get('allow')).to.equal('POST');
      expect((await mutationViaGet.json()).errors[0].extensions.code).to.equal('METHOD_NOT_ALLOWED');

      const negotiated = await gql(t, '{ collections { name } }', { headers: { accept: 'application/graphql-response+json' } });
      expect(negotiated.headers.get('content-type')).to.match(/^application\/graphql-response\+json/);
      expect((await gql(t, '{ collections { name } }')).headers.get('content-type')).to.match(/^application\/json/);

      const guestSchema = await gql(t, '{ __schema { types { name } } }', { identity: '' });
      expect(guestSchema.status).to.equal(401);
      expect(codes(guestSchema)).to.deep.equal(['AUTHENTICATION_REQUIRED']);
      expect((await gql(t, '{ __typename }', { identity: '' })).body).to.deep.equal({ data: { __typename: 'Query' } });
    });
  });
}

describe('graphql: slices contributed by other plugins', function () {
  this.timeout(60000);
  let t: TestKernel;
  before(async function () {
    const root = tempDir('cms-graphql-plugins-');
    const contribute = (id: string, typeDefs: string, resolvers: string) =>
      writePlugin(
        root,
        { id, requires: ['graphql'], provides: { graphql: [id] } },
        `export default { register({ registries }) {
        registries.graphql.add({ id: ${JSON.stringify(id)}, typeDefs: ${JSON.stringify(typeDefs)}, resolvers: ${resolvers} });
      } };\n`,
      );
    const good = contribute(
      'greeter',
      'extend type Query { greeting(name: String!): String! }',
      `{ Query: { greeting: (_r, args, ctx) => 'Hello ' + args.name + ' from ' + ctx.identity.role } }`,
    );
    const broken = contribute('clasher', 'extend type Query { collections: String }', '{}');
    t = await startTestKernel({ plugins: [fixturePlugin('test-identity'), good, broken] });
  });
  after(async () => t?.close());

  it('adds a contributed field with its resolver, and leaves out a slice that clashes', async function () {
    expect(await dataOfGql(gql(t, '{ greeting(name: "Ada") collections { name } }', { identity: 'viewer' }))).to.deep.equal({
      greeting: 'Hello Ada from viewer',
      collections: [],
    });
  });
});
