import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ImportedEntity, ImportFormat, ImportParseSummary, ImportProfile } from '../../plugins/importers/public.js';
import { detectWxr } from '../../plugins/import-wxr/detect-wxr.js';
import { parseWxr } from '../../plugins/import-wxr/parse-task.js';
import { importProfile } from '../../workers/import/profile.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { pollImportJob, validateUpload } from '../helpers/importers.js';
import { postAs } from '../helpers/content.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

/** The shared real-world fixtures (../shared/fixtures/imports next to the checkout, or CMS_IMPORT_FIXTURES). */
const FIXTURES = IMPORT_FIXTURES;
const WXR = (name: string) => join(FIXTURES, 'xml_blog', name);

interface Parsed {
  summary: ImportParseSummary;
  entities: ImportedEntity[];
  of(entity: string): ImportedEntity[];
  one(entity: string, externalId: string): ImportedEntity;
}

let work: string;
let runs = 0;

async function parse(path: string, profile: Partial<ImportProfile> = { encoding: 'utf-8' }): Promise<Parsed> {
  const spoolPath = join(work, `spool-${++runs}.ndjson`);
  const result = await parseWxr({
    path,
    filename: basename(path),
    workDir: work,
    spoolPath,
    profile: profile as ImportProfile,
    maxDepth: 32,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const entities = readFileSync(spoolPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ImportedEntity);
  const of = (entity: string) => entities.filter((e) => e.entity === entity);
  return {
    summary: result.value,
    entities,
    of,
    one(entity, externalId) {
      const found = entities.find((e) => e.entity === entity && e.externalId === externalId);
      if (!found) throw new Error(`no ${entity} ${externalId}`);
      return found;
    },
  };
}

const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
/** The counts of the records the file declares (summary.referenced counts those made from undeclared references). */
const declaredCounts = (s: Parsed['summary']) =>
  Object.fromEntries(Object.entries(s.counts).map(([entity, n]) => [entity, n - (s.referenced?.[entity] ?? 0)]));
/** Postmeta keys of the item entities (custom and internal). */
const postmetaKeys = (p: Parsed) =>
  p.entities
    .filter((e) => !['authors', 'categories', 'tags', 'terms', 'comments'].includes(e.entity))
    .reduce((n, e) => n + Object.keys((e.data.meta as object) ?? {}).length + Object.keys((e.data.internalMeta as object) ?? {}).length, 0);
const writeFile = (name: string, content: string | Buffer) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};
const wxr = (body: string, head = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${head}<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">\n<channel>\n<wp:wxr_version>1.2</wp:wxr_version>\n${body}\n</channel>\n</rss>\n`;

/**
 * Counts per fixture, from xml_blog/README.md, as entities. Where an entity count differs from a raw
 * element count of the README, a test below says why (wp:term repeating categories and tags,
 * namespace URIs that are not WXR's).
 */
const EXPECTED: Record<string, Record<string, number>> = {
  'wp-theme-unit-test-data.xml': {
    posts: 58,
    pages: 21,
    attachments: 37,
    nav_menu_items: 70,
    categories: 68,
    tags: 110,
    terms: 6,
    authors: 2,
    comments: 33,
  },
  'wp-block-test-data-64.xml': {
    posts: 61,
    pages: 1,
    attachments: 9,
    wp_navigations: 1,
    categories: 7,
    tags: 4,
    terms: 2,
    comments: 2,
    authors: 2,
  },
  'wpimporter-valid-wxr-1.0.xml': { posts: 3, pages: 3, categories: 5, tags: 4, comments: 1 },
  'wpimporter-valid-wxr-1.1.xml': { posts: 1, pages: 1, categories: 1, tags: 1, terms: 1, authors: 1, comments: 1 },
  'wpimporter-small-export.xml': { posts: 6, pages: 5, categories: 30, tags: 3, authors: 3, comments: 1 },
  'wpimporter-large-authors.xml': { authors: 300 },
  'wpimporter-authors-multiline.xml': { authors: 3, posts: 1 },
  'wpimporter-term-formats.xml': { categories: 2, tags: 3, terms: 2 },
  'wpimporter-wxr-with-sub-data.xml': { posts: 1, comments: 1, terms: 1 },
  'wpimporter-wxr-flat-attachment-different-site.xml': { posts: 1, attachments: 1, authors: 1 },
  'wpimporter-missing-tags.xml': { posts: 1 },
  'wpimporter-post-content-blank-lines.xml': { posts: 1, authors: 1 },
  'ghost-wpxml-co-authors-plus.xml': { posts: 4, authors: 3 },
  'ghost-wpxml-has-meta.xml': { enmse_messages: 1, categories: 1, authors: 2 },
  'ghost-wpxml-has-yoast-meta.xml': { posts: 2, authors: 1 },
  'ghost-wpxml-split-posts-only.xml': { posts: 3, customcpts: 1, categories: 1, authors: 2 },
  'ghost-wpxml-split-pages-only.xml': { pages: 1, authors: 1 },
  'wpimporter-wxr-utf-8-challenges.xml': { posts: 1, authors: 1 },
  'wpimporter-namespace-edge-cases.xml': { posts: 6, authors: 2, categories: 2 },
  'wpimporter-crazy-cdata-escaped.xml': { posts: 1 },
  'wpimporter-multiple-cdata.xml': { posts: 1 },
  'wpimporter-cdata-edge.xml': { posts: 1 },
  'wpimporter-backslashes.xml': { posts: 1 },
  'wpimporter-slashes.xml': { posts: 1, comments: 1, categories: 1, tags: 1, authors: 1 },
  'wpimporter-test-serialized-postmeta-with-cdata.xml': { posts: 1 },
  'wpimporter-test-serialized-postmeta-no-cdata.xml': { posts: 1 },
  'wpimporter-test-serialized-comment-meta.xml': { posts: 1, comments: 1 },
  'wpimporter-test-serialized-term-meta.xml': { posts: 1, categories: 1, tags: 1, terms: 1 },
  // Not well-formed or non-conforming (their warnings and blocked reasons are tested further down).
  'wpimporter-malformed.xml': { categories: 21, tags: 18, terms: 14, authors: 1 },
  'wpimporter-malformed-simple.xml': {},
  'wpimporter-crazy-cdata.xml': { posts: 1 },
  'wpimporter-missing-version-tag.xml': { categories: 21, tags: 18, terms: 14, authors: 1 },
  'wpimporter-invalid-version-tag.xml': { categories: 21, tags: 18, terms: 14, authors: 1 },
  'ghost-wpxml-sample.xml': { posts: 3, customcpts: 1, attachments: 1, pages: 1, categories: 1, authors: 2 },
  'ghost-wpxml-split-attachments-only.xml': { attachments: 1 },
};
/** README postmeta counts per fixture (no key repeats within an item in these). */
const POSTMETA: Record<string, number> = {
  'wpimporter-valid-wxr-1.0.xml': 13,
  'wpimporter-small-export.xml': 17,
  'ghost-wpxml-has-meta.xml': 6,
  'ghost-wpxml-has-yoast-meta.xml': 2,
  'wpimporter-wxr-utf-8-challenges.xml': 5,
  'wpimporter-crazy-cdata-escaped.xml': 3,
  'wpimporter-slashes.xml': 1,
  'wp-block-test-data-64.xml': 14,
  'wpimporter-test-serialized-postmeta-with-cdata.xml': 7,
  'wpimporter-test-serialized-postmeta-no-cdata.xml': 1,
};

describe('import format xml_blog (WordPress WXR)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(join(FIXTURES, 'xml_blog'))) this.skip();
    work = mkdtempSync(join(tmpdir(), 'cms-wxr-'));
  });
  after(() => work && rmSync(work, { recursive: true, force: true }));

  describe('the fixtures: counts as their README gives them', () => {
    it('covers every fixture of the folder', () => {
      const files = readdirSync(join(FIXTURES, 'xml_blog')).filter((f) => f.endsWith('.xml'));
      expect(files).to.have.length(35);
      expect(Object.keys(EXPECTED).sort()).to.deep.equal(files.sort());
    });

    for (const [file, counts] of Object.entries(EXPECTED)) {
      it(`${file}: ${JSON.stringify(counts)}`, async () => {
        const p = await parse(WXR(file));
        // The README counts what the file declares; records made from undeclared references (a post's category,
        // tag or author no wp:category, wp:tag or wp:author declares) are reported apart.
        expect(nonZero(declaredCounts(p.summary))).to.deep.equal(counts);
        for (const entity of Object.keys(counts)) {
          const ids = p.of(entity).map((e) => e.externalId);
          expect(new Set(ids).size, `${entity} external ids are unique`).to.equal(ids.length);
        }
        if (POSTMETA[file] !== undefined) expect(postmetaKeys(p)).to.equal(POSTMETA[file]);
      });
    }

    it('the theme unit test data: statuses, password, sticky, threads, pingbacks, parents, empty titles, 737 postmeta', async () => {
      const p = await parse(WXR('wp-theme-unit-test-data.xml'));
      const items = p.entities.filter((e) => ['posts', 'pages', 'attachments', 'nav_menu_items'].includes(e.entity));
      expect(items).to.have.length(186);
      const byStatus = (s: string) => items.filter((e) => e.data.postStatus === s).length;
      expect([byStatus('publish'), byStatus('inherit'), byStatus('future'), byStatus('draft')]).to.deep.equal([147, 37, 1, 1]);
      expect(items.filter((e) => e.data.passwordProtected === true)).to.have.length(1);
      expect(items.filter((e) => e.data.sticky === true)).to.have.length(1);
      expect(items.filter((e) => e.data.parent !== null)).to.have.length(73);
      expect(items.filter((e) => e.data.title === '')).to.have.length(48);
      expect(p.of('comments').filter((c) => c.data.parent !== null)).to.have.length(10);
      expect(p.of('comments').filter((c) => c.data.type === 'pingback')).to.have.length(2);
      // 737 postmeta: 735 keys, `enclosure` repeated in two posts (kept as an array of both values).
      expect(postmetaKeys(p)).to.equal(735);
      for (const id of ['21', '1730'])
        expect((p.one('posts', id).data.internalMeta as any).enclosure)
          .to.be.an('array')
          .with.length(2);
      // The 7 wp:term: one repeats a declared category (merged), 6 nav menus.
      expect(p.of('terms').every((t) => t.data.taxonomy === 'nav_menu')).to.equal(true);
      // 18 menu items are listed in two menus: both kept, the second under `<id>~2`, with a warning each.
      expect(p.of('nav_menu_items').filter((e) => e.externalId.endsWith('~2'))).to.have.length(18);
      expect(p.summary.warnings.filter((w) => w.message.includes('appears more than once'))).to.have.length(18);
      expect(p.summary.blockedReasons).to.deep.equal([]);
      expect(p.of('posts').find((e) => e.data.postStatus === 'publish')!.status).to.equal('published');
      expect(p.of('posts').find((e) => e.data.postStatus === 'draft')!.status).to.equal('draft');
      expect(p.of('attachments').every((a) => a.status === undefined && /^https?:/.test(a.file?.url ?? ''))).to.equal(true);
    });

    it('block editor data: a wp:term list repeating the categories and tags is merged, wp_navigation is its own entity', async () => {
      const p = await parse(WXR('wp-block-test-data-64.xml'));
      // README: 7 categories, 4 tags, 13 terms: 11 of the terms are those same categories and tags.
      expect(
        p
          .of('terms')
          .map((t) => t.data.taxonomy)
          .sort(),
      ).to.deep.equal(['wp_template_part_area', 'wp_theme']);
      expect(p.of('wp_navigations')[0]!.data.postType).to.equal('wp_navigation');
      expect(String(p.of('posts')[0]!.data.content)).to.match(/<!-- wp:/);
      expect(p.summary.warnings).to.deep.equal([]);
    });

    it('external ids are stable across two runs', async () => {
      const a = await parse(WXR('wp-theme-unit-test-data.xml'));
      const b = await parse(WXR('wp-theme-unit-test-data.xml'));
      expect(b.entities.map((e) => `${e.entity}/${e.externalId}`)).to.deep.equal(a.entities.map((e) => `${e.entity}/${e.externalId}`));
    });
  });

  describe('fields', () => {
    it('posts: title, slug, ISO dates, author, categories and tags by slug, terms, comments pointing at their post', async () => {
      const p = await parse(WXR('wpimporter-valid-wxr-1.1.xml'));
      const post = p.one('posts', '1');
      expect(post.status).to.equal('published');
      expect(post.data).to.include({
        title: 'Hello world!',
        slug: 'hello-world',
        date: '2010-10-16T20:53:18Z',
        author: 'john',
        wpId: 1,
        parent: null,
      });
      expect(post.data.categories).to.deep.equal(['alpha']);
      expect(post.data.tags).to.deep.equal(['clippable']);
      expect(post.data.terms).to.deep.equal([{ taxonomy: 'post_tax', slug: 'bieup', name: 'bieup' }]);
      expect(p.one('authors', 'john').data).to.include({ login: 'john', email: 'johndoe@example.org', displayName: 'John Doe', wpId: 2 });
      expect(p.one('terms', 'post_tax:bieup').data).to.include({ taxonomy: 'post_tax', name: 'bieup' });
      const comment = p.of('comments')[0]!;
      expect(comment.data).to.include({ post: '1', author: 'Mr WordPress', type: 'comment', parent: null });
      expect(comment.status).to.equal('published');
      expect(Object.keys(comment.data).join()).not.to.match(/ip/i);
      expect(p.summary.fields.posts).to.include({ content: 'richtext', author: 'relation', categories: 'relation', date: 'date' });
      expect(p.summary.fields.comments).to.include({ post: 'relation' });
    });

    it('custom fields: acfFields lists only the ACF-managed keys (7 custom fields, 4 ACF), not every custom field', async () => {
      const meta = (key: string, value: string) =>
        `<wp:postmeta><wp:meta_key><![CDATA[${key}]]></wp:meta_key><wp:meta_value><![CDATA[${value}]]></wp:meta_value></wp:postmeta>`;
      const item = (id: number, metas: string) =>
        `<item><title>Post ${id}</title><wp:post_id>${id}</wp:post_id><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>${metas}</item>`;
      const path = writeFile(
        'acf.xml',
        wxr(
          item(
            1,
            meta('subtitle', 'A subtitle') +
              meta('_subtitle', 'field_5f1a2b3c4d5e6') +
              meta('hero_image', '42') +
              meta('_hero_image', 'field_5f1a2b3c4d5e7') +
              meta('views', '17') +
              meta('plugin_setting', 'on'),
          ) +
            item(
              2,
              meta('price', '9.50') +
                meta('_price', 'field_60aa11bb22cc3') +
                meta('rating', '4') +
                meta('_rating', 'field_60aa11bb22cc4') +
                meta('views', '3') +
                meta('another_plugin', 'x') +
                meta('_another_plugin', 'not an acf key'),
            ),
        ),
      );
      const p = await parse(path);
      const customKeys = new Set(p.of('posts').flatMap((e) => Object.keys((e.data.meta as object) ?? {})));
      expect([...customKeys].sort()).to.deep.equal([
        'another_plugin',
        'hero_image',
        'plugin_setting',
        'price',
        'rating',
        'subtitle',
        'views',
      ]);
      expect(p.summary.acfFields).to.deep.equal(['hero_image', 'price', 'rating', 'subtitle']);
    });

    it('custom fields: plugin meta is no ACF field; serialized arrays decoded', async () => {
      const p = await parse(WXR('ghost-wpxml-has-meta.xml'));
      expect(p.summary.acfFields).to.deep.equal([]);
      const item = p.of('enmse_messages')[0]!;
      expect(item.data.postType).to.equal('enmse_message');
      expect(item.data.meta).to.include({ lorem1234: '433', ab_view_count: '394' });
      expect((item.data.internalMeta as any)._wp_attachment_metadata).to.include({ width: 3510, height: 1974 });
      expect((item.data.internalMeta as any)._et_dynamic_cached_shortcodes).to.deep.equal([]);
      const yoast = await parse(WXR('ghost-wpxml-has-yoast-meta.xml'));
      expect(yoast.summary.acfFields).to.deep.equal([]);
      expect(Object.keys(yoast.of('posts')[0]!.data.internalMeta as object).some((k) => k.startsWith('_yoast_wpseo_'))).to.equal(true);
    });

    it('attachments: the remote URL recorded with filename and MIME type, on any host, never fetched', async () => {
      const p = await parse(WXR('wpimporter-wxr-flat-attachment-different-site.xml'));
      const [att] = p.of('attachments');
      expect(att!.file!.url).to.match(/^https?:\/\//);
      expect(att!.file).to.not.have.property('path');
      expect(att!.file!.filename).to.match(/\.\w+$/);
      expect(att!.file!.mimeType).to.match(/^image\//);
      expect(att!.data.parent).to.equal(p.of('posts')[0]!.externalId);
    });

    it('only http(s) attachment URLs become files; others are warned about', async () => {
      const path = writeFile(
        'file-url.xml',
        wxr(
          `<item><title>x</title><wp:post_id>7</wp:post_id><wp:post_type>attachment</wp:post_type><wp:attachment_url>file:///etc/passwd</wp:attachment_url></item>`,
        ),
      );
      const p = await parse(path);
      expect(p.one('attachments', '7').file).to.equal(undefined);
      expect(p.summary.warnings.map((w) => w.message).join()).to.include('only http and https');
    });

    it('CDATA: adjacent sections concatenated, "]]>" split across sections, "]] >" kept, blank lines preserved, backslashes untouched', async () => {
      expect((await parse(WXR('wpimporter-multiple-cdata.xml'))).of('posts')[0]!.data.content).to.equal('line oneline twoline three');
      const escaped = (await parse(WXR('wpimporter-crazy-cdata-escaped.xml'))).of('posts')[0]!;
      expect(escaped.data.content).to.equal('Content with nested <![CDATA[ tags ]]> :)');
      expect(escaped.data.meta).to.deep.equal({
        'Plain string': 'Foo',
        'Closing CDATA': ']]>',
        'Alot of CDATA': 'This has <![CDATA[ opening and ]]> closing <![CDATA[ tags like this: ]]>',
      });
      expect(String((await parse(WXR('wpimporter-cdata-edge.xml'))).of('posts')[0]!.data.content)).to.match(/\]\] >$/);
      expect(String((await parse(WXR('wpimporter-post-content-blank-lines.xml'))).of('posts')[0]!.data.content)).to.match(/\n\n/);
      expect(String((await parse(WXR('wpimporter-backslashes.xml'))).of('posts')[0]!.data.content)).to.include('\\');
      const slashes = await parse(WXR('wpimporter-slashes.xml'));
      expect(String(slashes.of('posts')[0]!.data.content)).to.include("\\'");
      expect(String(slashes.of('comments')[0]!.data.content)).to.equal('\\o/ ¯\\_(ツ)_/¯');
    });

    it('multi-line ids and logins are trimmed; UTF-8 oddities (zero-width characters in a meta key, bidi, astral) are kept', async () => {
      const authors = (await parse(WXR('wpimporter-authors-multiline.xml'))).of('authors');
      for (const a of authors)
        expect(a.externalId)
          .to.equal(String(a.data.login))
          .and.not.match(/^\s|\s$/);
      const utf = await parse(WXR('wpimporter-wxr-utf-8-challenges.xml'));
      const post = utf.of('posts')[0]!;
      expect(String(post.data.title)).to.include('\u202e');
      expect(String(post.data.content)).to.include('🚀');
      expect(Object.keys(post.data.internalMeta as object).some((k) => /[\u200b-\u200d\u2060\ufeff]/.test(k))).to.equal(true);
      expect(utf.summary.warnings).to.deep.equal([]);
    });

    it('serialized PHP meta: plain data decoded, objects never (kept as the string)', async () => {
      const p = await parse(WXR('wpimporter-test-serialized-postmeta-with-cdata.xml'));
      const meta = p.of('posts')[0]!.data.meta as Record<string, unknown>;
      expect(meta['post-options']).to.deep.equal({ special_post_title: 'A special title', is_calendar: '' });
      expect(meta['array-nested']).to.deep.equal({ key: { foo: '¯\\_(ツ)_/¯', bar: '\\o/' } });
      expect(meta.evil).to.equal('<wp:meta_value>evil</wp:meta_value>');
      const comment = (await parse(WXR('wpimporter-test-serialized-comment-meta.xml'))).of('comments')[0]!;
      expect(Object.keys(comment.data.meta as object)).to.have.length(2);
      const terms = (await parse(WXR('wpimporter-test-serialized-term-meta.xml'))).entities.filter((e) => e.data.meta);
      expect(terms.reduce((n, e) => n + Object.keys(e.data.meta as object).length, 0)).to.equal(6);
      const value = 'O:8:"stdClass":1:{s:1:"a";i:1;}';
      const object = await parse(
        writeFile(
          'object.xml',
          wxr(
            `<item><wp:post_id>3</wp:post_id><wp:postmeta><wp:meta_key>obj</wp:meta_key><wp:meta_value><![CDATA[${value}]]></wp:meta_value></wp:postmeta></item>`,
          ),
        ),
      );
      expect((object.one('posts', '3').data.meta as any).obj).to.equal(value);
    });

    it('co-authors as author-taxonomy terms; custom post types; items without ids get a stable ordinal id', async () => {
      const cap = await parse(WXR('ghost-wpxml-co-authors-plus.xml'));
      expect(
        cap.of('posts').some((p) => ((p.data.terms as any[] | undefined) ?? []).filter((t) => t.taxonomy === 'author').length > 1),
      ).to.equal(true);
      const split = await parse(WXR('ghost-wpxml-split-posts-only.xml'));
      expect(split.of('customcpts')[0]!.data.postType).to.equal('customcpt');
      const post = (await parse(WXR('wpimporter-missing-tags.xml'))).of('posts')[0]!;
      expect(post.data).to.not.have.property('date');
      expect(post.data).to.not.have.property('author');
      expect(post.externalId).to.be.a('string').and.not.equal('');
    });

    it('namespaces are followed by URI, not prefix (WXR 1.0 and 1.1 URIs accepted, fake wp URIs ignored)', async () => {
      const p = await parse(WXR('wpimporter-namespace-edge-cases.xml'));
      expect(
        p
          .of('authors')
          .map((a) => a.externalId)
          .sort(),
      ).to.deep.equal(['real_user', 'version_conflict']);
      expect(
        p
          .of('categories')
          .map((c) => c.externalId)
          .sort(),
      ).to.deep.equal(['new-version', 'old-version']);
      expect(p.one('posts', '1').data.meta).to.deep.equal({ normal_key: 'normal_value' });
      expect(p.one('posts', '2').data.title).to.equal('No Prefix');
      // The item whose wp prefix was hijacked has no WXR fields: a post with an ordinal id, its fake meta ignored.
      const hijacked = p.of('posts').find((e) => e.data.title === 'Hijacked Namespace')!;
      expect(hijacked.externalId).to.equal('item-5');
      expect(hijacked.data).to.not.have.property('internalMeta');
      expect(String(p.of('posts').find((e) => e.data.title === 'Namespace Bomb')!.data.content)).to.equal('&lol1;'.repeat(10));
    });
  });

  describe('not well-formed and hostile files: warnings and blocked reasons, never a crash', () => {
    it('malformed-simple (truncated): blocked, naming the line', async () => {
      const p = await parse(WXR('wpimporter-malformed-simple.xml'));
      expect(p.entities).to.have.length(0);
      expect(p.summary.blockedReasons).to.have.length(1);
      expect(p.summary.blockedReasons[0]).to.match(/not well-formed XML at line 14.*unclosed tag: item/);
    });

    it('malformed (wrong close tag at the end): what was read before imports, with a warning at line 90', async () => {
      const p = await parse(WXR('wpimporter-malformed.xml'));
      expect(p.summary.blockedReasons).to.deep.equal([]);
      const warning = p.summary.warnings.find((w) => w.message.includes('not well-formed'))!;
      expect(warning.line).to.equal(90);
      expect(warning.message).to.include('unexpected close tag').and.include('54 records');
    });

    it('an item cut by a wrong close tag is not imported half', async () => {
      const path = writeFile(
        'cut.xml',
        wxr(`<item><wp:post_id>1</wp:post_id><title>ok</title></item>\n<item><wp:post_id>2</wp:post_id><title>cut</title>\n</channel>`),
      );
      const p = await parse(path);
      expect(p.of('posts').map((e) => e.externalId)).to.deep.equal(['1']);
      expect(p.summary.warnings.find((w) => w.message.includes('not well-formed'))!.line).to.equal(7);
    });

    it('crazy-cdata ("]]>" in character data): the post imports, a warning per place', async () => {
      const p = await parse(WXR('wpimporter-crazy-cdata.xml'));
      expect(p.summary.warnings.map((w) => w.line)).to.deep.equal([18, 38, 42]);
      expect(p.summary.warnings[0]!.message).to.include(']]>');
      expect(String(p.of('posts')[0]!.data.content)).to.include('Content with nested <![CDATA[ tags');
    });

    it('missing or invalid wxr_version: imported, with a warning', async () => {
      expect((await parse(WXR('wpimporter-missing-version-tag.xml'))).summary.warnings.map((w) => w.message)).to.deep.equal([
        'no <wp:wxr_version>: read as WXR 1.1',
      ]);
      expect((await parse(WXR('wpimporter-invalid-version-tag.xml'))).summary.warnings[0]!.message).to.include('"abc" is not a version');
    });

    it('raw "&" in URLs (ghost sample, split attachments): repaired with a warning per line, nothing lost', async () => {
      const p = await parse(WXR('ghost-wpxml-sample.xml'));
      expect(p.summary.warnings.map((w) => w.line)).to.deep.equal([109, 110]);
      expect(p.of('attachments')[0]!.file!.url).to.include('&ixid=');
      const split = await parse(WXR('ghost-wpxml-split-attachments-only.xml'));
      expect(split.summary.warnings.length).to.be.greaterThan(0);
      expect(split.of('attachments')[0]!.file!.url).to.match(/^https:\/\/images\.unsplash\.com\/.*&/);
    });

    it('an external entity (XXE) is never resolved: /etc/passwd is not read into the output', async () => {
      const path = writeFile(
        'xxe.xml',
        wxr(
          '<item><title>&xxe;</title><wp:post_id>1</wp:post_id><content:encoded>before &xxe; after</content:encoded></item>',
          '<!DOCTYPE rss [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n',
        ),
      );
      const p = await parse(path);
      expect(readFileSync(join(work, `spool-${runs}.ndjson`), 'utf8')).not.to.include('root:');
      expect(p.one('posts', '1').data).to.include({ title: '&xxe;', content: 'before &xxe; after' });
      const messages = p.summary.warnings.map((w) => w.message).join('\n');
      expect(messages).to.include('DOCTYPE declaration ignored').and.include('undefined entity');
    });

    it('a billion-laughs file does not expand', async () => {
      const entities = ['<!ENTITY lol "lol">'];
      for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
      const path = writeFile(
        'laughs.xml',
        wxr('<item><title>&lol9;</title><wp:post_id>1</wp:post_id></item>', `<!DOCTYPE rss [ ${entities.join(' ')} ]>\n`),
      );
      const p = await parse(path);
      expect(p.one('posts', '1').data.title).to.equal('&lol9;');
      expect(JSON.stringify(p.entities).length).to.be.lessThan(2000);
    });

    it('empty, not XML, not WordPress, another root, nothing inside: blocked with a clear reason', async () => {
      expect((await parse(writeFile('empty.xml', ''))).summary.blockedReasons).to.deep.equal(['the file is empty']);
      expect((await parse(writeFile('text.xml', 'just some text'))).summary.blockedReasons[0]).to.match(/not well-formed XML at line 1/);
      const rss = await parse(
        writeFile('rss.xml', '<?xml version="1.0"?><rss version="2.0"><channel><item><title>x</title></item></channel></rss>'),
      );
      expect(rss.summary.blockedReasons[0]).to.include('no WXR namespace');
      expect(
        (await parse(writeFile('feed.xml', '<feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>'))).summary.blockedReasons[0],
      ).to.include('root element is <feed>');
      expect((await parse(writeFile('nothing.xml', wxr('')))).summary.blockedReasons[0]).to.include('nothing to import');
    });

    it('wp: elements without the namespace declared: read as WXR 1.2, with a warning', async () => {
      const p = await parse(
        writeFile(
          'undeclared.xml',
          '<rss><channel><item><title>x</title><wp:post_id>4</wp:post_id><wp:post_type>page</wp:post_type></item></channel></rss>',
        ),
      );
      expect(p.of('pages').map((e) => e.externalId)).to.deep.equal(['4']);
      expect(p.summary.warnings[0]!.message).to.include('"wp" is used but never declared');
    });

    it('nesting deeper than the limit stops the parse before anything deep is written', async () => {
      const deep = `${'<x>'.repeat(5000)}${'</x>'.repeat(5000)}`;
      const p = await parse(
        writeFile('deep.xml', wxr(`<item><wp:post_id>1</wp:post_id></item><item><wp:post_id>2</wp:post_id>${deep}</item>`)),
      );
      expect(p.of('posts').map((e) => e.externalId)).to.deep.equal(['1']);
      expect(p.summary.warnings.find((w) => w.message.includes('nested deeper than'))).to.not.equal(undefined);
    });

    it('a UTF-16 file (as the profile reports it) is decoded', async () => {
      const text = wxr('<item><title>Grüße</title><wp:post_id>9</wp:post_id></item>').replace('UTF-8', 'UTF-16');
      const path = writeFile('utf16.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      const p = await parse(path, { encoding: 'utf-16le', bom: true });
      expect(p.one('posts', '9').data.title).to.equal('Grüße');
    });

    it('a missing file: blocked, not thrown', async () => {
      const p = await parse(join(work, 'does-not-exist.xml'));
      expect(p.summary.blockedReasons[0]).to.include('ENOENT');
    });
  });

  describe('detection from the upload profile', () => {
    const sample = (profile: ImportProfile, filename: string) => ({ filename, size: 0, head: Buffer.alloc(0), profile });
    const profileOf = async (path: string) => {
      const r = await importProfile({ path, filename: basename(path), maxDepth: 32 });
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      return r.value;
    };

    it('every xml_blog fixture scores at least 0.8', async () => {
      for (const file of Object.keys(EXPECTED)) {
        const score = detectWxr(sample(await profileOf(WXR(file)), file));
        expect(score, file).to.be.at.least(0.8);
      }
    });

    it("the other folders' fixtures score 0", async () => {
      for (const folder of readdirSync(FIXTURES).filter((f) => f !== 'xml_blog' && !f.includes('.'))) {
        for (const file of readdirSync(join(FIXTURES, folder)).filter((f) => f !== 'README.md')) {
          const score = detectWxr(sample(await profileOf(join(FIXTURES, folder, file)), file));
          expect(score, `${folder}/${file}`).to.equal(0);
        }
      }
    });

    it('plain RSS scores 0; rss with wp: elements but no namespace scores lower than real WXR', async () => {
      const rss = await profileOf(
        writeFile('plain-rss.xml', '<?xml version="1.0"?><rss version="2.0"><channel><item><title>x</title></item></channel></rss>'),
      );
      expect(detectWxr(sample(rss, 'plain-rss.xml'))).to.equal(0);
      const undeclared: ImportProfile = { ...rss, xml: { ...rss.xml!, elements: ['rss', 'channel', 'wp:wxr_version', 'item'] } };
      const real = detectWxr(sample(await profileOf(WXR('wpimporter-small-export.xml')), 'x.xml'));
      const weaker = detectWxr(sample(undeclared, 'x.xml'));
      expect(weaker).to.be.greaterThan(0).and.lessThan(real);
      expect(real).to.be.at.least(0.95);
    });
  });

  describe('in a kernel', () => {
    let t: TestKernel;
    before(async () => {
      t = await startTestKernel();
    });
    after(() => t?.close());

    it('registers xml_blog, and its task runs in the real worker pool', async () => {
      const format = t.kernel.registries.importFormats.get('xml_blog') as ImportFormat;
      expect(format).to.include({ label: 'WordPress (WXR)', parseTask: 'parseWxr' });
      expect(format.extensions).to.deep.equal(['.xml', '.wxr']);
      expect(existsSync(format.taskFile)).to.equal(true);
      const pool = t.kernel.container.resolve<{ run(name: string, input: unknown, filename?: string): Promise<any> }>('pool');
      const spoolPath = join(work, 'pool.ndjson');
      const result = await pool.run(
        format.parseTask,
        {
          path: WXR('wpimporter-small-export.xml'),
          filename: 'wpimporter-small-export.xml',
          workDir: work,
          spoolPath,
          profile: { encoding: 'utf-8' },
          maxDepth: 32,
        },
        format.taskFile,
      );
      expect(result.ok).to.equal(true);
      expect(result.value.counts).to.include({ posts: 6, pages: 5, categories: 30 });
      expect(readFileSync(spoolPath, 'utf8').trim().split('\n')).to.have.length(6 + 5 + 30 + 3 + 3 + 1);
    });
  });
});

describe('import format xml_blog: through the importers HTTP flow', function () {
  this.timeout(120000);
  for (const db of DB_VARIANTS) {
    describe(db.name, () => {
      let k: TestKernel;
      const post = (path: string, body: FormData | unknown) => postAs(k, 'admin', path, body);
      const upload = (file: string) => validateUpload(k, readFileSync(WXR(file)), file);
      before(async function () {
        requireVariant(this, db);
        if (!existsSync(join(FIXTURES, 'xml_blog'))) this.skip();
        k = await startTestKernel({
          db: db.name,
          cache: db.name === 'mariadb' ? 'redis' : 'memory',
          plugins: [fixturePlugin('test-identity')],
        });
      });
      after(async () => k?.close());

      it('WXR 1.1: validate -> preview (scaffold) -> run -> jobs -> entries', async () => {
        const v = await upload('wpimporter-valid-wxr-1.1.xml');
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        expect(v.body.data).to.include({ valid: true, detectedFormat: 'xml_blog' });
        expect(v.body.data.confidence).to.be.at.least(0.9);
        expect(v.body.data.summary).to.include({ posts: 1, pages: 1, categories: 1, tags: 1, terms: 1, authors: 1, comments: 1 });
        const preview = await post('/api/importers/preview', { format: 'xml_blog', uploadId: v.body.data.uploadId, scaffold: true });
        const plan = (await preview.json()).data;
        expect(preview.status, JSON.stringify(plan)).to.equal(200);
        const op = plan.operations.find((o: { sourceType: string }) => o.sourceType === 'posts');
        expect(op.count).to.equal(1);
        const run = await post('/api/importers/run', { planId: plan.planId, confirmed: true });
        expect(run.status).to.equal(200);
        const { jobId } = await run.json();
        const job = await pollImportJob(k, jobId, 'admin', 400);
        expect(job.status, JSON.stringify(job)).to.equal('completed');
        expect(job.results.posts).to.include({ imported: 1, failed: 0 });
        expect(job.results.comments).to.include({ imported: 1, failed: 0 });
        const list = (await (await k.request(`/api/collections/${op.targetCollection}?limit=100`, { identity: 'admin' })).json()).data;
        expect(list.items.map((i: Record<string, unknown>) => i.title)).to.include('Hello world!');
      });

      it('a truncated export is answered valid: false with the blocked reason; a raw "&" export is valid with warnings', async () => {
        const broken = await upload('wpimporter-malformed-simple.xml');
        expect(broken.status).to.equal(200);
        expect(broken.body.data).to.include({ valid: false, detectedFormat: 'xml_blog' });
        expect(broken.body.data.blockedReasons.join()).to.match(/line 14/);
        const repaired = await upload('ghost-wpxml-sample.xml');
        expect(repaired.body.data).to.include({ valid: true, detectedFormat: 'xml_blog' });
        expect(repaired.body.data.warnings.map((w: { line?: number }) => w.line)).to.include.members([109, 110]);
      });
    });
  }
});
