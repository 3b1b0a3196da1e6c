import { expect } from 'chai';
import type { WorkerPool } from '../../kernel/pool.js';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { as, dataOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const ARTICLES = {
  name: 'articles',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'body', type: 'richtext' },
    { name: 'notes', type: 'markdown' },
  ],
};
const DIRTY =
  '<h2 style="color:red">Hi</h2><p class="MsoNormal" onclick="steal()">Text<script>alert(1)</script> ' +
  '<a href="javascript:alert(1)">bad</a> <a href="https://example.com" target="_blank">good</a></p>' +
  '<img src="/files/a.png" alt="A" onerror="alert(1)"><iframe src="https://evil.example"></iframe><!-- c -->';
const CLEAN =
  '<h2>Hi</h2><p>Text <a>bad</a> <a href="https://example.com" target="_blank" rel="noopener noreferrer">good</a></p>' +
  '<img src="/files/a.png" alt="A" />';

for (const variant of DB_VARIANTS) {
  describe(`content: rich text and markdown fields (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await dataOf(await as(t, 'admin').post('/api/collections', ARTICLES), 201);
      },
    });
    const editor = () => as(t, 'editor');
    const stored = async (id: string) => (await dataOf(await editor().get(`/api/collections/articles/${id}`))).body;

    it('REST create, update and batch store sanitised HTML, and answer with it', async function () {
      const created = await dataOf(await editor().post('/api/collections/articles', { title: 'One', body: DIRTY }), 201);
      expect(created.body).to.equal(CLEAN);
      expect(await stored(created._id)).to.equal(CLEAN);
      const patched = await dataOf(await editor().patch(`/api/collections/articles/${created._id}`, { body: `<p>x</p>${DIRTY}` }));
      expect(patched.body).to.equal(`<p>x</p>${CLEAN}`);
      expect(await stored(created._id)).to.equal(`<p>x</p>${CLEAN}`);
      // Sent back unchanged, a clean value stays as it is (idempotent): no surprise edits on re-save.
      const again = await dataOf(await editor().patch(`/api/collections/articles/${created._id}`, { body: patched.body }));
      expect(again.body).to.equal(patched.body);
      const batch = await dataOf(
        await editor().post('/api/collections/articles/batch', {
          entries: [
            { title: 'B1', body: DIRTY },
            { title: 'B2', body: '<p style="x">plain</p>' },
          ],
        }),
        201,
      );
      expect(batch.items.map((e: { body: string }) => e.body)).to.deep.equal([CLEAN, '<p>plain</p>']);
      expect(await stored(batch.items[0]._id)).to.equal(CLEAN);
      // The revision records the stored value too.
      const revisions = await dataOf(await editor().get(`/api/collections/articles/${created._id}/revisions`));
      expect(revisions.map((r: { data: { body: string } }) => r.data.body)).to.deep.equal([patched.body, patched.body, CLEAN]);
    });

    it('GraphQL createArticle and updateArticle store sanitised HTML', async function () {
      const create = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: {
          query: 'mutation($i: ArticleInput!) { createArticle(input: $i) { _id body } }',
          variables: { i: { title: 'G', body: DIRTY } },
        },
      });
      const created = (await create.json()) as { data: { createArticle: { _id: string; body: string } }; errors?: unknown };
      expect(created.errors).to.equal(undefined);
      expect(created.data.createArticle.body).to.equal(CLEAN);
      const id = created.data.createArticle._id;
      expect(await stored(id)).to.equal(CLEAN);
      const update = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: {
          query: 'mutation($id: ID!, $i: ArticleInput!) { updateArticle(_id: $id, input: $i) { body } }',
          variables: { id, i: { title: 'G', body: '<p><a href="data:text/html,x">d</a><b onmouseover="x">b</b></p>' } },
        },
      });
      expect(((await update.json()) as { data: { updateArticle: { body: string } } }).data.updateArticle.body).to.equal(
        '<p><a>d</a><b>b</b></p>',
      );
      expect(await stored(id)).to.equal('<p><a>d</a><b>b</b></p>');
    });

    it('the in-process client sanitises too, large bulk writes in the worker pool', async function () {
      const client = createLocalClient(t.kernel);
      const pool = t.kernel.container.resolve<WorkerPool>('pool');
      const tasksBefore = pool.stats().completed;
      const long = `<p onclick="x()">${'word '.repeat(10_000)}</p><script>alert(1)</script>`;
      const made = await client.entries('articles').createMany(Array.from({ length: 5 }, (_, i) => ({ title: `Bulk ${i}`, body: long })));
      const expected = `<p>${'word '.repeat(10_000)}</p>`;
      expect(pool.stats().completed).to.be.above(tasksBefore);
      for (const e of made) {
        expect(e.body).to.equal(expected);
        expect(await stored(e._id)).to.equal(expected);
      }
      const one = await client.entries('articles').create({ title: 'Local', body: DIRTY });
      expect(one.body).to.equal(CLEAN);
    });

    it('markdown fields keep their source as sent, are searched, and refuse what is not a string', async function () {
      const source = '# Notes\n\nSome **bold** <script>alert(1)</script> and a [link](https://example.com).\n\n- one\n- two\n';
      const created = await dataOf(await editor().post('/api/collections/articles', { title: 'Md', notes: source }), 201);
      expect(created.notes).to.equal(source);
      expect((await dataOf(await editor().get(`/api/collections/articles/${created._id}`))).notes).to.equal(source);
      const updated = await dataOf(await editor().patch(`/api/collections/articles/${created._id}`, { notes: '*changed*' }));
      expect(updated.notes).to.equal('*changed*');
      const found = await dataOf(await editor().get('/api/collections/articles?search=changed'));
      expect(found.items.map((e: { _id: string }) => e._id)).to.deep.equal([created._id]);
      const contains = await dataOf(
        await editor().get(`/api/collections/articles?filter=${encodeURIComponent('{"notes":{"contains":"changed"}}')}`),
      );
      expect(contains.total).to.equal(1);

      const bad = await editor().post('/api/collections/articles', { title: 'Bad', notes: 42 });
      expect(bad.status).to.equal(400);
      const body = await bad.json();
      expect(body).to.include({ success: false, error: 'VALIDATION_ERROR' });
      expect(body.issues).to.deep.include({ path: 'body.notes', message: 'Invalid input: expected string, received number' });
      expect((await editor().patch(`/api/collections/articles/${created._id}`, { notes: { md: 'x' } })).status).to.equal(400);

      const gql = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: { query: `{ article(_id: "${created._id}") { notes } }` },
      });
      expect(((await gql.json()) as { data: { article: { notes: string } } }).data.article.notes).to.equal('*changed*');
    });

    it('markdown fields cannot be unique, indexed or sorted by', async function () {
      const unique = await as(t, 'admin').post('/api/collections', {
        name: 'mdunique',
        fields: [{ name: 'notes', type: 'markdown', unique: true }],
      });
      expect(unique.status).to.equal(400);
      expect((await unique.json()).issues[0].message).to.equal('markdown fields cannot be indexed or unique');
      const sorted = await editor().get('/api/collections/articles?sort=notes');
      expect(sorted.status).to.equal(400);
      expect((await sorted.json()).error).to.equal('VALIDATION_ERROR');
    });
  });
}
