import { expect } from 'chai';
import { as, dataOf, createPosts } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`content: public access per collection (${variant.name})`, function () {
    this.timeout(60000);
    let live: { _id: string };
    let draft: { _id: string };
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createPosts(t);
        await dataOf(await as(t, 'admin').post('/api/collections', { name: 'memos', fields: [{ name: 'title', type: 'text' }] }), 201);
        live = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Open letter', status: 'published' }), 201);
        draft = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Not yet' }), 201);
        await dataOf(await as(t, 'editor').post('/api/collections/memos', { title: 'Internal memo', status: 'published' }), 201);
      },
    });

    const guest = (path: string, init: { method?: string; json?: unknown } = {}) => t.request(path, init);
    const setPublic = (value: boolean, identity = 'admin') =>
      t.request('/api/collections/posts/public-access', { method: 'PUT', identity, json: { public: value } });
    const gql = async (query: string) => (await (await guest('/api/graphql', { method: 'POST', json: { query } })).json()) as any;

    it('a guest reads a public collection’s published entries (REST and GraphQL), nothing else, until access is withdrawn', async function () {
      // Private by default: a guest is asked to sign in.
      expect((await guest('/api/collections/posts')).status).to.equal(401);
      expect((await dataOf(await as(t, 'viewer').get('/api/collections/posts/public-access'))).public).to.equal(false);
      // Only collections:manage grants it.
      expect((await setPublic(true, 'editor')).status).to.equal(403);
      expect(await dataOf(await setPublic(true))).to.include({ collection: 'posts', public: true, listPath: '/api/collections/posts' });

      const list = await dataOf(await guest('/api/collections/posts'));
      expect(list.items.map((e: { title: string }) => e.title)).to.deep.equal(['Open letter']);
      expect((await dataOf(await guest(`/api/collections/posts/${live._id}`))).title).to.equal('Open letter');
      expect((await guest(`/api/collections/posts/${draft._id}`)).status).to.equal(404);
      // Other collections, the schema list and every write stay closed.
      expect((await guest('/api/collections/memos')).status).to.equal(401);
      expect((await guest('/api/collections')).status).to.equal(401);
      expect((await guest('/api/collections/posts', { method: 'POST', json: { title: 'Spam' } })).status).to.equal(401);
      expect((await guest(`/api/collections/posts/${live._id}`, { method: 'PATCH', json: { title: 'Defaced' } })).status).to.equal(401);

      const viaGraphql = await gql('{ posts { total items { title status } } }');
      expect(viaGraphql.errors, JSON.stringify(viaGraphql)).to.equal(undefined);
      expect(viaGraphql.data.posts).to.deep.equal({ total: 1, items: [{ title: 'Open letter', status: 'published' }] });
      const memos = await gql('{ memos { total } }');
      expect(memos.errors?.[0]?.extensions?.code, JSON.stringify(memos)).to.equal('AUTHENTICATION_REQUIRED');

      // The OpenAPI document says how the route is opened.
      const doc = (await (await guest('/api/openapi.json')).json()) as any;
      expect(doc.paths['/api/collections/{collection}'].get['x-permission-scope']).to.equal('collection');

      // Withdrawn: the next guest request is refused (no minute of grace from the guest cache).
      expect((await dataOf(await setPublic(false))).public).to.equal(false);
      expect((await guest('/api/collections/posts')).status).to.equal(401);
      expect((await gql('{ posts { total } }')).errors?.[0]?.extensions?.code).to.equal('AUTHENTICATION_REQUIRED');
    });

    it('an unknown collection answers 404, and granting twice changes nothing', async function () {
      expect(
        (await t.request('/api/collections/nope/public-access', { method: 'PUT', identity: 'admin', json: { public: true } })).status,
      ).to.equal(404);
      await dataOf(await setPublic(true));
      await dataOf(await setPublic(true));
      const roles = await t.kernel.container
        .resolve<{ permissionsOf(r: string, t: string): Promise<string[]> }>('users')
        .permissionsOf('guest', 'default');
      expect(roles.filter((p) => p === 'content:read:posts')).to.have.length(1);
      await dataOf(await setPublic(false));
    });
  });
}
