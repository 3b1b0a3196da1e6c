import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWxr } from '../../plugins/import-wxr/parse-task.js';
import type { ImportedEntity, ImportParseSummary } from '../../plugins/importers/public.js';
import { as, dataOf } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { settledImportJob } from '../helpers/importers.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 35, item 9: a WordPress export's references become relations of the content model. A post's categories and
 * tags (in the order the item lists them) are many-relations to the categories and tags imported from the file
 * (declared by wp:category / wp:tag, or only named by an item's <category>), its author a relation to the authors
 * (dc:creator = wp:author_login), a page's parent a relation to its parent page, also when the parent comes later in
 * the file. Every other value is stored as before; a reference whose target is left out stays today's text.
 */
type Entry = Record<string, any>;

/** A small WXR: the child page before its parent, categories listed out of alphabetical order, undeclared terms and author. */
const SMALL_WXR = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>ada</wp:author_login><wp:author_display_name>Ada L.</wp:author_display_name></wp:author>
<wp:category><wp:term_id>3</wp:term_id><wp:category_nicename>alpha</wp:category_nicename><wp:cat_name>Alpha</wp:cat_name></wp:category>
<wp:tag><wp:term_id>4</wp:term_id><wp:tag_slug>red</wp:tag_slug><wp:tag_name>Red</wp:tag_name></wp:tag>
<item><title>Child page</title><wp:post_id>11</wp:post_id><wp:post_parent>10</wp:post_parent><wp:post_type>page</wp:post_type><wp:status>publish</wp:status><dc:creator>ada</dc:creator><content:encoded><![CDATA[<p>child</p>]]></content:encoded></item>
<item><title>Parent page</title><wp:post_id>10</wp:post_id><wp:post_parent>0</wp:post_parent><wp:post_type>page</wp:post_type><wp:status>publish</wp:status><dc:creator>ada</dc:creator></item>
<item><title>Ordered &amp; named</title><wp:post_id>20</wp:post_id><wp:post_type>post</wp:post_type><wp:status>publish</wp:status><dc:creator>grace</dc:creator>
<category domain="category" nicename="zeta"><![CDATA[Zeta]]></category>
<category domain="category" nicename="alpha"><![CDATA[Alpha]]></category>
<category domain="post_tag" nicename="red"><![CDATA[Red]]></category>
<category domain="post_tag" nicename="blue"><![CDATA[Blue]]></category>
<content:encoded><![CDATA[<p>Body & text</p>]]></content:encoded></item>
</channel>
</rss>
`;

/** A fixture as the parse task reads it: its records (values as the file has them) and its summary. */
async function parsed(file: string): Promise<{ records: ImportedEntity[]; summary: ImportParseSummary }> {
  const dir = mkdtempSync(join(tmpdir(), 'wxr-rel-'));
  try {
    const spoolPath = join(dir, 'spool.ndjson');
    const profile = { container: 'plain', encoding: 'utf-8', bom: false, kind: 'xml' } as const;
    const r = await parseWxr({
      path: join(IMPORT_FIXTURES, 'xml_blog', file),
      filename: file,
      workDir: dir,
      spoolPath,
      maxDepth: 32,
      profile,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const records = readFileSync(spoolPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ImportedEntity);
    return { records, summary: r.value };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const variant of DB_VARIANTS) {
  describe(`import WordPress references as relations (${variant.name})`, function () {
    this.timeout(300000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const admin = () => as(t, 'admin');

    async function planFor(content: string | Buffer, filename: string, body: Record<string, unknown> = {}) {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(v.valid, JSON.stringify(v.blockedReasons)).to.equal(true);
      return dataOf(await admin().post('/api/importers/preview', { format: 'xml_blog', uploadId: v.uploadId, scaffold: true, ...body }));
    }
    async function run(plan: Entry) {
      const res = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
      expect(res.status).to.be.oneOf([200, 202]);
      const job = await settledImportJob(t, (await res.json()).jobId, 3000, 100);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return job;
    }
    const list = async (path: string): Promise<Entry[]> => (await dataOf(await admin().get(path))).items;

    it('the real Ghost sample export: posts answer their categories, tags and author populated, in the order of the item', async () => {
      const plan = await planFor(readFileSync(join(IMPORT_FIXTURES, 'xml_blog', 'ghost-wpxml-sample.xml')), 'ghost-wpxml-sample.xml');
      // The plan shows the relations and their target collections.
      const mapping = (field: string) => plan.fieldMappings.find((m: Entry) => m.entity === 'posts' && m.sourceField === field);
      expect(mapping('categories')).to.include({
        targetField: 'categories',
        type: 'relation',
        collection: 'categories',
        cardinality: 'many',
      });
      expect(mapping('tags')).to.include({ targetField: 'tags', type: 'relation', collection: 'tags', cardinality: 'many' });
      expect(mapping('author')).to.include({ targetField: 'author', type: 'relation', collection: 'authors', cardinality: 'one' });
      const posts = plan.collections.find((c: Entry) => c.name === 'posts');
      expect(posts.fields.find((f: Entry) => f.name === 'tags')).to.include({ type: 'relation', collection: 'tags', cardinality: 'many' });
      await run(plan);

      const items = await list('/api/collections/posts?limit=100&populate=categories,tags,author');
      const byId = (wpId: number) => items.find((e) => e.wpId === wpId)!;
      const names = (xs: Entry[]) => xs.map((x) => x.name);
      // Fixture lines 43-45, 60-63, 82-85: tags and categories in the item's order, dc:creator = the author's login.
      // (The file declares the category as "Company News" while its items name "company-news": both are imported.)
      expect(names(byId(204).tags)).to.deep.equal(['Programming']);
      expect(names(byId(204).categories)).to.deep.equal(['Company News']);
      expect(byId(204).categories[0]._source_import).to.include({ externalId: 'company-news' });
      expect(byId(204).author).to.include({ login: 'harry@example.com' });
      for (const wpId of [4, 14]) {
        expect(names(byId(wpId).tags)).to.deep.equal(['Has Images', 'Programming']);
        expect(byId(wpId).categories.map((c: Entry) => c.name)).to.deep.equal(['Company News']);
        expect(byId(wpId).author).to.include({ login: 'hermione@example.com', email: 'hermione@example.com' });
      }
      // Unpopulated they are ids, and the same entries the tags collection holds.
      const raw = (await list('/api/collections/posts?limit=100')).find((e) => e.wpId === 4)!;
      const tags = await list('/api/collections/tags?limit=100');
      expect(raw.tags).to.deep.equal(['Has Images', 'Programming'].map((n) => tags.find((x) => x.name === n)!._id));
      // Every other value as before: the featured image id kept as written, the title and content exact.
      expect(raw.featuredImage).to.equal('5');
      expect(raw.wpId).to.equal(4);
    });

    it('a page whose parent comes later in the file gets it; undeclared terms and authors are imported; order kept', async () => {
      const plan = await planFor(SMALL_WXR, 'small.xml', {
        mappings: { posts: 'small_posts', pages: 'small_pages', categories: 'small_cats', tags: 'small_tags', authors: 'small_authors' },
      });
      expect(plan.fieldMappings.find((m: Entry) => m.entity === 'pages' && m.sourceField === 'parent')).to.include({
        type: 'relation',
        collection: 'small_pages',
        cardinality: 'one',
      });
      await run(plan);
      const pages = await list('/api/collections/small_pages?limit=100&populate=parent,author');
      const child = pages.find((p) => p.title === 'Child page')!;
      const parent = pages.find((p) => p.title === 'Parent page')!;
      expect(child.parent).to.include({ _id: parent._id, title: 'Parent page' });
      expect(parent.parent).to.equal(null);
      expect(child.author).to.include({ login: 'ada', displayName: 'Ada L.' });
      const [post] = await list('/api/collections/small_posts?limit=100&populate=categories,tags,author');
      expect(post.title).to.equal('Ordered & named');
      expect(post.content).to.equal('<p>Body &amp; text</p>');
      expect(post.categories.map((c: Entry) => c.slug)).to.deep.equal(['zeta', 'alpha']);
      expect(post.categories.map((c: Entry) => c.name)).to.deep.equal(['Zeta', 'Alpha']);
      expect(post.tags.map((c: Entry) => c.slug)).to.deep.equal(['red', 'blue']);
      expect(post.author).to.include({ login: 'grace', displayName: 'grace' });
    });

    it('a reference whose target is left out of the import keeps today’s value (the source text)', async () => {
      const plan = await planFor(SMALL_WXR, 'small-no-terms.xml', {
        mappings: { posts: 'lone_posts', pages: false, categories: false, tags: false, authors: false, comments: false },
      });
      const mapping = plan.fieldMappings.find((m: Entry) => m.entity === 'posts' && m.sourceField === 'categories');
      expect(mapping).to.include({ targetField: 'categories', type: 'text' });
      expect(mapping).to.not.have.property('collection');
      await run(plan);
      const [post] = await list('/api/collections/lone_posts?limit=100');
      expect(post.categories).to.equal('["zeta","alpha"]');
      expect(post.tags).to.equal('["red","blue"]');
      expect(post.author).to.equal('grace');
    });

    it('the real Ghost sample: an attachment’s parent post and a custom post type’s tags and author are relations', async () => {
      const file = 'ghost-wpxml-sample.xml';
      const { records } = await parsed(file);
      const plan = await planFor(readFileSync(join(IMPORT_FIXTURES, 'xml_blog', file)), file, {
        mappings: {
          posts: 'cpt_posts',
          pages: 'cpt_pages',
          customcpts: 'cpt_customcpts',
          attachments: 'cpt_attachments',
          categories: 'cpt_categories',
          tags: 'cpt_tags',
          authors: 'cpt_authors',
          comments: false,
        },
      });
      const mapping = (entity: string, field: string) =>
        plan.fieldMappings.find((m: Entry) => m.entity === entity && m.sourceField === field);
      expect(mapping('attachments', 'parent')).to.include({ type: 'relation', collection: 'cpt_posts', cardinality: 'one' });
      expect(mapping('attachments', 'author')).to.include({ type: 'relation', collection: 'cpt_authors', cardinality: 'one' });
      expect(mapping('customcpts', 'tags')).to.include({ type: 'relation', collection: 'cpt_tags', cardinality: 'many' });
      expect(mapping('customcpts', 'categories')).to.include({ type: 'relation', collection: 'cpt_categories', cardinality: 'many' });
      expect(mapping('customcpts', 'author')).to.include({ type: 'relation', collection: 'cpt_authors', cardinality: 'one' });
      await run(plan);

      // Fixture lines 93-125: the CPT item 15 (tag has-images, by hermione) and attachment 5 of post 4.
      const [cpt] = await list('/api/collections/cpt_customcpts?limit=10&populate=tags,categories,author');
      expect(cpt).to.include({ title: 'My CPT Post', postType: 'customcpt', wpId: 15 });
      expect(cpt.tags.map((x: Entry) => x.slug)).to.deep.equal(['has-images']);
      expect(cpt.categories).to.deep.equal([]);
      expect(cpt.author).to.include({ login: 'hermione@example.com' });
      const attachments = await list('/api/collections/cpt_attachments?limit=10&populate=parent,author');
      const source = records.filter((r) => r.entity === 'attachments');
      expect(attachments).to.have.length(source.length);
      for (const a of source) {
        const e = attachments.find((x) => x.wpId === a.data.wpId)!;
        expect(e.parent).to.include({ wpId: Number(a.data.parent), title: 'Basic Post' });
        expect(e.author).to.include({ login: a.data.author });
        expect(e.url).to.equal(a.data.url);
      }
    });

    it('the real theme unit test data: menu items’ parent pages are relations; attachments of posts and of pages keep the WordPress id', async () => {
      const file = 'wp-theme-unit-test-data.xml';
      const { records, summary } = await parsed(file);
      expect(summary.warnings.map((w) => w.message)).to.include(
        'attachments: their parents are items of several kinds (7 posts, 1 pages); a relation has one target collection, so parent keeps the WordPress ids',
      );
      const plan = await planFor(readFileSync(join(IMPORT_FIXTURES, 'xml_blog', file)), file, {
        mappings: {
          posts: 'tu_posts',
          pages: 'tu_pages',
          attachments: 'tu_attachments',
          nav_menu_items: 'tu_menu_items',
          categories: 'tu_categories',
          tags: 'tu_tags',
          terms: false,
          authors: 'tu_authors',
          comments: false,
        },
      });
      const mapping = (entity: string, field: string) =>
        plan.fieldMappings.find((m: Entry) => m.entity === entity && m.sourceField === field);
      expect(mapping('nav_menu_items', 'parent')).to.include({ type: 'relation', collection: 'tu_pages', cardinality: 'one' });
      expect(mapping('attachments', 'parent')).to.include({ type: 'text' });
      expect(mapping('attachments', 'author')).to.include({ type: 'relation', collection: 'tu_authors' });
      await run(plan);

      const menu = await list('/api/collections/tu_menu_items?limit=100&populate=parent');
      const menuSource = records.filter((r) => r.entity === 'nav_menu_items');
      expect(menu).to.have.length(menuSource.length);
      let withParent = 0;
      for (const m of menuSource) {
        const e = menu.find((x) => x._source_import.externalId === m.externalId)!;
        if (m.data.parent === null) expect(e.parent, m.externalId).to.equal(null);
        else {
          expect(e.parent, m.externalId).to.include({ wpId: Number(m.data.parent) });
          withParent++;
        }
      }
      expect(withParent).to.equal(25);
      const attachments = await list('/api/collections/tu_attachments?limit=100&populate=author');
      const source = records.filter((r) => r.entity === 'attachments');
      expect(attachments).to.have.length(source.length);
      for (const a of source) {
        const e = attachments.find((x) => x.wpId === a.data.wpId)!;
        expect(e.parent).to.equal(a.data.parent);
        expect(e.author).to.include({ login: a.data.author });
      }
    });
  });
}
