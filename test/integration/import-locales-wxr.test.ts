/**
 * Importers bring languages (issue 36 item 6), WordPress: the hand-made Polylang and WPML exports through the importers
 * HTTP API on SQLite and MariaDB. A post, a page, a medium, a category or a tag and its translations are one entry,
 * each language exact in its locale; a translation's references by WordPress id (its parent, its featured image, its
 * categories and tags, a medium's parent post) name its own translations, and resolve to the group's entries. The
 * attachments' file is served by a loopback server (fetchRemote on, private addresses allowed for the test).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { useIdentityKernel } from '../helpers/kernel.js';
import { pollImportJob, validateUpload } from '../helpers/importers.js';
import { as, dataOf } from '../helpers/content.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

type Obj = Record<string, any>;
const UPLOADS = 'https://polyglot.example/wp-content/uploads';
/** A hand-made export with its uploads on the loopback server. */
const handmade = (name: string, base: string) =>
  Buffer.from(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'imports-handmade', name), 'utf8').replaceAll(UPLOADS, base));

describe('importers: WordPress languages (issue 36)', function () {
  this.timeout(180000);
  let server: Server;
  let base = '';
  const hits: string[] = [];
  before(async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#b45309' } })
      .png()
      .toBuffer();
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url?.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const db of DB_VARIANTS) {
    describe(db.name, () => {
      const k = useIdentityKernel(
        db,
        {},
        { config: { outbound: { allowPrivate: true }, plugins: { options: { importers: { fetchRemote: true } } } } },
      );
      const admin = () => as(k, 'admin');
      /** validate -> preview (scaffold) -> run: the plan and the finished job. */
      const importFile = async (bytes: Buffer, filename: string, mappings: Obj) => {
        const v = await validateUpload(k, bytes, filename);
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        const p = await admin().post('/api/importers/preview', {
          format: 'xml_blog',
          uploadId: v.body.data.uploadId,
          scaffold: true,
          mappings,
        });
        const plan = (await p.json()).data;
        const res = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
        const job = await pollImportJob(k, (await res.json()).jobId);
        expect(job.status, JSON.stringify(job)).to.equal('completed');
        return { plan, job };
      };
      const list = async (collection: string, locale: string) =>
        (await dataOf(await admin().get(`/api/collections/${collection}?limit=100&locale=${locale}`))).items as Obj[];
      const origin = (e: Obj) => e._source_import?.externalId;

      /** The one entry a source record became, in one locale (by its external id). */
      const entryOf = async (collection: string, locale: string, externalId: string) => {
        const found = (await list(collection, locale)).filter((e) => origin(e) === externalId);
        expect(found, `${collection} ${externalId} (${locale})`).to.have.length(1);
        return found[0]!;
      };
      const mediaCount = async () => (await dataOf(await admin().get('/api/media?limit=1'))).total as number;

      it('Polylang: posts, media, categories and tags with their translations are one entry each; references by id resolve to them', async () => {
        const mediaBefore = await mediaCount();
        hits.length = 0;
        const bytes = handmade('polylang-en-de.wxr.xml', base);
        const mappings = { posts: 'pll_posts', attachments: 'pll_media', categories: 'pll_categories', tags: 'pll_tags', authors: false };
        const { plan, job } = await importFile(bytes, 'polylang.xml', mappings);
        expect(plan.locales.map((l: Obj) => [l.source, l.count, l.target, [...l.entities].sort()])).to.deep.equal([
          ['en', 5, 'en', ['attachments', 'categories', 'posts', 'tags']],
          ['de', 4, 'de', ['attachments', 'categories', 'posts', 'tags']],
        ]);
        expect(job.results.posts).to.include({ imported: 3, failed: 0 });
        for (const entity of ['attachments', 'categories', 'tags'])
          expect(job.results[entity], entity).to.include({ imported: 2, failed: 0 });
        // Terms: the category `recipes` (5) and `rezepte` (6) are one entry (term_translations), each name in its locale.
        expect(await list('pll_categories', 'en')).to.have.length(1);
        const recipes = await entryOf('pll_categories', 'en', 'recipes');
        expect([recipes.name, recipes.sourceSlug, recipes.description, recipes.wpId]).to.deep.equal([
          'Recipes',
          'recipes',
          'Dishes & desserts',
          5,
        ]);
        const rezepte = await entryOf('pll_categories', 'de', 'recipes');
        expect(rezepte._id).to.equal(recipes._id);
        expect([rezepte.name, rezepte.sourceSlug, rezepte.description, rezepte.wpId]).to.deep.equal([
          'Rezepte',
          'rezepte',
          'Gerichte & Süßspeisen',
          6,
        ]);
        const quick = await entryOf('pll_tags', 'en', 'quick');
        const schnell = await entryOf('pll_tags', 'de', 'quick');
        expect(schnell._id).to.equal(quick._id);
        expect([quick.name, quick.sourceSlug, schnell.name, schnell.sourceSlug]).to.deep.equal([
          'Quick',
          'quick',
          'Schnell „&“ einfach',
          'schnell',
        ]);
        // Media: attachment 40 and its translation 41 are one entry; the file (the same URL) is fetched and stored once.
        expect(hits).to.deep.equal(['/2026/03/bread-pudding.png']);
        expect((await mediaCount()) - mediaBefore).to.equal(1);
        const pudding = await entryOf('pll_posts', 'en', '10');
        const dish = await entryOf('pll_media', 'en', '40');
        const form = await entryOf('pll_media', 'de', '40');
        expect(form._id).to.equal(dish._id);
        expect([dish.title, dish.alt, dish.excerpt, dish.wpId]).to.deep.equal([
          'Bread pudding in a dish',
          'A dish of bread & butter pudding',
          'Fresh from the oven.',
          40,
        ]);
        expect([form.title, form.alt, form.excerpt, form.wpId]).to.deep.equal([
          'Brotpudding in der Form',
          'Eine Form mit Brotpudding',
          'Frisch aus dem Ofen.',
          41,
        ]);
        expect(form.media).to.be.a('string').and.equal(dish.media);
        expect(dish.url).to.equal(`${base}/2026/03/bread-pudding.png`);
        // A medium's parent: 40's is post 10, 41's the German post 12: both the pudding's entry.
        expect([dish.parent, form.parent]).to.deep.equal([pudding._id, pudding._id]);
        // The German post names its own translations by id and slug (41, rezepte, schnell): they resolve to the same entries.
        const brot = await entryOf('pll_posts', 'de', '10');
        expect(brot._id).to.equal(pudding._id);
        expect([pudding.title, pudding.featuredImage, pudding.status]).to.deep.equal(['Bread & Butter <Pudding>', '40', 'published']);
        expect([brot.title, brot.content, brot.excerpt, brot.featuredImage, brot.status]).to.deep.equal([
          'Brotpudding mit Butter – „Omas Art“',
          '<p>Das Brot buttern, dann mit Rosinen schichten. Süß &amp; üppig.</p>',
          'Ein Klassiker.',
          '41',
          'draft',
        ]);
        for (const e of [pudding, brot]) {
          expect(e.categories).to.deep.equal([recipes._id]);
          expect(e.tags).to.deep.equal([quick._id]);
          expect(e.featuredMedia).to.equal(dish.media);
        }
        // Shared: equal in both languages; localized: what differs.
        expect([pudding.meta, brot.meta]).to.deep.equal([{ servings: '4' }, { servings: '4' }]);
        const schema = await dataOf(await admin().get('/api/collections/pll_posts/schema'));
        const localized = (name: string) => schema.fields.find((f: Obj) => f.name === name).localized ?? false;
        expect([localized('meta'), localized('title'), localized('featuredImage'), localized('categories')]).to.deep.equal([
          false,
          true,
          true,
          false,
        ]);
        const only = await entryOf('pll_posts', 'en', '20');
        expect([only.title, only.categories, only.tags]).to.deep.equal(['Only in English', [recipes._id], []]);
        expect(await list('pll_posts', 'en')).to.have.length(2);
        // Again: every language's record is already imported, nothing is written or fetched.
        const again = await importFile(bytes, 'polylang.xml', mappings);
        for (const entity of ['posts', 'attachments', 'categories', 'tags'])
          expect(again.job.results[entity], entity).to.include({ imported: 0, failed: 0, skipped: entity === 'posts' ? 3 : 2 });
        expect((await mediaCount()) - mediaBefore).to.equal(1);
        expect(await list('pll_media', 'de')).to.have.length(1);
      });

      it('WPML: translation groups of posts, pages, media and categories; a French page names its French parent by id', async () => {
        hits.length = 0;
        const { plan, job } = await importFile(handmade('wpml-en-fr.wxr.xml', base), 'wpml.xml', {
          posts: 'wpml_posts',
          pages: 'wpml_pages',
          attachments: 'wpml_media',
          categories: 'wpml_categories',
          authors: false,
        });
        expect(plan.locales.map((l: Obj) => [l.source, l.count, l.target])).to.deep.equal([
          ['en', 6, 'en'],
          ['fr', 6, 'fr'],
        ]);
        expect(job.results.posts).to.include({ imported: 4, failed: 0 });
        expect(job.results.pages).to.include({ imported: 4, failed: 0 });
        expect(job.results.attachments).to.include({ imported: 2, failed: 0 });
        expect(job.results.categories).to.include({ imported: 2, failed: 0 });
        expect(hits).to.deep.equal(['/2026/03/pudding.png']);
        const recipes = await entryOf('wpml_categories', 'en', 'wpml:cat-recipes');
        const recettes = await entryOf('wpml_categories', 'fr', 'wpml:cat-recipes');
        expect(recettes._id).to.equal(recipes._id);
        expect([recipes.name, recipes.sourceSlug, recettes.name, recettes.sourceSlug, recettes.description]).to.deep.equal([
          'Recipes',
          'recipes',
          'Recettes',
          'recettes',
          'Plats « maison »',
        ]);
        // Post 31 and its French translation 32 (featured image 42, category recettes) are one entry.
        const pudding = await entryOf('wpml_posts', 'en', 'wpml:bread-pudding');
        const pain = await entryOf('wpml_posts', 'fr', 'wpml:bread-pudding');
        expect(pain._id).to.equal(pudding._id);
        expect([pudding.title, pudding.wpId, pudding.featuredImage]).to.deep.equal(['Bread & Butter <Pudding>', 31, '41']);
        expect([pain.title, pain.wpId, pain.featuredImage, pain.status]).to.deep.equal([
          'Pudding au pain – « à l’ancienne »',
          32,
          '42',
          'draft',
        ]);
        const dish = await entryOf('wpml_media', 'en', 'wpml:media-pudding');
        const plat = await entryOf('wpml_media', 'fr', 'wpml:media-pudding');
        expect(plat._id).to.equal(dish._id);
        expect([dish.title, dish.alt, plat.title, plat.alt]).to.deep.equal([
          'Bread pudding in a dish',
          'A dish of bread & butter pudding',
          'Pudding au pain dans un plat',
          'Un plat de pudding au pain',
        ]);
        expect([dish.parent, plat.parent]).to.deep.equal([pudding._id, pudding._id]);
        for (const e of [pudding, pain]) {
          expect(e.categories).to.deep.equal([recipes._id]);
          expect(e.featuredMedia).to.be.a('string').and.equal(dish.media);
        }
        // A WPML duplicate (34, `_icl_lang_duplicate_of` 33, no group) is the French version of its original's entry.
        const only = await entryOf('wpml_posts', 'en', 'wpml:only-english');
        const copie = await entryOf('wpml_posts', 'fr', 'wpml:only-english');
        expect(copie._id).to.equal(only._id);
        expect([only.title, only.wpId, only.status, only.categories]).to.deep.equal(['Only in English', 33, 'published', [recipes._id]]);
        expect([copie.title, copie.content, copie.wpId, copie.sourceSlug, copie.status, copie.categories]).to.deep.equal([
          'Only in English',
          '<p>No translation yet.</p>',
          34,
          'only-in-english-2',
          'draft',
          [recipes._id],
        ]);
        expect(await list('wpml_posts', 'fr')).to.have.length(2);
        // Pages: 53 (fr) names its parent 51, the French translation of 50: the entry of the group "page-about".
        const about = await entryOf('wpml_pages', 'en', 'wpml:page-about');
        const propos = await entryOf('wpml_pages', 'fr', 'wpml:page-about');
        const team = await entryOf('wpml_pages', 'en', 'wpml:page-team');
        const equipe = await entryOf('wpml_pages', 'fr', 'wpml:page-team');
        expect([propos._id, equipe._id]).to.deep.equal([about._id, team._id]);
        expect([about.title, about.content, propos.title, propos.content]).to.deep.equal([
          'About us',
          '<p>We cook &amp; write.</p>',
          'À propos',
          '<p>Nous cuisinons et écrivons.</p>',
        ]);
        expect([team.title, team.status, equipe.title, equipe.content, equipe.status]).to.deep.equal([
          'Our team',
          'published',
          'Notre équipe',
          '<p>Anna et ses amis.</p>',
          'draft',
        ]);
        expect([team.parent, equipe.parent, about.parent]).to.deep.equal([about._id, about._id, null]);
        expect(await list('wpml_pages', 'fr')).to.have.length(2);
      });
    });
  }
});
