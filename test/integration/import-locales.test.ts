/**
 * Importers bring languages (issue 36 item 6), through the importers HTTP API on SQLite and MariaDB: Drupal's English
 * and Spanish articles (the same 8 entity ids) as one entry each, imported in either order or in one archive, with every
 * title, body and alias exactly as in the source in its locale and per-locale status; the Directus help-center
 * translations; the plan's locale mapping (400 on unknown codes, 403 creating a locale without the right; another tenant's
 * administrator gets `skip` for a language the installation lacks); idempotent re-runs; another tenant sees and touches
 * none of it. WordPress (Polylang, WPML): import-locales-wxr.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { useIdentityKernel } from '../helpers/kernel.js';
import { pollImportJob, validateUpload } from '../helpers/importers.js';
import { as, dataOf } from '../helpers/content.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { handBuiltTar } from '../helpers/tar.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

const fixture = (folder: string, name: string) => join(IMPORT_FIXTURES, folder, name);
const handmade = (name: string) => join(PROJECT_ROOT, 'test', 'fixtures', 'imports-handmade', name);
type Obj = Record<string, any>;
const drupal = (lang: 'en' | 'es'): Obj[] =>
  JSON.parse(readFileSync(fixture('php_cms', `drupal-umami-articles-${lang}.jsonapi.json`), 'utf8')).data;
const unescape = (html: string | null) =>
  html === null
    ? null
    : html
        .replace(/&gt;/g, '>')
        .replace(/&lt;/g, '<')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
const bodyOf = (a: Obj) => (a.attributes.body.processed || a.attributes.body.value) as string;

describe('importers: languages (issue 36)', function () {
  this.timeout(180000);
  before(function () {
    if (!existsSync(IMPORT_FIXTURES)) this.skip();
  });
  for (const db of DB_VARIANTS) {
    describe(db.name, () => {
      const k = useIdentityKernel(db);
      const admin = () => as(k, 'admin');
      const validate = async (bytes: Buffer, filename: string) => {
        const v = await validateUpload(k, bytes, filename);
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        expect(v.body.data.valid, JSON.stringify(v.body.data)).to.equal(true);
        return v.body.data;
      };
      const preview = async (body: Obj, who = admin()) => {
        const res = await who.post('/api/importers/preview', body);
        return { status: res.status, body: await res.json() };
      };
      const run = async (plan: Obj) => {
        const res = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
        const { jobId } = await res.json();
        const job = await pollImportJob(k, jobId);
        expect(job.status, JSON.stringify(job)).to.equal('completed');
        return job;
      };
      /** validate -> preview (scaffold) -> run: the plan and the finished job. */
      const importFile = async (bytes: Buffer, filename: string, format: string, extra: Obj = {}) => {
        const v = await validate(bytes, filename);
        const p = await preview({ format, uploadId: v.uploadId, scaffold: true, ...extra });
        expect(p.status, JSON.stringify(p.body)).to.equal(200);
        return { plan: p.body.data, job: await run(p.body.data) };
      };
      const fieldOf = (plan: Obj, entity: string, source: string): string =>
        plan.fieldMappings.find((m: Obj) => m.entity === entity && m.sourceField === source).targetField;
      const list = async (collection: string, locale: string) =>
        (await dataOf(await admin().get(`/api/collections/${collection}?limit=100&locale=${locale}`))).items as Obj[];
      const origin = (e: Obj) => e._source_import?.externalId;

      /** Every article's title, body and alias exactly as in its source file, in its locale, each version published. */
      const expectDrupalLanguages = async (collection: string, plan: Obj) => {
        const [title, body, path, nid] = ['title', 'body', 'path', 'drupal_internal__nid'].map((f) => fieldOf(plan, 'articles', f));
        for (const lang of ['en', 'es'] as const) {
          const items = await list(collection, lang);
          expect(items, `${lang}: one entry per article`).to.have.length(8);
          for (const a of drupal(lang)) {
            const e = items.find((x) => origin(x) === a.id)!;
            expect(e, `${lang} ${a.id}`).to.not.equal(undefined);
            expect(e[title!], `${lang} title`).to.equal(a.attributes.title);
            expect(e[body!], `${lang} body`).to.equal(bodyOf(a));
            expect(e[path!], `${lang} alias`).to.equal(a.attributes.path.alias);
            expect(e[nid!]).to.equal(a.attributes.drupal_internal__nid);
            expect(e._locale).to.equal(lang);
            expect(e._locales).to.include.members(['en', 'es']);
            expect(e._fallbackFields ?? [], `${lang} own values`).to.not.include(title);
            expect(e.status, `${lang} status`).to.equal('published');
          }
        }
        // Fields that differ between the languages are localized; those equal in both (the node id) stay shared.
        const schema = await dataOf(await admin().get(`/api/collections/${collection}/schema`));
        const fields = new Map((schema.fields as Obj[]).map((f) => [f.name, f]));
        for (const f of [title, body, path]) expect(fields.get(f!)?.localized, f).to.equal(true);
        expect(fields.get(nid!)?.localized ?? false).to.equal(false);
      };

      it('Drupal: English, then Spanish into the same collection: one entry per article, each language exact in its locale', async () => {
        const en = await importFile(readFileSync(fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json')), 'en.json', 'php_cms', {
          mappings: { articles: 'umami_articles' },
        });
        expect(en.plan.locales).to.deep.equal([
          { source: 'en', count: 8, entities: ['articles'], action: 'use', target: 'en', isDefault: true },
        ]);
        expect(en.plan.defaultLocale).to.equal('en');
        expect(en.job.results.articles).to.include({ imported: 8, failed: 0 });

        const esBytes = readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json'));
        const es = await importFile(esBytes, 'es.json', 'php_cms', { mappings: { articles: 'umami_articles' } });
        const esLocale = es.plan.locales[0];
        expect(esLocale).to.include({ source: 'es', count: 8, target: 'es', isDefault: false });
        expect(['create', 'use']).to.include(esLocale.action);
        expect(es.job.results.articles).to.include({ imported: 8, failed: 0, updated: 0 });
        expect((await dataOf(await admin().get('/api/locales'))).map((l: Obj) => l.code)).to.include('es');
        await expectDrupalLanguages('umami_articles', en.plan);
        // The run's items name the locale each record went to.
        const view = await dataOf(await admin().get(`/api/importers/runs/${es.job.jobId}?limit=100`));
        expect(view.items).to.have.length(8);
        expect(view.items.every((i: Obj) => i.locale === 'es')).to.equal(true);

        // Again: nothing is duplicated or written (the ledger keeps each language's record).
        const again = await importFile(esBytes, 'es.json', 'php_cms', { mappings: { articles: 'umami_articles' } });
        expect(again.job.results.articles).to.include({ imported: 0, skipped: 8 });
        expect(again.job.results.articles.skipReasons).to.deep.equal({ alreadyImported: 8 });
        expect(await list('umami_articles', 'es')).to.have.length(8);

        // Mode merge with one Spanish title changed: that version is updated, the English one and the rest stay.
        const doc = JSON.parse(esBytes.toString('utf8'));
        const herbs = doc.data.find((a: Obj) => a.id === '63ed240d-a923-427f-9855-38918bb30b2d');
        herbs.attributes.title = 'Cultiva tus hierbas (revisado)';
        const merged = await importFile(Buffer.from(JSON.stringify(doc)), 'es.json', 'php_cms', {
          mappings: { articles: 'umami_articles' },
          mode: 'merge',
        });
        expect(merged.job.results.articles).to.include({ imported: 1, updated: 1, skipped: 7 });
        const title = fieldOf(en.plan, 'articles', 'title');
        const esNow = (await list('umami_articles', 'es')).find((e) => origin(e) === herbs.id)!;
        const enNow = (await list('umami_articles', 'en')).find((e) => origin(e) === herbs.id)!;
        expect(esNow[title]).to.equal('Cultiva tus hierbas (revisado)');
        expect(enNow[title]).to.equal('Give it a go and grow your own herbs');
        expect(await list('umami_articles', 'es')).to.have.length(8);
      });

      it("Drupal: Spanish first, then English: the English values become the entries' own, the Spanish ones stay Spanish", async () => {
        const es = await importFile(readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json')), 'es.json', 'php_cms', {
          mappings: { articles: 'umami_es_first' },
        });
        expect(es.job.results.articles).to.include({ imported: 8, failed: 0 });
        const en = await importFile(readFileSync(fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json')), 'en.json', 'php_cms', {
          mappings: { articles: 'umami_es_first' },
        });
        expect(en.job.results.articles).to.include({ imported: 8, failed: 0 });
        await expectDrupalLanguages('umami_es_first', en.plan);
      });

      it('Drupal: both languages in one archive', async () => {
        const tar = gzipSync(
          handBuiltTar(
            [
              { path: 'export/articles-es.json', body: readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json')) },
              { path: 'export/articles-en.json', body: readFileSync(fixture('php_cms', 'drupal-umami-articles-en.jsonapi.json')) },
            ],
            { ownerless: true },
          ),
        );
        const { plan, job } = await importFile(tar, 'umami.tar.gz', 'php_cms', { mappings: { articles: 'umami_archive' } });
        expect(plan.locales.map((l: Obj) => [l.source, l.count, l.isDefault])).to.deep.equal([
          ['en', 8, true],
          ['es', 8, false],
        ]);
        expect(job.results.articles).to.include({ imported: 16, failed: 0 });
        await expectDrupalLanguages('umami_archive', plan);
      });

      it('Directus: a translations collection becomes the languages of its parents (en-US and fr-FR created)', async () => {
        const source: Obj[] = JSON.parse(readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json'), 'utf8'));
        const { plan, job } = await importFile(
          readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json')),
          'help_articles_translations.json',
          'data_cms',
        );
        expect(plan.locales.map((l: Obj) => [l.source, l.action, l.target])).to.deep.equal([
          ['en-US', 'create', 'en-US'],
          ['fr-FR', 'create', 'fr-FR'],
        ]);
        expect(job.results.help_articles).to.include({ imported: 6, failed: 0 });
        const collection = plan.operations.find((o: Obj) => o.sourceType === 'help_articles').targetCollection;
        const parents = new Set(source.map((s) => s.help_articles_id));
        for (const code of ['en-US', 'fr-FR']) {
          const items = await list(collection, code);
          expect(items).to.have.length(parents.size);
          for (const row of source.filter((s) => s.languages_code === code)) {
            const e = items.find((x) => origin(x) === row.help_articles_id)!;
            for (const f of ['title', 'summary']) expect(e[fieldOf(plan, 'help_articles', f)], `${code} ${f}`).to.equal(row[f]);
            // `content` holds markup, so it is a rich-text field: sanitised as every rich-text value is (`>` as `&gt;`).
            expect(unescape(e[fieldOf(plan, 'help_articles', 'content')] ?? null), `${code} content`).to.equal(row.content);
          }
        }
      });

      it("Directus archive: the translations junction is its parents' languages (with the schema snapshot), not a collection", async () => {
        const source: Obj[] = JSON.parse(readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json'), 'utf8'));
        const tar = gzipSync(
          handBuiltTar(
            [
              {
                path: 'help/help_articles_translations.json',
                body: readFileSync(fixture('data_cms', 'directus-help-center-articles-translations.json')),
              },
              { path: 'help/schema.json', body: readFileSync(fixture('data_cms', 'directus-help-center-schema-snapshot.json')) },
            ],
            { ownerless: true },
          ),
        );
        const { plan, job } = await importFile(tar, 'help-center.tar.gz', 'data_cms', { mappings: { help_articles: 'help_archive' } });
        expect(plan.locales.map((l: Obj) => [l.source, l.count, l.target])).to.deep.equal([
          ['en-US', 4, 'en-US'],
          ['fr-FR', 2, 'fr-FR'],
        ]);
        expect(plan.operations.map((o: Obj) => o.sourceType)).to.not.include('help_articles_translations');
        expect(job.results.help_articles).to.include({ imported: 6, failed: 0 });
        const parents = new Set(source.map((s) => s.help_articles_id));
        for (const code of ['en-US', 'fr-FR']) {
          const items = await list('help_archive', code);
          expect(items).to.have.length(parents.size);
          for (const row of source.filter((s) => s.languages_code === code)) {
            const e = items.find((x) => origin(x) === row.help_articles_id)!;
            for (const f of ['title', 'summary', 'slug']) expect(e[fieldOf(plan, 'help_articles', f)], `${code} ${f}`).to.equal(row[f]);
            expect(unescape(e[fieldOf(plan, 'help_articles', 'content')] ?? null), `${code} content`).to.equal(row.content);
          }
        }
      });

      it('the locale mapping: unknown codes are 400, skipping leaves the records out, creating needs the right', async () => {
        const v = await validate(readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json')), 'es.json');
        const bad = async (locales: Obj, code: number, who = admin()) => {
          const p = await preview({ format: 'php_cms', uploadId: v.uploadId, scaffold: true, locales }, who);
          expect(p.status, JSON.stringify(p.body)).to.equal(code);
          return p.body;
        };
        expect((await bad({ xx: 'en' }, 400)).error).to.equal('VALIDATION_ERROR');
        expect((await bad({ es: 'zz-nowhere' }, 400)).error).to.equal('VALIDATION_ERROR');
        expect((await bad({ es: 'en_US' }, 400)).error).to.equal('VALIDATION_ERROR');
        // Onto the default locale: the Spanish values become the entries' own.
        const onto = await preview({
          format: 'php_cms',
          uploadId: v.uploadId,
          scaffold: true,
          locales: { es: 'en' },
          mappings: { articles: 'es_as_en' },
        });
        expect(onto.status).to.equal(200);
        expect(onto.body.data.locales[0]).to.include({ source: 'es', action: 'use', target: 'en', isDefault: true });
        await run(onto.body.data);
        const items = await list('es_as_en', 'en');
        expect(items.map((e) => e.title).sort()).to.deep.equal(
          drupal('es')
            .map((a) => a.attributes.title)
            .sort(),
        );
        // Left out.
        const v2 = await validate(readFileSync(fixture('php_cms', 'drupal-umami-articles-es.jsonapi.json')), 'es.json');
        const skip = await preview({
          format: 'php_cms',
          uploadId: v2.uploadId,
          scaffold: true,
          locales: { es: false },
          mappings: { articles: 'es_skipped' },
        });
        expect(skip.body.data.locales[0]).to.include({ action: 'skip', target: null });
        const job = await run(skip.body.data);
        expect(job.results.articles).to.include({ imported: 0, skipped: 8 });
        expect(job.results.articles.skipReasons).to.deep.equal({ localeSkipped: 8 });
        // Another tenant's administrator may not create locales (they are the installation's).
        const t2 = as(k, 'admin', 't2');
        const t2Upload = await validateUpload(k, readFileSync(handmade('wpml-en-fr.wxr.xml')), 'wpml.xml');
        void t2Upload;
        const fd = new FormData();
        fd.append('file', new Blob([readFileSync(handmade('polylang-en-de.wxr.xml'))]), 'pll.xml');
        const t2v = await k.request('/api/importers/validate', {
          method: 'POST',
          body: fd,
          identity: 'admin',
          headers: { 'x-test-tenant': 't2' },
        });
        const t2Data = (await t2v.json()).data;
        const t2Plan = await t2.post('/api/importers/preview', {
          format: 'xml_blog',
          uploadId: t2Data.uploadId,
          scaffold: true,
          locales: { de: { create: true, target: 'de-CH' } },
        });
        expect(t2Plan.status).to.equal(403);
        // By default, a language with no locale there is skipped for them (the plan says why).
        const t2Default = await dataOf(
          await t2.post('/api/importers/preview', { format: 'xml_blog', uploadId: t2Data.uploadId, scaffold: true, locales: { en: 'en' } }),
        );
        const de = t2Default.locales.find((l: Obj) => l.source === 'de');
        expect(de).to.include({ action: 'skip', target: null });
      });

      it("another tenant's administrator neither sees nor touches the imported languages", async () => {
        const mine = await list('umami_articles', 'es');
        const id = mine[0]!._id;
        const t2 = as(k, 'admin', 't2');
        expect((await t2.get(`/api/collections/umami_articles/${id}?locale=es`)).status).to.equal(404);
        expect((await t2.patch(`/api/collections/umami_articles/${id}?locale=es`, { title: 'x' })).status).to.equal(404);
        const t2List = await dataOf(await t2.get('/api/collections/umami_articles?locale=es'));
        expect(t2List.total).to.equal(0);
        const runs = await dataOf(await t2.get('/api/importers/runs'));
        expect(runs.runs ?? runs).to.have.length(0);
        expect((await admin().get(`/api/collections/umami_articles/${id}?locale=es`)).status).to.equal(200);
      });
    });
  }
});
