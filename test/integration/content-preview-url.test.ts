import { expect } from 'chai';
import { as, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 37, item 5: a collection's previewUrl template ({id}, {slug}, {locale}, {token}), set at creation or through
// PATCH .../schema, answered with the collection; anything else is 400.
for (const variant of DB_VARIANTS) {
  describe(`content: a collection's live preview address (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant);
    const admin = () => as(t, 'admin');
    const url = 'https://www.example.org/{locale}/news/{slug}?preview={token}&id={id}';

    it('is kept with the collection, changed and removed through PATCH .../schema', async function () {
      const made = await dataOf(
        await admin().post('/api/collections', { name: 'news', fields: [{ name: 'title', type: 'text' }], previewUrl: url }),
        201,
      );
      expect(made.previewUrl).to.equal(url);
      expect((await dataOf(await admin().get('/api/collections/news/schema'))).previewUrl).to.equal(url);
      const other = 'http://127.0.0.1:4000/preview?token={token}';
      expect((await dataOf(await admin().patch('/api/collections/news/schema', { previewUrl: other }))).previewUrl).to.equal(other);
      // A field change leaves it as it is.
      const fields = [
        { name: 'title', type: 'text' },
        { name: 'teaser', type: 'text' },
      ];
      expect((await dataOf(await admin().patch('/api/collections/news/schema', { fields }))).previewUrl).to.equal(other);
      const removed = await dataOf(await admin().patch('/api/collections/news/schema', { previewUrl: null }));
      expect(removed).to.not.have.property('previewUrl');
      expect((await dataOf(await admin().get('/api/collections/news/schema'))).fields.map((f: any) => f.name)).to.deep.equal([
        'title',
        'teaser',
      ]);
    });

    it('refuses unknown placeholders, relative, non-http and credentialed addresses with 400 naming previewUrl', async function () {
      for (const bad of [
        'https://x.org/{user}',
        '/preview/{id}',
        'javascript:alert(1)//{id}',
        'ftp://x.org/{id}',
        'https://a:b@x.org/{id}',
        'x'.repeat(2100),
      ]) {
        const failure = await failureOf(
          await admin().post('/api/collections', { name: 'bad_preview', fields: [{ name: 'title', type: 'text' }], previewUrl: bad }),
          400,
        );
        expect(failure.error, bad).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(failure), bad).to.contain('previewUrl');
      }
      expect((await admin().get('/api/collections/bad_preview/schema')).status).to.equal(404);
    });
  });
}
