/**
 * The CMS import formats' parse tasks (plugins/import-cms/parse-task) over every real fixture in
 * test/fixtures/imports/{php_cms,node_cms,data_cms}: the counts their READMEs give, field
 * values, stable externalIds, warnings and blocked reasons for the odd files, and broken inputs that
 * must come back as data, never as a crash.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { ImportedEntity, ImportParseSummary, ImportProfile } from '../../plugins/importers/public.js';
import { parseDataCms, parseNodeCms, parsePhpCms } from '../../plugins/import-cms/parse-task.js';
import type { TaskResult } from '../../workers/tasks.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { handBuiltTar, type TarMember } from '../helpers/tar.js';

const FIXTURES = IMPORT_FIXTURES;
const fixture = (folder: string, name: string) => join(FIXTURES, folder, name);

type Task = (input: any) => Promise<TaskResult<ImportParseSummary>>;
interface Parsed {
  summary: ImportParseSummary;
  entities: ImportedEntity[];
  workDir: string;
  spool: string;
}

const dirs: string[] = [];
async function parse(task: Task, path: string, extra: Record<string, unknown> = {}): Promise<Parsed> {
  const workDir = mkdtempSync(join(tmpdir(), 'cms-import-cms-'));
  dirs.push(workDir);
  const spoolPath = join(workDir, 'spool.ndjson');
  const filename = path.split('/').pop()!;
  const profile: ImportProfile = {
    container: /\.tar(\.gz)?$/.test(filename) ? 'tar' : 'plain',
    encoding: 'utf-8',
    bom: false,
    kind: 'json',
  };
  const result = await task({ path, filename, workDir, spoolPath, profile, maxDepth: 32, ...extra });
  if (!result.ok) throw new Error(`task failed: ${JSON.stringify(result.issues)}`);
  const spool = existsSync(spoolPath) ? readFileSync(spoolPath, 'utf8') : '';
  return {
    summary: result.value,
    entities: spool
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    workDir,
    spool,
  };
}
const of = (p: Parsed, entity: string) => p.entities.filter((e) => e.entity === entity);
const messages = (p: Parsed) => p.summary.warnings.map((w) => w.message);

describe('import-cms parse tasks over the real fixtures', function () {
  before(function () {
    if (!existsSync(FIXTURES)) this.skip();
  });
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  describe('php_cms (Drupal JSON:API)', () => {
    it('umami English articles: 8 articles, relations as UUIDs, meta.omitted is a warning and not content', async () => {
      const p = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json'));
      expect(p.summary.counts).to.deep.equal({ articles: 8 });
      expect(p.summary.blockedReasons).to.deep.equal([]);
      const first = of(p, 'articles')[0];
      expect(first.externalId).to.equal('63ed240d-a923-427f-9855-38918bb30b2d');
      expect(first.status).to.equal('published');
      expect(first.data.title).to.equal('Give it a go and grow your own herbs');
      expect(first.data.path).to.equal('/articles/give-it-a-go-and-grow-your-own-herbs');
      expect(first.data.body)
        .to.be.a('string')
        .and.match(/^<p>There's nothing like/);
      expect(first.data.field_tags).to.be.an('array').with.length(3);
      expect(first.data.field_media_image).to.equal('1757fe59-89fc-4804-8441-265fd0089608');
      expect(first.data).to.not.have.any.keys('node_type', 'revision_uid', 'drupal_internal__vid', 'default_langcode');
      expect(p.summary.fields.articles).to.include({
        body: 'richtext',
        field_tags: 'relation',
        field_media_image: 'media',
        uid: 'relation',
        created: 'date',
      });
      expect(messages(p).some((m) => /left out 1 resource\(s\).*meta\.omitted/.test(m))).to.equal(true);
      expect(p.entities.every((e) => e.line !== undefined)).to.equal(true);
    });

    it('umami Spanish articles: the same 8 ids as the English ones, each record carrying its language (`es`), the English ones `en` as the source', async () => {
      const en = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json'));
      const es = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json'));
      expect(es.summary.counts).to.deep.equal({ articles: 8 });
      expect(es.summary.locales).to.deep.equal({ articles: { es: 8 } });
      expect(en.summary.locales).to.deep.equal({ articles: { en: 8 } });
      const enIds = new Set(en.entities.map((e) => e.externalId));
      for (const e of es.entities) {
        expect(enIds.has(e.externalId)).to.equal(true);
        expect(e.locale).to.equal('es');
        expect(e.sourceLocale).to.equal(undefined);
        // The language is the record's, not a field.
        expect(e.data).to.not.have.property('langcode');
      }
      expect(en.entities.every((e) => e.locale === 'en' && e.sourceLocale === true)).to.equal(true);
      const herbs = es.entities.find((e) => e.externalId === '63ed240d-a923-427f-9855-38918bb30b2d')!;
      expect(herbs.data.title).to.equal('Prueba y cultiva tus propias hierbas');
      expect(herbs.data.path).to.equal('/articles/prueba-y-cultiva-tus-propias-hierbas');
      expect(es.spool).to.contain('jardín');
    });

    it('umami recipes: 9 recipes with their custom fields; formatted text flattened to HTML', async () => {
      const p = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-recipes.jsonapi.json'));
      expect(p.summary.counts).to.deep.equal({ recipes: 9 });
      const quiche = of(p, 'recipes').find((r) => r.data.title === 'Deep mediterranean quiche')!;
      expect(quiche.data.field_ingredients).to.be.an('array').that.includes('280g plain flour');
      expect(quiche.data.field_recipe_instruction).to.be.a('string').and.match(/<ol>/);
      expect(quiche.data.field_difficulty).to.equal('medium');
      expect(quiche.data.field_cooking_time).to.equal(30);
      expect(quiche.data.field_number_of_servings).to.equal(8);
      expect(quiche.data.field_recipe_category).to.satisfy((v: unknown) => Array.isArray(v) || typeof v === 'string');
      expect(p.summary.fields.recipes).to.include({
        field_recipe_instruction: 'richtext',
        field_summary: 'richtext',
        field_cooking_time: 'number',
        field_recipe_category: 'relation',
      });
    });

    it('standard profile: 1 article, empty field_tags, no meta member', async () => {
      const p = await parse(parsePhpCms, fixture('php_cms', 'drupal-standard-article.jsonapi.json'));
      expect(p.summary.counts).to.deep.equal({ articles: 1 });
      expect(p.summary.warnings).to.deep.equal([]);
      const a = p.entities[0];
      expect(a.data.field_tags).to.deep.equal([]);
      expect(a.data.title).to.equal('This is an Example Article');
      expect(a.externalId).to.equal('d4b52b83-e92a-4a4f-b2de-647ecb9fb6d0');
    });

    it('the JSON:API entry point: recognised, 0 entities, a blocked reason that says why', async () => {
      const p = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-jsonapi-index.json'));
      expect(p.entities).to.deep.equal([]);
      expect(p.summary.counts).to.deep.equal({});
      expect(p.summary.blockedReasons).to.have.length(1);
      // 62 links in the README's count = 61 resource collections + `self`.
      expect(p.summary.blockedReasons[0]).to.match(/JSON:API entry point \(links to 61 resource collections.*not content/);
    });

    it('externalIds are stable across two runs', async () => {
      const a = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-recipes.jsonapi.json'));
      const b = await parse(parsePhpCms, fixture('php_cms', 'drupal-umami-recipes.jsonapi.json'));
      expect(a.entities.map((e) => e.externalId)).to.deep.equal(b.entities.map((e) => e.externalId));
      expect(new Set(a.entities.map((e) => e.externalId)).size).to.equal(9);
    });

    it('a tar.gz of several JSON:API files (with a compound document, a file and a config resource) imports them all', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cms-drupal-tar-'));
      dirs.push(dir);
      const compound = JSON.stringify({
        jsonapi: { version: '1.0' },
        data: [
          {
            type: 'taxonomy_term--tags',
            id: 't-1',
            attributes: { name: 'Baking', langcode: 'en', default_langcode: true, description: null },
            relationships: {},
            links: {},
          },
        ],
        included: [
          {
            type: 'file--file',
            id: 'f-1',
            attributes: {
              filename: 'quiche.jpg',
              filemime: 'image/jpeg',
              uri: { value: 'public://quiche.jpg', url: '/sites/default/files/quiche.jpg' },
            },
            links: { self: { href: 'https://umami.example/jsonapi/file/file/f-1' } },
          },
          {
            type: 'media--image',
            id: 'm-1',
            attributes: { name: 'Quiche' },
            relationships: { field_media_image: { data: { type: 'file--file', id: 'f-1' } } },
          },
          { type: 'node_type--node_type', id: 'nt-1', attributes: {} },
        ],
      });
      const tar = tarOf([
        { path: 'export/recipes.json', body: readFileSync(fixture('php_cms', 'drupal-umami-recipes.jsonapi.json')) },
        { path: 'export/articles-en.json', body: readFileSync(fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json')) },
        { path: 'export/articles-es.json', body: readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json')) },
        { path: 'export/index.json', body: readFileSync(fixture('php_cms', 'drupal-umami-jsonapi-index.json')) },
        { path: 'export/tags.json', body: compound },
        { path: '../outside.json', body: '{}' },
      ]);
      const path = join(dir, 'drupal-export.tar.gz');
      writeFileSync(path, tar);
      const p = await parse(parsePhpCms, path);
      expect(p.summary.counts).to.deep.equal({ articles: 16, recipes: 9, tags: 1, attachments: 1, media: 1 });
      expect(p.summary.blockedReasons).to.deep.equal([]);
      const file = of(p, 'attachments')[0];
      expect(file.file).to.deep.equal({
        filename: 'quiche.jpg',
        url: 'https://umami.example/sites/default/files/quiche.jpg',
        mimeType: 'image/jpeg',
      });
      expect(of(p, 'media')[0].data).to.include({ bundle: 'image', field_media_image: 'f-1', name: 'Quiche' });
      expect(p.summary.fields.media.field_media_image).to.equal('media');
      const warnings = messages(p).join('\n');
      expect(warnings).to.match(/index\.json is the JSON:API entry point/);
      expect(warnings).to.match(/\.\.\/outside\.json refused/);
      expect(warnings).to.match(/configuration, not content: 1 node_type--node_type/);
      expect(existsSync(join(p.workDir, '..', 'outside.json'))).to.equal(false);
    });
  });

  describe('node_cms (Strapi data-transfer exports)', () => {
    it('Strapi 4 dashboard export: 11 customers, 12 invoices, 13 revenues, 13 uploads with their files; no accounts', async () => {
      const p = await parse(parseNodeCms, fixture('node_cms', 'strapi4-dashboard-export.tar.gz'));
      expect(p.summary.counts).to.deep.equal({ attachments: 13, customers: 11, invoices: 12, revenues: 13 });
      expect(p.summary.blockedReasons).to.deep.equal([]);
      // 88 entities in the README: 49 content rows + 39 internal rows (35 permissions, 2 roles, 1 user, 1 locale).
      const skipped = messages(p).find((m) => m.startsWith('skipped Strapi internal types'))!;
      expect(skipped)
        .to.contain('35 plugin::users-permissions.permission')
        .and.contain('2 plugin::users-permissions.role')
        .and.contain('1 plugin::users-permissions.user')
        .and.contain('1 plugin::i18n.locale');
      expect(p.spool).to.not.match(/\$2[aby]\$/);
      expect(p.spool).to.not.contain('testuser@email.com');
      for (const f of of(p, 'attachments')) {
        expect(f.file!.path, f.externalId).to.be.a('string');
        expect(f.file!.path!.startsWith(p.workDir)).to.equal(true);
        expect(statSync(f.file!.path!).size).to.be.greaterThan(0);
      }
      const rabbit = of(p, 'attachments').find((f) => f.data.name === 'evil-rabbit.png')!;
      expect(rabbit.file).to.include({ filename: 'evil-rabbit.png', mimeType: 'image/png' });
      expect(statSync(rabbit.file!.path!).size).to.equal(450);
      // links/: invoice -> customer (relation), customer image (media, a morph link from the file).
      const invoice = of(p, 'invoices').find((i) => i.externalId === 'invoice:1')!;
      expect(invoice.data.customer).to.match(/^customer:\d+$/);
      expect(invoice.data).to.include({ amount: 15795, status: 'paid', date: '2022-12-06' });
      expect(invoice.status).to.equal(undefined);
      const withImage = of(p, 'customers').filter((c) => typeof c.data.image === 'string');
      expect(withImage).to.have.length(11);
      expect(p.summary.fields.customers).to.include({ image: 'media', name: 'text', email: 'text' });
      expect(p.summary.fields.invoices).to.include({ customer: 'relation', amount: 'number', date: 'date' });
    });

    it('Strapi 5 starter export: draft + published rows fold into one entry per document; components kept as JSON', async () => {
      const p = await parse(parseNodeCms, fixture('node_cms', 'strapi5-rr7-starter-export.tar.gz'));
      // README: 12 article rows = 6 documents x draft + published.
      expect(p.summary.counts).to.deep.equal({ attachments: 8, articles: 6, authors: 1, globals: 1, landing_pages: 1, pages: 2, tags: 3 });
      expect(messages(p)).to.include('11 draft row(s) of documents that also have a published version were folded into that entry');
      expect(p.spool).to.not.match(/\$2[aby]\$/);
      expect(p.spool).to.not.contain('jackiebrown@email.com');
      const articles = of(p, 'articles');
      expect(new Set(articles.map((a) => a.externalId)).size).to.equal(6);
      for (const a of articles) {
        expect(a.externalId).to.match(/^article:[a-z0-9]{24}$/);
        expect(a.status).to.equal('published');
        expect(a.data.publishedAt).to.be.a('string');
        expect(a.data).to.not.have.any.keys('documentId', 'createdBy', 'updatedBy', 'localizations');
      }
      const js = articles.find((a) => a.data.slug === 'why-java-script-is-still-the-most-popular-programming-language')!;
      expect(js.data.author).to.equal('author:k4510nw2eyzzz0udzxkq0vpm');
      expect(js.data.contentTags).to.deep.equal(['tag:ynz9y1i6fgnony4pevrta8vw']);
      expect(js.data.featuredImage).to.match(/^file:/);
      expect(js.data.content).to.match(/^## Introduction/);
      expect(p.summary.fields.articles).to.include({
        content: 'richtext',
        author: 'relation',
        contentTags: 'relation',
        featuredImage: 'media',
        blocks: 'json',
      });
      const landing = of(p, 'landing_pages')[0];
      const blocks = landing.data.blocks as Array<{ __component: string }>;
      expect(blocks.map((b) => b.__component)).to.include('blocks.hero');
      const svg = of(p, 'attachments').find((f) => f.data.name === 'logo.svg')!;
      expect(svg.file).to.include({ filename: 'logo.svg', mimeType: 'image/svg+xml' });
      expect(readFileSync(svg.file!.path!, 'utf8')).to.contain('<svg');
      expect(of(p, 'tags').every((t) => t.status === undefined)).to.equal(true);
    });

    it('macOS-repacked Strapi 4 export: AppleDouble junk skipped with warnings; no metadata, links or assets reported; 62 entities -> 42 content rows', async () => {
      const p = await parse(parseNodeCms, fixture('node_cms', 'strapi4-macos-repacked-export.tar.gz'));
      expect(p.summary.counts).to.deep.equal({
        attachments: 22,
        articles: 7,
        authors: 2,
        categories: 3,
        globals: 1,
        pages: 2,
        product_features: 5,
      });
      const w = messages(p).join('\n');
      for (const f of ['configuration/._configuration_00001.jsonl', 'entities/._entities_00001.jsonl', 'schemas/._schemas_00001.jsonl']) {
        expect(w).to.contain(`archive entry ${f} skipped: macOS metadata`);
      }
      expect(w).to.match(/no metadata\.json/);
      expect(w).to.match(/no links\/ folder/);
      expect(w).to.match(/22 upload\(s\) have no file in assets\/uploads/);
      expect(w).to.match(/16 plugin::users-permissions\.permission, 3 plugin::users-permissions\.role/);
      for (const f of of(p, 'attachments')) expect(f.file!.path).to.equal(undefined);
      expect(of(p, 'articles').every((a) => a.status === 'published')).to.equal(true);
    });

    it('externalIds are stable across two runs', async () => {
      const a = await parse(parseNodeCms, fixture('node_cms', 'strapi5-rr7-starter-export.tar.gz'));
      const b = await parse(parseNodeCms, fixture('node_cms', 'strapi5-rr7-starter-export.tar.gz'));
      expect(a.entities.map((e) => `${e.entity}/${e.externalId}`)).to.deep.equal(b.entities.map((e) => `${e.entity}/${e.externalId}`));
    });

    it('a saved Strapi 4 REST response: items flattened, nested media as attachments, pagination warned', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cms-strapi-rest-'));
      dirs.push(dir);
      const path = join(dir, 'articles.json');
      writeFileSync(
        path,
        JSON.stringify({
          data: [
            {
              id: 1,
              attributes: {
                title: 'Hello',
                body: 'Text',
                publishedAt: '2024-01-01T00:00:00.000Z',
                cover: { data: { id: 7, attributes: { name: 'c.png', url: 'https://cdn.example/c.png', mime: 'image/png' } } },
                category: { data: { id: 3, attributes: { name: 'News' } } },
                tags: { data: [] },
              },
            },
            {
              id: 2,
              attributes: {
                title: 'Draft one',
                body: null,
                publishedAt: null,
                cover: { data: null },
                category: { data: null },
                tags: { data: [{ id: 4, attributes: { name: 'x' } }] },
              },
            },
          ],
          meta: { pagination: { page: 1, pageSize: 2, pageCount: 3, total: 6 } },
        }),
      );
      const p = await parse(parseNodeCms, path);
      expect(p.summary.counts).to.deep.equal({ attachments: 1, articles: 2 });
      const [a, b] = of(p, 'articles');
      expect(a).to.deep.include({ externalId: '1', status: 'published' });
      expect(a.data).to.deep.include({ title: 'Hello', cover: 'file:7', category: '3', tags: [] });
      expect(b).to.deep.include({ externalId: '2', status: 'draft' });
      expect(b.data).to.deep.include({ cover: null, category: null, tags: ['4'] });
      expect(of(p, 'attachments')[0].file).to.deep.equal({ filename: 'c.png', url: 'https://cdn.example/c.png', mimeType: 'image/png' });
      expect(messages(p)).to.include("the response is page 1 of 3 (6 entries in all): only this page's entries are in the file");
    });

    it('a Strapi 5 REST response (flat items with documentId) and an encrypted export', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cms-strapi-rest5-'));
      dirs.push(dir);
      const path = join(dir, 'pages.json');
      writeFileSync(
        path,
        JSON.stringify({
          data: [{ id: 4, documentId: 'abc123', title: 'About', author: { id: 1, documentId: 'auth1', name: 'Ada' }, publishedAt: null }],
          meta: { pagination: { page: 1, pageCount: 1 } },
        }),
      );
      const p = await parse(parseNodeCms, path);
      expect(p.entities).to.deep.equal([
        { entity: 'pages', externalId: 'abc123', data: { title: 'About', author: 'auth1', publishedAt: null }, status: 'draft', line: 1 },
      ]);
      const enc = join(dir, 'backup.tar.gz.enc');
      writeFileSync(enc, Buffer.from([0x53, 0x61, 0x6c, 0x74, 1, 2, 3, 4]));
      const e = await parse(parseNodeCms, enc);
      expect(e.summary.blockedReasons[0]).to.match(/encrypted Strapi export.*not supported/);
    });
  });

  describe('data_cms (Directus)', () => {
    it('website posts: 6 posts, statuses published 3 / draft 2 / in_review 1 (-> draft), UUID foreign keys as relations', async () => {
      const p = await parse(parseDataCms, fixture('data_cms', 'directus-simple-website-cms-posts.json'));
      expect(p.summary.counts).to.deep.equal({ posts: 6 });
      const posts = of(p, 'posts');
      const raw = posts.map((x) => x.data.status);
      expect(raw.filter((s) => s === 'published')).to.have.length(3);
      expect(raw.filter((s) => s === 'draft')).to.have.length(2);
      expect(raw.filter((s) => s === 'in_review')).to.have.length(1);
      expect(posts.filter((x) => x.status === 'published')).to.have.length(3);
      expect(posts.filter((x) => x.status === 'draft')).to.have.length(3);
      expect(posts.filter((x) => x.data.published_at === null)).to.have.length(3);
      expect(posts[0].externalId).to.equal('c96b64b4-9567-46f6-8eb5-ac2f37c4918d');
      expect(posts[0].data.seo).to.be.an('object');
      expect(p.summary.fields.posts).to.include({
        content: 'richtext',
        author: 'relation',
        image: 'media',
        user_created: 'relation',
        seo: 'json',
        date_created: 'date',
      });
    });

    it('e-commerce products: 2 products; O2M arrays of UUIDs as relations, images as media, colour array as JSON', async () => {
      const p = await parse(parseDataCms, fixture('data_cms', 'directus-simple-ecommerce-products.json'));
      expect(p.summary.counts).to.deep.equal({ products: 2 });
      const [tumbler] = of(p, 'products');
      expect(tumbler.data.color).to.deep.equal(['White']);
      expect(tumbler.data.size).to.equal(null);
      expect(tumbler.data.sort).to.equal(null);
      expect(tumbler.status).to.equal('published');
      expect(p.summary.fields.products).to.include({
        variants: 'relation',
        images: 'media',
        thumbnail: 'media',
        category: 'relation',
        color: 'json',
        description: 'richtext',
      });
    });

    it('help-center translations: the 6 rows of the junction are the languages (en-US, fr-FR) of their parents `help_articles`', async () => {
      const source = JSON.parse(readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json'), 'utf8')) as Array<
        Record<string, unknown>
      >;
      const p = await parse(parseDataCms, fixture('data_cms', 'directus-help-center-articles-translations.json'));
      expect(p.summary.counts).to.deep.equal({ help_articles: 6 });
      expect(p.summary.locales).to.deep.equal({ help_articles: { 'fr-FR': 2, 'en-US': 4 } });
      for (const row of source) {
        const e = of(p, 'help_articles').find((x) => x.externalId === row.help_articles_id && x.locale === row.languages_code)!;
        expect(e.data.title).to.equal(row.title);
        expect(e.data.content).to.equal(row.content);
        expect(e.data).to.not.have.property('languages_code');
        expect(e.data).to.not.have.property('help_articles_id');
      }
      expect(p.spool).to.match(/Apprenez à personnaliser/);
      const named = await parse(parseDataCms, fixture('data_cms', 'directus-help-center-articles-translations.json'), {
        options: { collection: 'article_translations' },
      });
      expect(named.summary.counts).to.deep.equal({ article_translations: 6 });
    });

    it('schema snapshot: recognised, 0 items, 8 collections with tables typed from the snapshot, a warning', async () => {
      const p = await parse(parseDataCms, fixture('data_cms', 'directus-help-center-schema-snapshot.json'));
      expect(p.entities).to.deep.equal([]);
      expect(p.summary.blockedReasons).to.deep.equal([]);
      // README: 9 collections, one of them the folder `help` with no table.
      expect(Object.keys(p.summary.counts).sort()).to.deep.equal([
        'help_articles',
        'help_articles_translations',
        'help_collections',
        'help_collections_translations',
        'help_feedback',
        'help_settings',
        'help_settings_translations',
        'languages',
      ]);
      expect(Object.values(p.summary.counts).every((n) => n === 0)).to.equal(true);
      expect(p.summary.fields.help_articles).to.include({ date_created: 'date', help_collection: 'relation' });
      expect(messages(p)[0]).to.match(
        /Directus 11\.1\.0 schema snapshot \(8 collections with tables, 56 fields, 15 relations\), not content/,
      );
    });

    it('a `{data: [...]}` response and a file with a bad item', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cms-directus-'));
      dirs.push(dir);
      const path = join(dir, 'pages.json');
      writeFileSync(
        path,
        JSON.stringify({
          data: [
            { id: 1, status: 'archived', title: 'Old', date_created: '2024-01-01T00:00:00Z' },
            'oops',
            { title: 'no id' },
            { id: 1, title: 'dup' },
          ],
        }),
      );
      const p = await parse(parseDataCms, path);
      expect(p.entities).to.have.length(1);
      expect(p.entities[0]).to.deep.include({ entity: 'pages', externalId: '1', status: 'draft' });
      expect(p.summary.warnings).to.deep.equal([
        { message: 'item 2 is not an object, skipped', line: 2 },
        { message: 'item 3 has no id, skipped', line: 3 },
        { message: 'item 4: id 1 appears twice, the later copy was skipped', line: 4 },
      ]);
    });
  });

  describe('broken input comes back as data, never a crash', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'cms-broken-'));
      dirs.push(dir);
    });
    const write = (name: string, body: string | Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, body);
      return path;
    };

    it('truncated JSON: what was read before the break imports, with a warning; nothing read -> blocked', async () => {
      const text = readFileSync(fixture('php_cms', 'drupal-umami-recipes.jsonapi.json'), 'utf8');
      const cut = text.slice(0, Math.floor(text.length * 0.6));
      const p = await parse(parsePhpCms, write('cut.json', cut));
      expect(p.summary.counts.recipes).to.be.greaterThan(0).and.lessThan(9);
      expect(messages(p).some((m) => /not valid JSON/.test(m))).to.equal(true);
      const empty = await parse(parseDataCms, write('empty.json', '[{"id": 1, "title": '));
      expect(empty.summary.blockedReasons).to.have.length(1);
      const notJson = await parse(parsePhpCms, write('plain.json', 'hello'));
      expect(notJson.summary.blockedReasons).to.have.length(1);
    });

    it('a UTF-8 BOM is dropped, and a UTF-16LE export (as the profile reports it) is decoded', async () => {
      const text = readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json'), 'utf8');
      const bom = await parse(parseDataCms, write('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])));
      expect(bom.summary.counts).to.deep.equal({ help_articles: 6 });
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const p = await parse(parseDataCms, write('utf16.json', utf16), {
        profile: { container: 'plain', encoding: 'utf-16le', bom: true, kind: 'json' },
      });
      expect(p.summary.counts).to.deep.equal({ help_articles: 6 });
      expect(p.spool).to.match(/Apprenez à personnaliser/);
    });

    it('records nested past maxDepth are skipped with a warning before they are built', async () => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 50; i++) deep = { d: deep };
      const path = write(
        'deep.json',
        JSON.stringify([
          { id: 1, date_created: '2024-01-01', v: 1 },
          { id: 2, date_created: '2024-01-01', v: deep },
        ]),
      );
      const p = await parse(parseDataCms, path);
      expect(p.entities.map((e) => e.externalId)).to.deep.equal(['1']);
      expect(p.summary.warnings).to.deep.equal([{ message: 'record nested deeper than 32 levels, skipped', line: 2 }]);
    });

    it('a Strapi export with a broken JSONL line, a path traversal and a symlink: the rest imports', async () => {
      const entities = [
        JSON.stringify({ type: 'api::post.post', id: 1, data: { title: 'One', publishedAt: null } }),
        '{"type": "api::post.post", "id": 2, "data": {',
        JSON.stringify({
          type: 'admin::user',
          id: 1,
          data: { email: 'a@b.c', password: '$2a$10$abcdefghijklmnopqrstuuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0' },
        }),
        JSON.stringify({ type: 'api::post.post', id: 3, data: { title: 'Three', publishedAt: '2024-01-01T00:00:00Z' } }),
      ].join('\n');
      const schema = JSON.stringify({
        uid: 'api::post.post',
        info: { singularName: 'post', pluralName: 'posts' },
        options: { draftAndPublish: true },
        attributes: { title: { type: 'string' } },
      });
      const path = write(
        'broken-export.tar.gz',
        tarOf([
          { path: 'metadata.json', body: '{"strapi":{"version":"4.20.0"}}' },
          { path: 'schemas/schemas_00001.jsonl', body: schema },
          { path: 'entities/entities_00001.jsonl', body: entities },
          { path: '../../evil.jsonl', body: 'x' },
          { path: 'assets/uploads/link.png', type: 'SymbolicLink', linkpath: '/etc/passwd' },
        ]),
      );
      const p = await parse(parseNodeCms, path);
      expect(p.summary.counts).to.deep.equal({ posts: 2 });
      expect(of(p, 'posts').map((e) => [e.externalId, e.status])).to.deep.equal([
        ['post:1', 'draft'],
        ['post:3', 'published'],
      ]);
      const w = p.summary.warnings;
      expect(w).to.deep.include({ message: 'entities/entities_00001.jsonl line 2 is not valid JSON, skipped', line: 2 });
      expect(w.map((x) => x.message)).to.include.members([
        'archive entry ../../evil.jsonl refused: path leaves the archive folder (..)',
        'archive entry assets/uploads/link.png refused: symbolic link',
        'skipped Strapi internal types (accounts, permissions and credentials are never imported): 1 admin::user',
      ]);
      expect(p.spool).to.not.contain('$2a$');
    });

    it('Strapi i18n (hand-made): a Strapi 5 document in two languages and a Strapi 4 entry with its localizations are one external id each, with their locales and per-language status', async () => {
      const schema = JSON.stringify({
        uid: 'api::post.post',
        info: { singularName: 'post', pluralName: 'posts' },
        options: { draftAndPublish: true },
        pluginOptions: { i18n: { localized: true } },
        attributes: { title: { type: 'string' } },
      });
      const v5 = [
        { type: 'api::post.post', id: 1, data: { documentId: 'doc1', title: 'Hello', locale: 'en', publishedAt: null } },
        {
          type: 'api::post.post',
          id: 2,
          data: { documentId: 'doc1', title: 'Hello', locale: 'en', publishedAt: '2025-01-01T00:00:00.000Z' },
        },
        { type: 'api::post.post', id: 3, data: { documentId: 'doc1', title: 'Bonjour', locale: 'fr', publishedAt: null } },
      ];
      const p5 = await parse(
        parseNodeCms,
        write(
          'strapi5-i18n.tar.gz',
          tarOf([
            { path: 'metadata.json', body: '{"strapi":{"version":"5.20.0"}}' },
            { path: 'schemas/schemas_00001.jsonl', body: schema },
            { path: 'entities/entities_00001.jsonl', body: v5.map((r) => JSON.stringify(r)).join('\n') },
          ]),
        ),
      );
      expect(p5.summary.counts).to.deep.equal({ posts: 2 });
      expect(p5.summary.locales).to.deep.equal({ posts: { en: 1, fr: 1 } });
      expect(of(p5, 'posts').map((e) => [e.externalId, e.locale, e.status, e.data.title])).to.deep.equal([
        ['post:doc1', 'en', 'published', 'Hello'],
        ['post:doc1', 'fr', 'draft', 'Bonjour'],
      ]);
      expect(of(p5, 'posts').every((e) => !('locale' in e.data))).to.equal(true);

      const v4 = [
        { type: 'api::post.post', id: 7, data: { title: 'Hallo', locale: 'de', publishedAt: '2024-01-01T00:00:00.000Z' } },
        { type: 'api::post.post', id: 5, data: { title: 'Hello', locale: 'en', publishedAt: '2024-01-01T00:00:00.000Z' } },
      ];
      const links = [
        {
          kind: 'relation.basic',
          relation: 'manyToMany',
          left: { type: 'api::post.post', ref: 5, field: 'localizations' },
          right: { type: 'api::post.post', ref: 7 },
        },
        {
          kind: 'relation.basic',
          relation: 'manyToMany',
          left: { type: 'api::post.post', ref: 7, field: 'localizations' },
          right: { type: 'api::post.post', ref: 5 },
        },
      ];
      const p4 = await parse(
        parseNodeCms,
        write(
          'strapi4-i18n.tar.gz',
          tarOf([
            { path: 'metadata.json', body: '{"strapi":{"version":"4.20.0"}}' },
            { path: 'schemas/schemas_00001.jsonl', body: schema },
            { path: 'entities/entities_00001.jsonl', body: v4.map((r) => JSON.stringify(r)).join('\n') },
            { path: 'links/links_00001.jsonl', body: links.map((r) => JSON.stringify(r)).join('\n') },
          ]),
        ),
      );
      expect(of(p4, 'posts').map((e) => [e.externalId, e.locale, e.data.title])).to.deep.equal([
        ['post:5', 'de', 'Hallo'],
        ['post:5', 'en', 'Hello'],
      ]);
      expect(of(p4, 'posts').every((e) => !('localizations' in e.data))).to.equal(true);
    });

    it('a tar.gz that is not a Strapi export, and a gzip that is not a tar: blocked with a reason', async () => {
      const other = await parse(parseNodeCms, write('other.tar.gz', tarOf([{ path: 'readme.txt', body: 'hi' }])));
      expect(other.summary.blockedReasons).to.deep.equal(['not a Strapi data-transfer export: no entities/*.jsonl in the archive']);
      const junk = await parse(parseNodeCms, write('junk.tar.gz', gzipSync(Buffer.from('nothing to see'))));
      expect(junk.summary.blockedReasons).to.have.length(1);
      const drupalJunk = await parse(parsePhpCms, write('junk2.tar.gz', gzipSync(Buffer.from('nothing to see'))));
      expect(drupalJunk.summary.blockedReasons).to.have.length(1);
    });

    it('bad task input is refused as data', async () => {
      const r = await parseDataCms({ path: 5 } as any);
      expect(r).to.deep.equal({ ok: false, issues: [{ code: 'INVALID_INPUT', message: 'path must be a non-empty string' }] });
      const missing = await parseDataCms({
        path: join(dir, 'nope.json'),
        filename: 'nope.json',
        workDir: dir,
        spoolPath: join(dir, 'nope.ndjson'),
        maxDepth: 32,
        profile: {} as any,
      });
      expect(missing).to.deep.equal({ ok: false, issues: [{ code: 'FILE_NOT_FOUND', message: 'cannot read nope.json' }] });
    });
  });
});

/** A gzip-compressed hand-built tar, its headers without owner (so it can hold entries no well-behaved tool writes). */
function tarOf(members: TarMember[]): Buffer {
  return gzipSync(handBuiltTar(members, { ownerless: true }));
}
