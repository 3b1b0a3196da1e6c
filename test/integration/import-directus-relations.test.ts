import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { as, dataOf } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { settledImportJob } from '../helpers/importers.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 35, item 9: a Directus (data_cms) archive holding several item exports imports every collection, and the
 * references between them become relations. Without a snapshot, a field whose values are all UUIDs of the items of
 * one collection of the archive is a relation to it (many for a list); with the schema snapshot, its `relations`
 * decide. The real products export (simple-ecommerce template) names categories and variants it does not hold: the
 * archives add small hand-made category and variant files (TEST DATA, made here from the ids the products name).
 * The real help-center snapshot and translations go with a hand-made help_articles file (TEST DATA) the same way.
 */
type Entry = Record<string, any>;
const DATA_CMS = join(IMPORT_FIXTURES, 'data_cms');
const fixture = (name: string) => JSON.parse(readFileSync(join(DATA_CMS, name), 'utf8'));
const products = (): Entry[] => fixture('directus-simple-ecommerce-products.json');
const translations = (): Entry[] => fixture('directus-help-center-articles-translations.json');
const stamp = { date_created: '2024-09-25T15:00:00.000Z', user_created: null };

/** TEST DATA: one category per id the products name (`names` picks which), in a Directus item export's shape. */
function testCategories(ids: string[]): Entry[] {
  return ids.map((id, i) => ({ id, status: 'published', ...stamp, name: `Test category ${i + 1}` }));
}
/** TEST DATA: one variant per id the products list, pointing back at its product. */
function testVariants(): Entry[] {
  return products().flatMap((p) =>
    (p.variants as string[]).map((id, i) => ({ id, ...stamp, name: `${p.slug} variant ${i + 1}`, product: p.id })),
  );
}
/** TEST DATA: the help articles the real translations point at; `translations` is the O2M alias the snapshot declares. */
function testArticles(): Entry[] {
  const ids = [...new Set(translations().map((t) => t.help_articles_id as string))];
  return ids.map((id, i) => ({
    id,
    status: 'published',
    ...stamp,
    title: `Test article ${i + 1}`,
    help_collection: '00000000-0000-4000-8000-00000000000c',
    translations: translations()
      .filter((t) => t.help_articles_id === id)
      .map((t) => t.id),
  }));
}

/** A .tar.gz of the members (name -> JSON value or a real fixture file's bytes). */
async function archive(members: Record<string, unknown>): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'directus-archive-'));
  try {
    for (const [name, value] of Object.entries(members))
      writeFileSync(join(dir, name), Buffer.isBuffer(value) ? value : JSON.stringify(value, null, 2));
    const file = join(dir, 'export.tar.gz');
    await tar.c({ gzip: true, file, cwd: dir, portable: true }, Object.keys(members));
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const real = (name: string) => readFileSync(join(DATA_CMS, name));

for (const variant of DB_VARIANTS) {
  describe(`import Directus archives with relations (${variant.name})`, function () {
    this.timeout(300000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const admin = () => as(t, 'admin');

    async function importArchive(bytes: Buffer, mappings: Record<string, unknown>) {
      const fd = new FormData();
      fd.append('file', new Blob([bytes]), 'directus-export.tar.gz');
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(v, JSON.stringify(v)).to.include({ valid: true, detectedFormat: 'data_cms' });
      const plan = await dataOf(
        await admin().post('/api/importers/preview', { format: 'data_cms', uploadId: v.uploadId, scaffold: true, mappings }),
      );
      const res = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
      const job = await settledImportJob(t, (await res.json()).jobId, 3000, 100);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return plan;
    }
    const list = async (path: string): Promise<Entry[]> => (await dataOf(await admin().get(path))).items;
    const mappingOf = (plan: Entry, entity: string, field: string) =>
      plan.fieldMappings.find((m: Entry) => m.entity === entity && m.sourceField === field);
    const fieldOf = (plan: Entry, entity: string, field: string): string => mappingOf(plan, entity, field).targetField;
    const origin = (e: Entry | null) => e?._source_import?.externalId ?? null;

    it('no snapshot: a product’s category is a relation, its variants a many-relation in the source order, a variant’s product a relation', async () => {
      const source = products();
      const bytes = await archive({
        'directus-simple-ecommerce-products.json': real('directus-simple-ecommerce-products.json'),
        'test-data-categories.json': testCategories(source.map((p) => p.category)),
        'test-data-variants.json': testVariants(),
      });
      const plan = await importArchive(bytes, { products: 'dx_products', categories: 'dx_categories', variants: 'dx_variants' });
      expect(mappingOf(plan, 'products', 'category')).to.include({ type: 'relation', collection: 'dx_categories', cardinality: 'one' });
      expect(mappingOf(plan, 'products', 'variants')).to.include({ type: 'relation', collection: 'dx_variants', cardinality: 'many' });
      expect(mappingOf(plan, 'variants', 'product')).to.include({ type: 'relation', collection: 'dx_products', cardinality: 'one' });
      // user_created names directus_users, which the archive does not hold: as before.
      expect(mappingOf(plan, 'products', 'user_created')).to.include({ type: 'text' });

      const items = await list('/api/collections/dx_products?limit=100&populate=category,variants');
      expect(items).to.have.length(source.length);
      for (const p of source) {
        const e = items.find((x) => origin(x) === p.id)!;
        expect(origin(e.category)).to.equal(p.category);
        expect(e.category.name).to.match(/^Test category/);
        expect(e.variants.map(origin)).to.deep.equal(p.variants);
        // Every other value exactly as the file has it.
        expect(e.title).to.equal(p.title);
        expect(e[fieldOf(plan, 'products', 'user_created')]).to.equal(p.user_created);
        expect(e.color).to.deep.equal(p.color);
      }
      const variants = await list('/api/collections/dx_variants?limit=100&populate=product');
      expect(variants).to.have.length(5);
      for (const v of variants) expect(origin(v.product)).to.equal(testVariants().find((x) => x.id === origin(v))!.product);
    });

    it('targets missing from the archive keep today’s values: variants not in it, categories only partly in it', async () => {
      const source = products();
      const bytes = await archive({
        'directus-simple-ecommerce-products.json': real('directus-simple-ecommerce-products.json'),
        'test-data-categories.json': testCategories([source[0]!.category]),
      });
      const plan = await importArchive(bytes, { products: 'dx_products_partial', categories: 'dx_categories_partial' });
      expect(mappingOf(plan, 'products', 'category')).to.include({ type: 'text' });
      expect(mappingOf(plan, 'products', 'variants')).to.include({ type: 'text' });
      const items = await list('/api/collections/dx_products_partial?limit=100');
      for (const p of source) {
        const e = items.find((x) => origin(x) === p.id)!;
        expect(e.category).to.equal(p.category);
        expect(e.variants).to.equal(JSON.stringify(p.variants));
      }
    });

    it("with the real help-center snapshot: the translations junction is its articles' languages, the O2M alias no field", async () => {
      const source = translations();
      const articles = testArticles();
      const bytes = await archive({
        'directus-help-center-schema-snapshot.json': real('directus-help-center-schema-snapshot.json'),
        'directus-help-center-articles-translations.json': real('directus-help-center-articles-translations.json'),
        'test-data-help_articles.json': articles,
      });
      const plan = await importArchive(bytes, { help_articles: 'dx_articles' });
      // Issue 36: the junction (`help_articles_id` + `languages_code`) is no collection of its own; the alias listing
      // its rows (`translations`) is no field.
      expect(plan.operations.map((o: Entry) => o.sourceType).sort()).to.deep.equal(['help_articles']);
      expect(mappingOf(plan, 'help_articles', 'translations')).to.equal(undefined);
      expect(plan.locales.map((l: Entry) => [l.source, l.count])).to.deep.equal([
        ['en-US', 4],
        ['fr-FR', 2],
      ]);
      // The snapshot relates this to a collection the archive does not hold: as before.
      expect(mappingOf(plan, 'help_articles', 'help_collection')).to.include({ type: 'text' });

      const [title, summary, collection] = ['title', 'summary', 'help_collection'].map((f) => fieldOf(plan, 'help_articles', f));
      // The article's own values are the default locale's; each translation row is its language's version.
      const stored = await list('/api/collections/dx_articles?limit=100');
      expect(stored).to.have.length(articles.length);
      for (const a of articles) {
        const e = stored.find((x) => origin(x) === a.id)!;
        expect(e[title!]).to.equal(a.title);
        expect(e[collection!]).to.equal(a.help_collection);
        expect(e).to.not.have.property('translations');
      }
      for (const code of ['en-US', 'fr-FR']) {
        const inLocale = await list(`/api/collections/dx_articles?limit=100&locale=${code}`);
        for (const row of source.filter((r) => r.languages_code === code)) {
          const e = inLocale.find((x) => origin(x) === row.help_articles_id)!;
          expect(e[title!], `${code} title`).to.equal(row.title);
          expect(e[summary!], `${code} summary`).to.equal(row.summary);
          expect(e._fallbackFields ?? [], `${code} own title`).to.not.include(title);
        }
      }
    });
  });

  describe(`import a single Directus file whose references an earlier import holds (${variant.name})`, function () {
    this.timeout(300000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const admin = () => as(t, 'admin');

    async function importFile(bytes: Buffer | string, filename: string, mappings: Record<string, unknown>, tenant?: string) {
      const fd = new FormData();
      fd.append('file', new Blob([bytes]), filename);
      const headers = tenant ? { 'x-test-tenant': tenant } : undefined;
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin', headers }));
      expect(v, JSON.stringify(v)).to.include({ valid: true, detectedFormat: 'data_cms' });
      const caller = as(t, 'admin', tenant);
      const plan = await dataOf(
        await caller.post('/api/importers/preview', { format: 'data_cms', uploadId: v.uploadId, scaffold: true, mappings }),
      );
      // Another tenant's import is only previewed (the plan is what it would do).
      if (tenant) return plan;
      const res = await caller.post('/api/importers/run', { planId: plan.planId, confirmed: true });
      const job = await settledImportJob(t, (await res.json()).jobId, 3000, 100);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return plan;
    }
    const mappingOf = (plan: Entry, entity: string, field: string) =>
      plan.fieldMappings.find((m: Entry) => m.entity === entity && m.sourceField === field);
    const origin = (e: Entry | null) => e?._source_import?.externalId ?? null;

    it('the real products file after an import of their categories: category is a relation to those entries; variants keep their ids', async () => {
      const source = products();
      const name = 'directus-simple-ecommerce-products.json';
      // Before any categories are imported: as today.
      const alone = await importFile(real(name), name, { products: 'dx_products_before' });
      expect(mappingOf(alone, 'products', 'category')).to.include({ type: 'text' });

      await importFile(JSON.stringify(testCategories(source.map((p) => p.category))), 'test-data-categories.json', {
        categories: 'dx_earlier_categories',
      });
      const plan = await importFile(real(name), name, { products: 'dx_products_after' });
      expect(mappingOf(plan, 'products', 'category')).to.include({
        type: 'relation',
        collection: 'dx_earlier_categories',
        cardinality: 'one',
      });
      expect(mappingOf(plan, 'products', 'variants')).to.include({ type: 'text' });
      const items = (await dataOf(await admin().get('/api/collections/dx_products_after?limit=100&populate=category'))).items as Entry[];
      expect(items).to.have.length(source.length);
      for (const p of source) {
        const e = items.find((x) => origin(x) === p.id)!;
        expect(origin(e.category)).to.equal(p.category);
        expect(e.category.name).to.match(/^Test category/);
        expect(e.variants).to.equal(JSON.stringify(p.variants));
      }
      // Another tenant's preview of the same file does not see this tenant's categories: as today.
      const other = await importFile(real(name), name, { products: 'dx_products_other' }, 'other');
      expect(mappingOf(other, 'products', 'category')).to.include({ type: 'text' });
      // The first products import is left as it was.
      const before = (await dataOf(await admin().get('/api/collections/dx_products_before?limit=100'))).items as Entry[];
      for (const p of source) expect(before.find((x) => origin(x) === p.id)!.category).to.equal(p.category);
    });
  });
}
