/**
 * Real exports from ../shared/fixtures/imports through the whole HTTP flow (POST /api/migration/import
 * with scaffold on, the server-sent events read to the end), then the entries counted through the REST
 * API: the numbers are the fixture READMEs'. A second import of the same file adds nothing (delta).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

const FIXTURES = IMPORT_FIXTURES;

interface Complete {
  imported: number;
  failed: number;
  durationMs: number;
}

for (const variant of DB_VARIANTS) {
  describe(`import fixtures over HTTP: real exports into collections (${variant.name})`, function () {
    this.timeout(180000);
    let t: TestKernel;

    async function importFile(
      folder: string,
      file: string,
      fields: Record<string, string> = {},
    ): Promise<{ steps: string[]; complete: Complete }> {
      const form = new FormData();
      form.append('scaffold', 'true');
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([readFileSync(join(FIXTURES, folder, file))]), file);
      const res = await t.request('/api/migration/import', { method: 'POST', body: form, identity: 'admin' });
      expect(res.status, file).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = (await res.text())
        .split('\n\n')
        .filter((b) => b.trim())
        .map((b) => ({
          event: /^event: (.+)$/m.exec(b)?.[1],
          data: JSON.parse(/^data: (.+)$/m.exec(b)?.[1] ?? 'null'),
        }));
      const last = events.at(-1)!;
      expect(last.event, `${file}: ${JSON.stringify(last.data)}`).to.equal('complete');
      return {
        steps: [...new Set(events.filter((e) => e.event === 'progress').map((e) => e.data.step as string))],
        complete: last.data as Complete,
      };
    }

    const total = async (collection: string) => {
      const res = await t.request(`/api/collections/${collection}?limit=1`, { identity: 'admin' });
      expect(res.status, collection).to.equal(200);
      return ((await res.json()) as { data: { total: number } }).data.total;
    };

    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] });
    });
    after(() => t?.close());

    it('WordPress WXR 1.1 (small export): 6 posts, 5 pages, 30 categories, 3 tags, 3 authors, 1 comment; a re-import adds nothing', async () => {
      const first = await importFile('xml_blog', 'wpimporter-small-export.xml');
      expect(first.steps).to.deep.equal(['detecting', 'parsing', 'mapping', 'importing']);
      expect(first.complete).to.include({ imported: 6 + 5 + 30 + 3 + 3 + 1, failed: 0 });
      const counts = { posts: 6, pages: 5, categories: 30, tags: 3, authors: 3, comments: 1 };
      for (const [collection, n] of Object.entries(counts)) expect(await total(collection), collection).to.equal(n);
      const again = await importFile('xml_blog', 'wpimporter-small-export.xml');
      expect(again.complete).to.include({ imported: 0, failed: 0 });
      for (const [collection, n] of Object.entries(counts)) expect(await total(collection), `${collection} after re-import`).to.equal(n);
    });

    it('Shopify product CSV into the commerce preset: 3 products with prices; WooCommerce importer sample: 5 more', async () => {
      expect((await t.request('/api/collections/presets/commerce', { method: 'POST', identity: 'admin' })).status).to.equal(201);
      // The preset's products is the user's own collection: it is chosen explicitly (never the default target).
      const shop = await importFile('shop_products', 'shopify-product_template.csv', { collection: 'products' });
      expect(shop.complete).to.include({ imported: 3, failed: 0 });
      expect(await total('products')).to.equal(3);
      const list = (
        (await (await t.request('/api/collections/products?limit=10&sort=title', { identity: 'admin' })).json()) as {
          data: { items: Array<Record<string, unknown>> };
        }
      ).data.items;
      for (const p of list) expect(p.price, String(p.title)).to.be.a('number');
      const woo = await importFile('shop_products', 'woocommerce-importer-test-sample.csv', { collection: 'products' });
      expect(woo.complete).to.include({ imported: 5, failed: 0 });
      expect(await total('products')).to.equal(8);
    });

    it('Drupal JSON:API article, Directus products and a Strapi 4 export (attachments become media)', async () => {
      const drupal = await importFile('php_cms', 'drupal-standard-article.jsonapi.json');
      expect(drupal.complete).to.include({ failed: 0 });
      expect(await total('articles')).to.equal(1);

      const directus = await importFile('data_cms', 'directus-simple-ecommerce-products.json', { collection: 'shopitems' });
      expect(directus.complete).to.include({ imported: 2, failed: 0 });
      expect(await total('shopitems')).to.equal(2);

      const mediaBefore = ((await (await t.request('/api/media?limit=1', { identity: 'admin' })).json()) as { data: { total: number } })
        .data.total;
      const strapi = await importFile('node_cms', 'strapi4-dashboard-export.tar.gz');
      expect(strapi.complete.failed).to.equal(0);
      expect(strapi.complete.imported).to.be.greaterThan(13);
      const mediaAfter = ((await (await t.request('/api/media?limit=1', { identity: 'admin' })).json()) as { data: { total: number } }).data
        .total;
      expect(mediaAfter - mediaBefore, 'Strapi uploads stored as media').to.equal(13);
    });

    it('generic CSV with a semicolon delimiter and a UTF-16 CSV land in a collection named by the form', async () => {
      const semi = await importFile('csv', 'csvkit-sniff_limit-semicolon.csv', { collection: 'semis' });
      expect(semi.complete.failed).to.equal(0);
      expect(await total('semis')).to.equal(semi.complete.imported);
      expect(semi.complete.imported).to.be.greaterThan(0);
      const utf16 = await importFile('csv', 'csvparser-utf16le-bom.csv', { collection: 'wide' });
      expect(utf16.complete.failed).to.equal(0);
      expect(await total('wide')).to.equal(utf16.complete.imported);
    });
  });
}
