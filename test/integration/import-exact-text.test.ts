import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { as, dataOf } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { settledImportJob } from '../helpers/importers.js';
import { DB_VARIANTS, REDIS_URL } from '../helpers/services.js';

/**
 * Issue 32, item 11: titles with `&` were stored as `&amp;` and `<Special>` was dropped, because one
 * HTML-looking value made the whole column rich text (sanitised). Every title of large exports is read
 * from the source file by an independent parser (fast-xml-parser, csv-parse) and compared with what the
 * API answers after the import.
 */
const TRICKY = [
  'Tom & Jerry',
  '<Special> offer',
  'AT&T <b>bold</b> & co',
  'a < b > c',
  '&amp; stays literal',
  '5 > 3 && 2 < 4',
  'Emoji 🎉🚀 party',
  '漢字とかな CJK タイトル',
  'עברית מימין לשמאל',
  'العربية & English',
  '<script>alert(1)</script> text',
  'Quotes "double" and \'single\'',
  '<!-- not a comment --> visible',
  'Ünïcödé — “typographic” …',
];

/** Title i of a generated file: each tricky value many times, with a number so every title differs. */
const titleOf = (i: number) => `${TRICKY[i % TRICKY.length]} #${i}`;
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function largeWxr(items: number): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" ',
    'xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">\n<channel>\n',
    '<title>Large</title>\n<wp:wxr_version>1.2</wp:wxr_version>\n',
  ];
  for (let i = 0; i < items; i++) {
    // Half the titles escaped as entities, half in CDATA: both are how exports write them.
    const title = i % 2 ? `<![CDATA[${titleOf(i)}]]>` : xmlText(titleOf(i));
    parts.push(
      `<item>\n<title>${title}</title>\n<content:encoded><![CDATA[<p>Body ${i} &amp; more</p>]]></content:encoded>\n` +
        `<wp:post_id>${i + 1}</wp:post_id>\n<wp:status>publish</wp:status>\n<wp:post_type>post</wp:post_type>\n</item>\n`,
    );
  }
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}

const csvCell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
function largeCsv(rows: number): string {
  const lines = ['id,title,notes'];
  for (let i = 0; i < rows; i++) lines.push([`r${i}`, csvCell(titleOf(i)), csvCell(`plain note ${i} & <tag>`)].join(','));
  return `${lines.join('\n')}\n`;
}

/** Titles of posts and pages in a WXR file, read with saxes directly (entities and CDATA decoded, trimmed as the importer does). */
function wxrTitles(xml: string): string[] {
  const parser = new SaxesParser();
  const titles: string[] = [];
  const path: string[] = [];
  let item: { title: string; type: string } | null = null;
  const add = (text: string) => {
    if (!item) return;
    const here = path[path.length - 1];
    if (here === 'title' && path[path.length - 2] === 'item') item.title += text;
    if (here === 'wp:post_type') item.type += text;
  };
  parser.on('opentag', (tag) => {
    path.push(tag.name);
    if (tag.name === 'item') item = { title: '', type: '' };
  });
  parser.on('closetag', (tag) => {
    path.pop();
    if (tag.name === 'item' && item) {
      if (['post', 'page'].includes(item.type.trim())) titles.push(item.title.trim());
      item = null;
    }
  });
  parser.on('text', add);
  parser.on('cdata', add);
  parser.write(xml).close();
  return titles;
}

for (const variant of DB_VARIANTS) {
  const cache = variant.name === 'mariadb' && REDIS_URL ? 'redis' : 'memory';
  describe(`imported and written text is stored exactly as sent (${variant.name}, cache ${cache})`, function () {
    this.timeout(300000);
    const admin = () => as(t, 'admin');

    async function importFile(content: string | Buffer, filename: string, body: Record<string, unknown> = {}) {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      const v = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity: 'admin' }));
      expect(v.valid, JSON.stringify(v.blockedReasons)).to.equal(true);
      const plan = await dataOf(
        await admin().post('/api/importers/preview', { format: v.detectedFormat, uploadId: v.uploadId, scaffold: true, ...body }),
      );
      const run = await admin().post('/api/importers/run', { planId: plan.planId, confirmed: true });
      expect(run.status).to.be.oneOf([200, 202]);
      const { jobId } = await run.json();
      const job = await settledImportJob(t, jobId, 3000, 100);
      expect(job.status, JSON.stringify(job)).to.equal('completed');
      return { plan, job };
    }

    async function allTitles(collection: string, field = 'title'): Promise<string[]> {
      const out: string[] = [];
      for (let page = 1; ; page++) {
        const list = await dataOf(await admin().get(`/api/collections/${collection}?limit=100&page=${page}`));
        out.push(...list.items.map((i: Record<string, unknown>) => i[field] as string));
        if (out.length >= list.total || list.items.length === 0) return out;
      }
    }

    const fieldType = async (collection: string, field: string) => {
      const schema = await dataOf(await admin().get(`/api/collections/${collection}/schema`));
      return schema.fields.find((f: { name: string }) => f.name === field)?.type;
    };

    const t = useTestKernel({ db: variant.name, cache, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('every title of a large generated WXR export (600 posts: &, <Special>, emoji, CJK, RTL) is stored exactly', async function () {
      const xml = largeWxr(600);
      const expected = wxrTitles(xml);
      expect(expected).to.have.length(600);
      expect(expected).to.include('<Special> offer #1');
      const { plan, job } = await importFile(xml, 'large-titles.xml', { mappings: { posts: { collection: 'wxr_large' } } });
      expect(job.results.posts).to.include({ imported: 600, failed: 0 });
      const target = plan.operations.find((o: { sourceType: string }) => o.sourceType === 'posts').targetCollection;
      expect(await fieldType(target, 'title')).to.equal('text');
      expect(await fieldType(target, 'content')).to.equal('richtext');
      const stored = await allTitles(target);
      expect(stored.slice().sort()).to.deep.equal(expected.slice().sort());
    });

    it('every post and page title of the large real WordPress export (theme unit test data) is stored exactly', async function () {
      const xml = readFileSync(join(IMPORT_FIXTURES, 'xml_blog', 'wp-theme-unit-test-data.xml'), 'utf8');
      const expected = wxrTitles(xml).filter((s) => s !== '');
      expect(expected.some((s) => s.includes('&'))).to.equal(true);
      const { plan } = await importFile(xml, 'theme-unit.xml', {
        mappings: { posts: { collection: 'unit_posts' }, pages: { collection: 'unit_pages' } },
      });
      const stored: string[] = [];
      for (const entity of ['posts', 'pages']) {
        const op = plan.operations.find((o: { sourceType: string }) => o.sourceType === entity);
        stored.push(...(await allTitles(op.targetCollection)).filter((s) => s !== null && s !== ''));
      }
      expect(stored.slice().sort()).to.deep.equal(expected.slice().sort());
    });

    it('every title of a large generated CSV (2,000 rows) is stored exactly; its text columns are text, not rich text', async function () {
      const csv = largeCsv(2000);
      const records = parseCsv(csv, { columns: true }) as Array<{ title: string; notes: string }>;
      expect(records).to.have.length(2000);
      const { plan, job } = await importFile(csv, 'large_titles.csv');
      expect(job.results.rows).to.include({ imported: 2000, failed: 0 });
      const target = plan.operations.find((o: { sourceType: string }) => o.sourceType === 'rows').targetCollection;
      expect(await fieldType(target, 'title')).to.equal('text');
      expect(await fieldType(target, 'notes')).to.equal('text');
      expect((await allTitles(target)).sort()).to.deep.equal(records.map((r) => r.title).sort());
      expect((await allTitles(target, 'notes')).sort()).to.deep.equal(records.map((r) => r.notes).sort());
    });

    it("a text field written through the API keeps & and <Special> exactly; a later import never turns an existing field's type", async function () {
      await dataOf(
        await admin().post('/api/collections', {
          name: 'notes_exact',
          fields: [
            { name: 'title', type: 'text' },
            { name: 'body', type: 'richtext' },
          ],
        }),
        201,
      );
      for (const title of TRICKY) {
        const created = await dataOf(await admin().post('/api/collections/notes_exact', { title, body: '<p>x</p>' }), 201);
        expect(created.title, title).to.equal(title);
        expect((await dataOf(await admin().get(`/api/collections/notes_exact/${created._id}`))).title, title).to.equal(title);
      }
      // Rich text is still sanitised.
      const rich = await dataOf(
        await admin().post('/api/collections/notes_exact', { title: 'rich', body: '<p>ok</p><script>x()</script>' }),
        201,
      );
      expect(rich.body).to.not.include('<script');
      // Import into the existing collection: the title field stays text, every value exact.
      const csv = `title,body\n${TRICKY.map((s) => `${csvCell(`${s} (csv)`)},${csvCell('<p>imported</p>')}`).join('\n')}\n`;
      await importFile(csv, 'notes_exact.csv', { mappings: { rows: { collection: 'notes_exact' } } });
      expect(await fieldType('notes_exact', 'title')).to.equal('text');
      const titles = await allTitles('notes_exact');
      for (const s of TRICKY) expect(titles, s).to.include(`${s} (csv)`);
    });
  });
}
