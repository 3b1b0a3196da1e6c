import { expect } from 'chai';
import { createLocalClient, systemIdentity } from '../../plugins/content/local-client.js';
import { as, dataOf, POSTS } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Control characters at the edge. Found by hand before: a NUL in the login email, in a search and in
 * a filter value answered 500 on SQLite (the driver cut the statement at the NUL).
 */
for (const variant of DB_VARIANTS) {
  describe(`input hygiene: control characters and lone surrogates (${variant.name})`, function () {
    this.timeout(60000);
    const refused = async (res: Response, path: RegExp) => {
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(body.issues ?? body.message)).to.match(path);
      expect(JSON.stringify(body)).not.to.match(/at .*\.js:\d+/);
    };

    const t = useIdentityKernel(variant, {
      seed: async () => {
        await dataOf(await as(t, 'admin').post('/api/collections', { ...POSTS, name: 'pages', fields: POSTS.fields }), 201);
      },
    });

    it('a NUL in the login email, a search, a filter value or a path is 400 VALIDATION_ERROR naming the field', async () => {
      await refused(
        await t.request('/api/user/login', { method: 'POST', json: { email: 'ada\u0000@example.com', password: 'whatever-123' } }),
        /body\.email/,
      );
      await refused(await as(t, 'viewer').get('/api/collections/pages?search=a%00b'), /query\.search/);
      await refused(
        await as(t, 'viewer').get(`/api/collections/pages?filter=${encodeURIComponent(JSON.stringify({ title: 'a\u0000b' }))}`),
        /query\.filter/,
      );
      await refused(await as(t, 'viewer').get('/api/collections/pages/a%00b'), /params\.entryId/);
    });

    it('other control characters, lone surrogates and very deep JSON are refused; tabs and new lines are kept', async () => {
      await refused(await as(t, 'editor').post('/api/collections/pages', { title: 'bell\u0007' }), /body\.title/);
      await refused(
        await t.request('/api/collections/pages', {
          method: 'POST',
          identity: 'editor',
          headers: { 'content-type': 'application/json' },
          body: '{"title":"half \\ud800 a pair"}',
        }),
        /body\.title/,
      );
      const deep = `{"title":"deep","meta":${'{"a":'.repeat(10000)}"x"${'}'.repeat(10000)}}`;
      await refused(
        await t.request('/api/collections/pages', {
          method: 'POST',
          identity: 'editor',
          headers: { 'content-type': 'application/json' },
          body: deep,
        }),
        /nested deeper/,
      );
      const kept = await dataOf(
        await as(t, 'editor').post('/api/collections/pages', { title: 'Tab\tand\nlines\r\n', body: '<p>é 😀</p>' }),
        201,
      );
      expect(kept.title).to.equal('Tab\tand\nlines\r\n');
      expect(kept.body).to.equal('<p>é 😀</p>');
    });

    it('found by the fuzz suite: inherited object keys in sort and filter, a select default without options and deep GraphQL nesting are 4xx, not 500', async () => {
      for (const sort of ['constructor', '__proto__', '-hasOwnProperty', 'valueOf:desc']) {
        await refused(await as(t, 'viewer').get(`/api/collections/pages?sort=${encodeURIComponent(sort)}`), /query\.sort/);
      }
      await refused(
        await as(t, 'viewer').get(`/api/collections/pages?filter=${encodeURIComponent(JSON.stringify({ title: { constructor: 'a' } }))}`),
        /query\.filter/,
      );
      await refused(
        await as(t, 'admin').post('/api/collections', { name: 'selects', fields: [{ name: 'kind', type: 'select', default: 'x' }] }),
        /options/,
      );
      const graphql = await t.request('/api/graphql', { method: 'POST', json: { query: `{ ${'a{'.repeat(3000)}b${'}'.repeat(3000)} }` } });
      expect(graphql.status).to.be.within(400, 499);
      expect(JSON.stringify(await graphql.json())).to.match(/GRAPHQL_DEPTH_LIMIT/);
    });

    it('code that bypasses HTTP (the in-process SDK) cannot send a NUL to SQL either: 400 VALIDATION_ERROR, nothing written', async () => {
      const client = createLocalClient(t.kernel, systemIdentity());
      const before = (await client.entries('pages').list({ limit: 1 })).total;
      const err = await client
        .entries('pages')
        .create({ title: 'nul\u0000inside' })
        .then(
          () => null,
          (e) => e,
        );
      expect(err?.code).to.equal('VALIDATION_ERROR');
      expect(err?.status).to.equal(400);
      expect((await client.entries('pages').list({ limit: 1 })).total).to.equal(before);
    });
  });
}
