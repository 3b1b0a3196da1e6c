import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseNodeCms } from '../../plugins/import-cms/parse-task.js';
import type { ImportedEntity } from '../../plugins/importers/public.js';
import { as, dataOf } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { settledImportJob } from '../helpers/importers.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 35, item 9: Drupal JSON:API entity references become relations when their targets are in the import. The
 * real Umami recipes export references tags, recipe categories, users and media that it does not include: imported
 * alone, those fields keep today's values (the target UUIDs). The same document with the referenced resources in
 * `included` (a compound document, as JSON:API's `?include=field_tags,...` answers it; the resources are made here
 * from the ids the recipes name) imports them as relations: many for the lists, one for uid.
 */
type Entry = Record<string, any>;
const STRAPI = join(IMPORT_FIXTURES, 'node_cms', 'strapi5-rr7-starter-export.tar.gz');

/** The Strapi export's articles as its parse task reads them (relations as the targets' external ids, in link order). */
async function strapiArticles(): Promise<ImportedEntity[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-strapi-rel-'));
  try {
    const spoolPath = join(dir, 'spool.ndjson');
    const profile = { container: 'tar', encoding: 'utf-8', bom: false, kind: 'json' } as const;
    const r = await parseNodeCms({ path: STRAPI, filename: 'export.tar.gz', workDir: dir, spoolPath, maxDepth: 32, profile });
    expect(r.ok).to.equal(true);
    return readFileSync(spoolPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ImportedEntity)
      .filter((e) => e.entity === 'articles');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
type Ref = { type: string; id: string };

const recipes = () => JSON.parse(readFileSync(join(IMPORT_FIXTURES, 'php_cms', 'drupal-umami-recipes.jsonapi.json'), 'utf8'));

/** The recipes document with every tag, recipe category and user it references in `included`. */
function withIncluded(): { doc: Entry; names: Map<string, string> } {
  const doc = recipes();
  const names = new Map<string, string>();
  const included: Entry[] = [];
  for (const r of doc.data as Entry[])
    for (const field of ['field_tags', 'field_recipe_category', 'uid']) {
      const data = r.relationships[field]?.data;
      for (const ref of (Array.isArray(data) ? data : data ? [data] : []) as Ref[]) {
        if (names.has(ref.id)) continue;
        const name = `${field} ${names.size + 1}`;
        names.set(ref.id, name);
        included.push({ type: ref.type, id: ref.id, attributes: ref.type === 'user--user' ? { name, display_name: name } : { name } });
      }
    }
  doc.included = included;
  return { doc, names };
}

for (const variant of DB_VARIANTS) {
  describe(`import Drupal and Strapi references as relations (${variant.name})`, function () {
    this.timeout(300000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const admin = () => as(t, 'admin');

    async function importDoc(text: string | Buffer, filename: string, mappings: Record<string, unknown>, format = 'php_cms') {
      const fd = new FormData();
      fd.append('file', new Blob([text]), filename);
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(v.valid, JSON.stringify(v)).to.equal(true);
      const plan = await dataOf(await admin().post('/api/importers/preview', { format, uploadId: v.uploadId, scaffold: true, mappings }));
      const res = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
      const job = await settledImportJob(t, (await res.json()).jobId, 3000, 100);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return plan;
    }

    it('the real recipes export alone: references to resources not in the file keep the target UUIDs, as before', async () => {
      const source = recipes();
      await importDoc(JSON.stringify(source), 'recipes.json', { recipes: 'recipes_alone' });
      const items = (await dataOf(await admin().get('/api/collections/recipes_alone?limit=100'))).items as Entry[];
      expect(items).to.have.length(source.data.length);
      for (const r of source.data as Entry[]) {
        const e = items.find((x) => x.title === r.attributes.title)!;
        expect(e.fieldTags).to.equal(JSON.stringify(r.relationships.field_tags.data.map((d: Ref) => d.id)));
        expect(e.uid).to.equal(r.relationships.uid.data.id);
      }
    });

    it('with the targets included: tags and recipe categories are many-relations in the source order, uid a relation', async () => {
      const { doc, names } = withIncluded();
      const plan = await importDoc(JSON.stringify(doc), 'recipes-included.json', {
        recipes: 'recipes_linked',
        tags: 'drupal_tags',
        recipe_categories: 'drupal_recipe_categories',
        authors: 'drupal_authors',
      });
      const mapping = (f: string) => plan.fieldMappings.find((m: Entry) => m.entity === 'recipes' && m.sourceField === f);
      expect(mapping('field_tags')).to.include({
        targetField: 'fieldTags',
        type: 'relation',
        collection: 'drupal_tags',
        cardinality: 'many',
      });
      expect(mapping('field_recipe_category')).to.include({
        type: 'relation',
        collection: 'drupal_recipe_categories',
        cardinality: 'many',
      });
      expect(mapping('uid')).to.include({ type: 'relation', collection: 'drupal_authors', cardinality: 'one' });
      // field_media_image names media the document does not hold: as before.
      expect(mapping('field_media_image')).to.include({ type: 'text' });
      const path = '/api/collections/recipes_linked?limit=100&populate=fieldTags,fieldRecipeCategory,uid';
      const items = (await dataOf(await admin().get(path))).items as Entry[];
      expect(items).to.have.length(doc.data.length);
      for (const r of doc.data as Entry[]) {
        const e = items.find((x) => x.title === r.attributes.title)!;
        const expected = (field: string) => (r.relationships[field].data as Ref[]).map((d) => names.get(d.id));
        expect(e.fieldTags.map((x: Entry) => x.name)).to.deep.equal(expected('field_tags'));
        expect(e.fieldRecipeCategory.map((x: Entry) => x.name)).to.deep.equal(expected('field_recipe_category'));
        expect(e.uid).to.include({ name: names.get(r.relationships.uid.data.id) });
        expect(e.fieldMediaImage).to.equal(r.relationships.field_media_image.data.id);
      }
    });
    it('Strapi (the real Strapi 5 export): an article’s author, tags and related articles are relations, in the link order', async () => {
      const source = await strapiArticles();
      const plan = await importDoc(readFileSync(STRAPI), 'strapi5-rr7-starter-export.tar.gz', {}, 'node_cms');
      const target = (entity: string) => plan.operations.find((o: Entry) => o.sourceType === entity).targetCollection;
      const mapping = (f: string) => plan.fieldMappings.find((m: Entry) => m.entity === 'articles' && m.sourceField === f);
      expect(mapping('contentTags')).to.include({ type: 'relation', collection: target('tags'), cardinality: 'many' });
      expect(mapping('author')).to.include({ type: 'relation', collection: target('authors'), cardinality: 'one' });
      expect(mapping('relatedArticles')).to.include({ type: 'relation', collection: target('articles'), cardinality: 'many' });
      const path = `/api/collections/${target('articles')}?limit=100&populate=contentTags,author,relatedArticles`;
      const items = (await dataOf(await admin().get(path))).items as Entry[];
      expect(items).to.have.length(source.length);
      const origin = (e: Entry | null) => e?._source_import?.externalId ?? null;
      let related = 0;
      for (const a of source) {
        const e = items.find((x) => origin(x) === a.externalId)!;
        expect(e.contentTags.map(origin), a.externalId).to.deep.equal(a.data.contentTags ?? []);
        expect(e.relatedArticles.map(origin), a.externalId).to.deep.equal(a.data.relatedArticles ?? []);
        expect(origin(e.author)).to.equal(a.data.author ?? null);
        related += e.contentTags.length + e.relatedArticles.length + (e.author ? 1 : 0);
      }
      expect(related).to.be.greaterThan(3);
    });
  });
}
