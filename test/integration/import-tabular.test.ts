/**
 * The tabular import formats (csv, json, self_cms, shop_products_hosted, shop_products_plugin): the real
 * parse tasks over every fixture in test/fixtures/imports/{csv,json,shop_products} with the
 * counts their READMEs give, generated self_cms and admin-API product files, detection from real
 * profiles, and the formats in a booted kernel's registry.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportedEntity, ImportParseInput, ImportParseSummary, ImportProfile } from '../../plugins/importers/public.js';
import * as tasks from '../../plugins/import-tabular/parse-task.js';
import { TABULAR_FORMATS } from '../../plugins/import-tabular/formats.js';
import { importProfile } from '../../workers/import/profile.js';
import { startTestKernel, type TestKernel, useIdentityKernel } from '../helpers/kernel.js';
import { pollImportJob, validateUpload } from '../helpers/importers.js';
import { postAs } from '../helpers/content.js';
import { CACHE_VARIANTS, DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

const FIXTURES = IMPORT_FIXTURES;
const fixture = (folder: string, name: string) => join(FIXTURES, folder, name);
type TaskName = 'parseCsv' | 'parseJson' | 'parseSelfCms' | 'parseShopHosted' | 'parseShopPlugin';

let work: string;
let runs = 0;

interface Parsed {
  summary: ImportParseSummary;
  entities: ImportedEntity[];
}

async function profileOf(path: string, filename: string): Promise<ImportProfile> {
  const r = await importProfile({ path, filename, maxDepth: 32 });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

async function parse(
  task: TaskName,
  path: string,
  options: { filename?: string; maxDepth?: number; profile?: ImportProfile; options?: Record<string, unknown> } = {},
): Promise<Parsed> {
  const filename = options.filename ?? path.split('/').pop()!;
  const spoolPath = join(work, `spool-${++runs}.ndjson`);
  const input: ImportParseInput = {
    path,
    filename,
    workDir: work,
    spoolPath,
    maxDepth: options.maxDepth ?? 32,
    options: options.options,
    profile: options.profile ?? (await profileOf(path, filename)),
  };
  const result = await tasks[task](input);
  if (!result.ok) throw new Error(`task failed: ${JSON.stringify(result.issues)}`);
  const entities = readFileSync(spoolPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ImportedEntity);
  return { summary: result.value, entities };
}

const warningAt = (p: Parsed, line: number, pattern: RegExp) => p.summary.warnings.some((w) => w.line === line && pattern.test(w.message));

before(() => {
  work = mkdtempSync(join(tmpdir(), 'import-tabular-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('import-tabular: csv fixtures', () => {
  /**
   * Data rows per file. Where the README's "N rows" counts the header line too, the comment says so:
   * csvkit-mac_newlines (README 3 = header + 2), csvparser-bad-data (README 4 = header + 3),
   * csvparser-quotes+newlines (README "2 rows"; the file holds 3 records after the header),
   * rcsv-bom-crlf (README "header + 2 rows"; the file holds 1 data row) and ks_1033 (README 1,574;
   * the file holds 1,575 records after the header: 1,575 line feeds and no final one).
   */
  const ROWS: Record<string, number> = {
    'spectrum-comma_in_quotes.csv': 1,
    'spectrum-escaped_quotes.csv': 2,
    'spectrum-newlines.csv': 3,
    'spectrum-newlines_crlf.csv': 3,
    'spectrum-quotes_and_newlines.csv': 2,
    'spectrum-empty_crlf.csv': 2,
    'spectrum-json.csv': 1,
    'spectrum-utf8.csv': 2,
    'spectrum-location_coordinates.csv': 1,
    'csvparser-quotes+newlines.csv': 3,
    'csvkit-mac_newlines.csv': 2,
    'csvkit-test_header_newline.csv': 1,
    'csvkit-optional_quote_characters.csv': 1,
    'rcsv-noeof.csv': 2,
    'csvkit-sniff_limit-semicolon.csv': 1,
    'csvkit-test_locale.csv': 1,
    'rcsv-bom-crlf.csv': 1,
    'csvkit-test_utf8_bom.csv': 2,
    'csvparser-utf16le-bom.csv': 2,
    'csvkit-test_latin1.csv': 2,
    'rcsv-encoding-windows1250.csv': 1,
    'csvkit-null_byte.csv': 1,
    'csvkit-dummy.tsv': 1,
    'maximal-countries.tsv': 250,
    'csvkit-bad.csv': 3,
    'csvparser-strict-extra-column.csv': 3,
    'ghost-fsutils-malformed.csv': 1,
    'csvparser-bad-data.csv': 3,
    'csvparser-comment.csv': 1,
    'csvkit-test_skip_lines.csv': 1,
    'ghost-wix-header-only.csv': 0,
    'ghost-wix-posts.csv': 2,
    'ghost-mailchimp-subscribed.csv': 5,
    'csvkit-realdata-ks_1033_data.csv': 1575,
    'csvparser-large-dataset-usgs.csv': 7268,
  };

  it('covers every file of the folder', () => {
    const files = readdirSync(join(FIXTURES, 'csv'))
      .filter((f) => f !== 'README.md')
      .sort();
    expect(files).to.deep.equal(Object.keys(ROWS).sort());
  });

  for (const [file, rows] of Object.entries(ROWS)) {
    it(`${file}: ${rows} rows, no block, stable external ids`, async () => {
      const first = await parse('parseCsv', fixture('csv', file));
      expect(first.summary.blockedReasons).to.deep.equal([]);
      expect(first.summary.counts).to.deep.equal({ rows });
      expect(first.entities).to.have.length(rows);
      const again = await parse('parseCsv', fixture('csv', file));
      expect(again.entities.map((e) => e.externalId)).to.deep.equal(first.entities.map((e) => e.externalId));
      expect(new Set(first.entities.map((e) => e.externalId)).size).to.equal(rows);
      for (const e of first.entities) expect(e.entity).to.equal('rows');
    });
  }

  it('keeps leading zeros and European numbers as text, types plain numbers and booleans', async () => {
    const comma = await parse('parseCsv', fixture('csv', 'spectrum-comma_in_quotes.csv'));
    expect(comma.entities[0].data).to.deep.include({ zip: '08123', city: 'Anytown, WW' });
    const countries = await parse('parseCsv', fixture('csv', 'maximal-countries.tsv'));
    const afg = countries.entities.find((e) => e.data.alpha3 === 'AFG')!;
    expect(afg.data).to.deep.include({ iso: '004', 'name ru': 'Афганистан', 'name en': 'Afghanistan' });
    expect(countries.summary.fields.rows.iso).to.equal('text');
    expect(countries.entities.filter((e) => Object.values(e.data).includes(null))).to.have.length.greaterThan(0);
    const locale = await parse('parseCsv', fixture('csv', 'csvkit-test_locale.csv'));
    expect(locale.entities[0].data).to.deep.equal({ a: '1,7', b: '200.000.000', c: null });
    const localeComma = await parse('parseCsv', fixture('csv', 'csvkit-test_locale.csv'), { options: { decimalComma: true } });
    expect(localeComma.entities[0].data).to.deep.equal({ a: 1.7, b: 200000000, c: null });
    const bom = await parse('parseCsv', fixture('csv', 'rcsv-bom-crlf.csv'));
    expect(Object.keys(bom.entities[0].data)[0]).to.equal('Date');
    expect(bom.entities[0].data).to.deep.include({ Date: '2019-09-16', Open: 299.839996, Volume: 58191200 });
    expect(bom.summary.fields.rows).to.deep.include({ Date: 'date', Open: 'number' });
    const wix = await parse('parseCsv', fixture('csv', 'ghost-wix-posts.csv'));
    expect(wix.entities.map((e) => e.data.Featured)).to.deep.equal([true, false]);
    expect(wix.entities.map((e) => e.externalId)).to.deep.equal(['post-1', 'post-2']); // the ID column
    const coords = await parse('parseCsv', fixture('csv', 'spectrum-location_coordinates.csv'));
    expect(coords.entities[0].data['Contact Phone Number']).to.equal('2095257564'); // 10 digits: a code, not a number
  });

  it('detects encodings: UTF-8 with and without BOM, UTF-16LE, latin1, windows-1250', async () => {
    expect((await parse('parseCsv', fixture('csv', 'spectrum-utf8.csv'))).entities[1].data.c).to.equal('ʤ');
    expect((await parse('parseCsv', fixture('csv', 'csvkit-test_utf8_bom.csv'))).entities[1].data).to.deep.equal({
      foo: 4,
      bar: 5,
      baz: 'ʤ',
    });
    expect((await parse('parseCsv', fixture('csv', 'csvparser-utf16le-bom.csv'))).entities[1].data).to.deep.equal({ a: 4, b: 5, c: 'ʤ' });
    expect((await parse('parseCsv', fixture('csv', 'csvkit-test_latin1.csv'))).entities[1].data.c).to.equal('©');
    expect((await parse('parseCsv', fixture('csv', 'rcsv-encoding-windows1250.csv'))).entities[0].data).to.deep.equal({
      value1: 'Montréal',
      value2: 'Köppen',
    });
  });

  it('detects delimiters and reads CR-only, CRLF and quoted newlines', async () => {
    expect((await parse('parseCsv', fixture('csv', 'csvkit-sniff_limit-semicolon.csv'))).entities[0].data).to.deep.equal({
      a: 1,
      b: 2,
      c: 3,
    });
    expect((await parse('parseCsv', fixture('csv', 'csvkit-dummy.tsv'))).entities[0].data).to.deep.equal({ a: 1, b: 2, c: 3 });
    const mac = await parse('parseCsv', fixture('csv', 'csvkit-mac_newlines.csv'));
    expect(mac.entities[1].data.a).to.equal('Once upon\ra time');
    const crlf = await parse('parseCsv', fixture('csv', 'spectrum-newlines_crlf.csv'));
    expect(crlf.entities[1].data.a).to.equal('Once upon \r\na time');
    const header = await parse('parseCsv', fixture('csv', 'csvkit-test_header_newline.csv'));
    expect(Object.keys(header.entities[0].data)).to.deep.equal(['start end', 'b', 'c']);
    const escaped = await parse('parseCsv', fixture('csv', 'spectrum-escaped_quotes.csv'));
    expect(escaped.entities[0].data.b).to.equal('ha "ha" ha');
    const comment = await parse('parseCsv', fixture('csv', 'csvparser-comment.csv'));
    expect(comment.entities[0].data).to.deep.equal({ a: 1, b: 2, c: 3 });
  });

  it('warns with line numbers for ragged rows, NUL bytes and unnamed columns, and still imports the rows', async () => {
    const bad = await parse('parseCsv', fixture('csv', 'csvkit-bad.csv'));
    expect(warningAt(bad, 2, /4 fields, the header 3: extra values ignored/)).to.equal(true);
    expect(warningAt(bad, 3, /2 fields, the header 3: missing values left empty/)).to.equal(true);
    expect(bad.entities[1].data).to.deep.equal({ column_a: null, column_b: "I'm too short!", column_c: null });
    const strict = await parse('parseCsv', fixture('csv', 'csvparser-strict-extra-column.csv'));
    expect(warningAt(strict, 4, /extra values ignored \("10"\)/)).to.equal(true);
    expect(strict.entities[2].data).to.deep.equal({ a: 7, b: 8, c: 9 });
    const fsutils = await parse('parseCsv', fixture('csv', 'ghost-fsutils-malformed.csv'));
    expect(warningAt(fsutils, 2, /extrafield/)).to.equal(true);
    const nul = await parse('parseCsv', fixture('csv', 'csvkit-null_byte.csv'));
    expect(warningAt(nul, 2, /NUL bytes removed/)).to.equal(true);
    expect(nul.entities[0].data).to.deep.equal({ a: null, b: 2, c: 3 });
    const junk = await parse('parseCsv', fixture('csv', 'csvparser-bad-data.csv'));
    expect(warningAt(junk, 1, /column 1 has no name/)).to.equal(true);
    expect(Object.keys(junk.entities[0].data)).to.deep.equal(['column_1', 'somejunk', '<! />']);
  });

  it('a header-only file gives 0 rows with a warning; an empty file is blocked', async () => {
    const empty = await parse('parseCsv', fixture('csv', 'ghost-wix-header-only.csv'));
    expect(empty.summary.counts).to.deep.equal({ rows: 0 });
    expect(empty.summary.fields).to.deep.equal({});
    expect(empty.summary.warnings.map((w) => w.message)).to.deep.equal(['The file has a header but no data rows.']);
    const nothing = join(work, 'nothing.csv');
    writeFileSync(nothing, '');
    const blocked = await parse('parseCsv', nothing, { profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'unknown' } });
    expect(blocked.summary.blockedReasons).to.deep.equal(['The file is empty.']);
  });

  it('streams the 1 MB USGS file: 7,268 rows keyed by their unique id column, typed columns', async () => {
    const usgs = await parse('parseCsv', fixture('csv', 'csvparser-large-dataset-usgs.csv'));
    expect(usgs.entities[0].externalId).to.equal('ak12293661');
    expect(usgs.entities[0].data).to.deep.include({ latitude: 59.9988, mag: 3, nst: null, place: '54km S of Redoubt Volcano, Alaska' });
    expect(usgs.summary.fields.rows).to.deep.include({ time: 'date', latitude: 'number', nst: 'number', id: 'text' });
    const ks = await parse('parseCsv', fixture('csv', 'csvkit-realdata-ks_1033_data.csv'));
    expect(ks.entities[0].externalId).to.match(/^sha256:[0-9a-f]{64}$/); // no id column: keyed by the row's content
    expect(ks.entities[0].data).to.deep.include({
      nsn: '1005-00-073-9421',
      item_name: 'RIFLE,5.56 MILLIMETER',
      ship_date: '5/19/2006 0:00:00',
      fips: 20001,
    });
  });

  it('a pipe-delimited file and an unterminated quote: rows read, the broken record warned', async () => {
    const pipe = join(work, 'pipe.csv');
    writeFileSync(pipe, 'id|name|price\nA1|Tea|3.5\nA2|Coffee|4\n');
    const p = await parse('parseCsv', pipe);
    expect(p.entities.map((e) => [e.externalId, e.data.name, e.data.price])).to.deep.equal([
      ['A1', 'Tea', 3.5],
      ['A2', 'Coffee', 4],
    ]);
    const broken = join(work, 'broken.csv');
    writeFileSync(broken, 'a,b\n1,2\n3,"never closed\n4,5\n');
    const b = await parse('parseCsv', broken);
    expect(b.summary.counts.rows).to.equal(1);
    expect(b.summary.warnings.some((w) => /unreadable record skipped/.test(w.message))).to.equal(true);
  });
});

describe('import-tabular: json fixtures', () => {
  it('csvkit-testjson.json: 5 records, blanks stay blank, Unicode kept', async () => {
    const p = await parse('parseJson', fixture('json', 'csvkit-testjson.json'));
    expect(p.summary.counts).to.deep.equal({ rows: 5 });
    expect(p.summary.blockedReasons).to.deep.equal([]);
    expect(p.entities[0].data).to.deep.include({ text: 'Chicago Reader', float: 1, boolean: true, integer: 40 });
    const blank = p.entities.filter((e) => e.data.integer === '');
    expect(blank.length).to.be.greaterThan(0);
    for (const e of blank) expect(e.data.boolean).to.equal('');
    expect(p.entities.some((e) => String(e.data.text).includes('Unicode! Σ'))).to.equal(true);
  });

  it('csvkit-testjson_nested.json: 2 records with nested objects kept as json fields', async () => {
    const p = await parse('parseJson', fixture('json', 'csvkit-testjson_nested.json'));
    expect(p.summary.counts).to.deep.equal({ rows: 2 });
    expect(p.entities[0].data.nested).to.deep.equal({ time: '04:14:00', nested: { date: '1971-01-01', integer: 40 } });
    expect(p.summary.fields.rows.nested).to.equal('json');
  });

  it('csvkit-testjson_multiline-ndjson.json: NDJSON under a .json name, read line by line', async () => {
    const p = await parse('parseJson', fixture('json', 'csvkit-testjson_multiline-ndjson.json'));
    expect(p.summary.counts).to.deep.equal({ rows: 2 });
    expect(p.entities.map((e) => e.data)).to.deep.equal([
      { a: 2, b: 3 },
      { b: 2, d: 4 },
    ]);
    expect(Object.keys(p.summary.fields.rows).sort()).to.deep.equal(['a', 'b', 'd']);
  });

  it('ghost-mgjson-multi-post-only.json: 3 records under the "posts" wrapper key', async () => {
    const p = await parse('parseJson', fixture('json', 'ghost-mgjson-multi-post-only.json'));
    expect(p.summary.counts).to.deep.equal({ rows: 3 });
    expect((p.entities[0].data.data as Record<string, unknown>).title).to.equal('Blog Post Title');
    for (const e of p.entities) expect(e.externalId).to.match(/^sha256:[0-9a-f]{64}$/); // no id field: keyed by content
    expect(new Set(p.entities.map((e) => e.externalId)).size).to.equal(3);
  });

  it('keyed objects, a single object, id fields, and malformed JSON', async () => {
    const keyed = join(work, 'keyed.json');
    writeFileSync(keyed, JSON.stringify({ alpha: { title: 'A' }, beta: { title: 'B' }, version: 3 }));
    const k = await parse('parseJson', keyed);
    expect(k.entities.map((e) => [e.externalId, e.data.title])).to.deep.equal([
      ['alpha', 'A'],
      ['beta', 'B'],
    ]);
    expect(k.summary.warnings.some((w) => /root keys beside the records ignored: version/.test(w.message))).to.equal(true);
    const single = join(work, 'single.json');
    writeFileSync(single, JSON.stringify({ id: 'only', title: 'One' }));
    expect((await parse('parseJson', single)).entities.map((e) => e.externalId)).to.deep.equal(['only']);
    const ids = join(work, 'ids.json');
    writeFileSync(ids, JSON.stringify({ meta: { n: 3 }, items: [{ id: 7 }, { id: 8 }, { id: 7 }, 'scalar'] }));
    const i = await parse('parseJson', ids);
    expect(i.entities.map((e) => e.externalId).slice(0, 2)).to.deep.equal(['7', '8']);
    expect(i.entities[2].externalId).to.match(/^sha256:[0-9a-f]{64}$/); // a repeated id: keyed by content
    expect(i.summary.warnings.some((w) => /id "7" repeats/.test(w.message))).to.equal(true);
    expect(i.summary.warnings.some((w) => w.line === 4 && /not an object/.test(w.message))).to.equal(true);
    const broken = join(work, 'broken.json');
    writeFileSync(broken, '[{"a":1},{"a":2},{"a":');
    const b = await parse('parseJson', broken, { profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'unknown' } });
    expect(b.summary.counts.rows).to.equal(2);
    expect(b.summary.warnings.some((w) => /not well-formed/.test(w.message))).to.equal(true);
    const garbage = join(work, 'garbage.json');
    writeFileSync(garbage, '{nope');
    const g = await parse('parseJson', garbage, { profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'unknown' } });
    expect(g.summary.blockedReasons[0]).to.match(/not valid JSON/);
  });

  it('refuses records nested past maxDepth before building them, and imports the rest', async () => {
    const deep = join(work, 'deep.json');
    const nest = (n: number): string => '{"x":'.repeat(n) + '1' + '}'.repeat(n);
    writeFileSync(deep, `[{"id":"ok","v":{"a":1}},{"id":"deep","v":${nest(100000)}},{"id":"after"}]`);
    const p = await parse('parseJson', deep, { maxDepth: 8, profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'json' } });
    expect(p.entities.map((e) => e.externalId)).to.deep.equal(['ok', 'after']);
    expect(p.summary.warnings.some((w) => w.line === 2 && /nested deeper than 8 levels/.test(w.message))).to.equal(true);
    const deepLines = join(work, 'deep.ndjson');
    writeFileSync(deepLines, `{"a":1}\n{"b":${nest(50000)}}\nnot json\n{"c":3}\n`);
    const n = await parse('parseJson', deepLines, {
      filename: 'deep.json',
      maxDepth: 8,
      profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'ndjson' },
    });
    expect(n.entities.map((e) => e.data)).to.deep.equal([{ a: 1 }, { c: 3 }]);
    expect(warningAt(n, 2, /nested deeper than 8/)).to.equal(true);
    expect(warningAt(n, 3, /not valid JSON/)).to.equal(true);
  });
});

describe('import-tabular: self_cms (content-package entry NDJSON, generated here: the folder has no files)', () => {
  const lines = [
    JSON.stringify({ _type: 'manifest', format: 'self_cms', version: 1, exportedAt: '2026-11-22T10:00:00Z' }),
    JSON.stringify({ collection: 'posts', _id: 'p1', slug: 'hello', status: 'published', data: { title: 'Hello', body: '<p>Hi</p>' } }),
    JSON.stringify({ collection: 'posts', _id: 'p2', slug: 'draft', status: 'draft', data: { title: 'Draft', tags: ['a', 'b'] } }),
    '{"collection":"posts","_id":"p3",',
    '',
    JSON.stringify({ collection: 'pages', syncId: 'about-sync', title: 'About', status: 'published' }),
    JSON.stringify({ data: { title: 'no collection' } }),
    JSON.stringify({ collection: 'posts', _id: 'p1', data: { title: 'duplicate' } }),
  ];

  it('one entity per line, named after its collection; malformed lines warned with their line number', async () => {
    const file = join(work, 'export.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');
    const profile = await profileOf(file, 'export.ndjson');
    const p = await parse('parseSelfCms', file, { profile });
    expect(p.summary.counts).to.deep.equal({ posts: 3, pages: 1 });
    expect(p.summary.blockedReasons).to.deep.equal([]);
    expect(p.entities[0]).to.deep.include({ entity: 'posts', externalId: 'p1', status: 'published', line: 2 });
    expect(p.entities[0].data).to.deep.equal({ title: 'Hello', body: '<p>Hi</p>', slug: 'hello' });
    expect(p.entities.find((e) => e.entity === 'pages')).to.deep.include({ externalId: 'about-sync', data: { title: 'About' } });
    expect(p.entities[3].externalId).to.match(/^sha256:[0-9a-f]{64}$/); // a repeated _id: keyed by content
    expect(warningAt(p, 4, /not valid JSON/)).to.equal(true);
    expect(warningAt(p, 7, /no valid "collection"/)).to.equal(true);
    expect(warningAt(p, 8, /appears twice/)).to.equal(true);
    const again = await parse('parseSelfCms', file, { profile });
    expect(again.entities.map((e) => e.externalId)).to.deep.equal(p.entities.map((e) => e.externalId));
    const scores = Object.fromEntries(
      TABULAR_FORMATS.map((f) => [f.format, f.detect({ filename: 'export.ndjson', size: 0, head: Buffer.alloc(0), profile })]),
    );
    expect(scores.self_cms).to.be.at.least(0.9);
    expect(scores.json).to.be.below(scores.self_cms);
  });

  it('a file with no entries is blocked', async () => {
    const file = join(work, 'none.ndjson');
    writeFileSync(file, lines[0] + '\n');
    const p = await parse('parseSelfCms', file);
    expect(p.summary.blockedReasons).to.deep.equal(['The file holds no content entries.']);
  });
});

describe('import-tabular: shop_products fixtures', () => {
  it('shopify-product_template.csv: 17 rows = 3 products with 12 + 3 + 1 variants', async () => {
    const p = await parse('parseShopHosted', fixture('shop_products', 'shopify-product_template.csv'));
    expect(p.summary.counts).to.deep.equal({ products: 3 });
    expect(p.entities.map((e) => e.externalId)).to.deep.equal(['example-shirt', 'example-pants', 'example-hat']);
    expect(p.entities.map((e) => (e.data.variants as unknown[]).length)).to.deep.equal([12, 3, 1]);
    expect(p.entities.map((e) => e.status)).to.deep.equal(['published', 'draft', 'draft']);
    expect(p.entities.map((e) => e.data.active)).to.deep.equal([true, false, false]);
    const [shirt, pants, hat] = p.entities.map((e) => e.data);
    expect(shirt).to.deep.include({ title: 'Example T-Shirt', sku: 'SRT_COT_111', price: 25, stock: 0 });
    expect(String(shirt.description)).to.match(/^<p>This t-shirt/);
    expect(shirt.image).to.match(/^https:\/\/burst\.shopifycdn\.com\/photos\/tshirts\.jpg/);
    expect(pants).to.deep.include({ price: 95, stock: 45 });
    expect(pants.images as string[]).to.have.length(4); // the image-only fourth row
    expect(hat).to.deep.include({ price: 17.99, stock: 50, sku: 'HAT_GRY_275' });
    expect((shirt.variants as Array<Record<string, unknown>>)[0]).to.deep.include({ barcode: '3.65275E+11' });
    expect(p.summary.warnings.filter((w) => /scientific notation/.test(w.message))).to.have.length(16);
    expect(p.summary.fields.products).to.deep.include({
      price: 'number',
      stock: 'number',
      image: 'media',
      active: 'boolean',
      variants: 'json',
      description: 'richtext',
    });
  });

  it('shopify-product_template-legacy-2019.csv: 1 product with 3 variants, escaped quotes kept', async () => {
    const p = await parse('parseShopHosted', fixture('shop_products', 'shopify-product_template-legacy-2019.csv'));
    expect(p.summary.counts).to.deep.equal({ products: 1 });
    const variants = p.entities[0].data.variants as Array<{ options: Record<string, string>; sku: string | null; price: number }>;
    expect(variants.map((v) => v.sku)).to.deep.equal([null, 'example-shirt-s', 'example-shirt-m']);
    expect(Object.values(variants[0].options)).to.deep.equal(['Lithograph - Height: 9" x Width: 12"']);
    expect(p.entities[0].data).to.deep.include({ title: 'Example T-Shirt', sku: 'example-shirt-s', price: 25, active: true });
  });

  it('woocommerce-sample_products.csv: 24 rows = 15 products, 9 variations attached to their 2 parents', async () => {
    const p = await parse('parseShopPlugin', fixture('shop_products', 'woocommerce-sample_products.csv'));
    expect(p.summary.counts).to.deep.equal({ products: 15 });
    expect(p.summary.warnings).to.deep.equal([]);
    const byId = new Map(p.entities.map((e) => [e.externalId, e.data]));
    expect((byId.get('id:741')!.variants as unknown[]).length).to.equal(3);
    expect((byId.get('id:742')!.variants as unknown[]).length).to.equal(6);
    expect(byId.get('id:741')).to.deep.include({ title: 'T-Shirt', sku: 'cc-tee', price: 25 });
    expect(byId.get('id:745')).to.deep.include({ title: 'Beanie', price: 20, salePrice: 18, active: true });
    expect(byId.get('id:753')!.productTypes).to.deep.equal(['simple', 'downloadable', 'virtual']);
    expect(byId.get('id:871')!.groupedProducts).to.include('cc-hoodie-with-logo');
    const types = p.entities.map((e) => (e.data.productTypes as string[])[0]);
    expect(types.filter((t) => t === 'simple')).to.have.length(11);
    expect(types.filter((t) => t === 'variable')).to.have.length(2);
  });

  it('woocommerce-importer-test-sample.csv: 7 rows = 5 products, 2 nameless variations under WOOIDEA', async () => {
    const p = await parse('parseShopPlugin', fixture('shop_products', 'woocommerce-importer-test-sample.csv'));
    expect(p.summary.counts).to.deep.equal({ products: 5 });
    const idea = p.entities.find((e) => e.externalId === 'sku:WOOIDEA')!;
    expect((idea.data.variants as unknown[]).length).to.equal(2);
    expect(idea.data).to.deep.include({ price: 20, stock: 16 });
    expect(p.entities.find((e) => e.externalId === 'sku:WOOLOGO')!.data).to.deep.include({
      price: 20,
      salePrice: 18,
      stock: 5,
      backorders: 'notify',
    });
    expect(p.entities.map((e) => e.data.buttonText).filter(Boolean)).to.have.length.greaterThan(0);
    const again = await parse('parseShopPlugin', fixture('shop_products', 'woocommerce-importer-test-sample.csv'));
    expect(again.entities.map((e) => e.externalId)).to.deep.equal(p.entities.map((e) => e.externalId));
  });

  it('admin-API products JSON (generated): products with variants, images and status', async () => {
    const file = join(work, 'products.json');
    writeFileSync(
      file,
      JSON.stringify({
        products: [
          {
            id: 632910392,
            title: 'IPod Nano - 8GB',
            handle: 'ipod-nano',
            body_html: "<p>It's the small iPod</p>",
            vendor: 'Apple',
            product_type: 'Cult Products',
            status: 'active',
            tags: 'Emotive, Flash Memory',
            options: [{ name: 'Color' }],
            variants: [
              { id: 1, sku: 'IPOD2008PINK', price: '199.00', inventory_quantity: 10, option1: 'Pink' },
              { id: 2, sku: 'IPOD2008RED', price: '199.00', inventory_quantity: 20, option1: 'Red' },
            ],
            images: [{ src: 'https://cdn.example/ipod-nano.png' }],
            image: { src: 'https://cdn.example/ipod-nano.png' },
          },
          {
            id: 921728736,
            title: 'IPod Touch 8GB',
            handle: 'ipod-touch',
            body_html: '<p>Touch</p>',
            status: 'draft',
            variants: [{ sku: 'IPOD2009BLACK', price: '199.00', inventory_quantity: 13 }],
            images: [],
          },
        ],
      }),
    );
    const profile = await profileOf(file, 'products.json');
    const scores = Object.fromEntries(
      TABULAR_FORMATS.map((f) => [f.format, f.detect({ filename: 'products.json', size: 0, head: Buffer.alloc(0), profile })]),
    );
    expect(scores.shop_products_hosted).to.be.at.least(0.9);
    expect(scores.json).to.be.below(scores.shop_products_hosted);
    const p = await parse('parseShopHosted', file, { profile, options: { currency: 'usd' } });
    expect(p.summary.counts).to.deep.equal({ products: 2 });
    expect(p.entities[0]).to.deep.include({ externalId: '632910392', status: 'published' });
    expect(p.entities[0].data).to.deep.include({
      title: 'IPod Nano - 8GB',
      sku: 'IPOD2008PINK',
      price: 199,
      stock: 30,
      currency: 'USD',
      image: 'https://cdn.example/ipod-nano.png',
      active: true,
    });
    expect(p.entities[0].data.tags).to.deep.equal(['Emotive', 'Flash Memory']);
    expect(p.entities[1]).to.deep.include({ status: 'draft' });
    expect(p.entities[1].data).to.deep.include({ image: null, active: false, stock: 13 });
  });
});

describe('import-tabular: detection from real profiles', () => {
  const OWN: Record<string, string> = { csv: 'csv', json: 'json', shop_products: '' };
  const folders = readdirSync(FIXTURES).filter((d) => statSync(join(FIXTURES, d)).isDirectory());
  const score = (format: string, filename: string, profile: ImportProfile) =>
    TABULAR_FORMATS.find((f) => f.format === format)!.detect({ filename, size: 0, head: Buffer.alloc(0), profile });

  it('every csv fixture: csv at 0.9; every shop fixture: its shop format at 0.95, above csv', async () => {
    for (const file of readdirSync(join(FIXTURES, 'csv')).filter((f) => f !== 'README.md')) {
      const profile = await profileOf(fixture('csv', file), file);
      expect(score('csv', file, profile), file).to.be.at.least(0.8);
      for (const other of ['json', 'self_cms', 'shop_products_hosted', 'shop_products_plugin'])
        expect(score(other, file, profile), `${file} ${other}`).to.be.below(0.5);
    }
    for (const file of readdirSync(join(FIXTURES, 'shop_products')).filter((f) => f !== 'README.md')) {
      const profile = await profileOf(fixture('shop_products', file), file);
      const own = file.startsWith('shopify') ? 'shop_products_hosted' : 'shop_products_plugin';
      const otherShop = own === 'shop_products_hosted' ? 'shop_products_plugin' : 'shop_products_hosted';
      expect(score(own, file, profile), file).to.be.at.least(0.9);
      expect(score('csv', file, profile), file).to.be.below(score(own, file, profile));
      expect(score(otherShop, file, profile), file).to.be.below(0.5);
    }
  });

  it('every json fixture: json is the best of these formats at a moderate 0.5-0.6 (so platform formats win)', async () => {
    for (const file of readdirSync(join(FIXTURES, 'json')).filter((f) => f !== 'README.md')) {
      const profile = await profileOf(fixture('json', file), file);
      const s = score('json', file, profile);
      expect(s, file).to.be.within(0.5, 0.6);
      for (const other of ['csv', 'self_cms', 'shop_products_hosted', 'shop_products_plugin'])
        expect(score(other, file, profile), `${file} ${other}`).to.be.below(s);
    }
  });

  it("other folders' fixtures: csv, self_cms and the shop formats score 0; json stays at most 0.6", async () => {
    for (const folder of folders.filter((d) => !(d in OWN))) {
      for (const file of readdirSync(join(FIXTURES, folder)).filter((f) => f !== 'README.md')) {
        const profile = await profileOf(fixture(folder, file), file);
        for (const other of ['csv', 'self_cms', 'shop_products_hosted', 'shop_products_plugin'])
          expect(score(other, file, profile), `${folder}/${file} ${other}`).to.equal(0);
        expect(score('json', file, profile), `${folder}/${file}`).to.be.at.most(0.6);
      }
    }
  });
});

describe('import-tabular: the plugin in a kernel', () => {
  for (const db of DB_VARIANTS) {
    for (const cache of CACHE_VARIANTS) {
      describe(`${db.name} + ${cache.name}`, () => {
        let k: TestKernel;
        before(async function () {
          requireVariant(this, db);
          requireVariant(this, cache);
          k = await startTestKernel({ db: db.name, cache: cache.name });
        });
        after(async () => k?.close());

        it('registers its five formats with their worker task, and the pool runs one', async () => {
          const registry = k.kernel.registries.importFormats;
          for (const name of ['csv', 'json', 'self_cms', 'shop_products_hosted', 'shop_products_plugin']) {
            const f = registry.get(name)!;
            expect(f, name).to.not.equal(undefined);
            expect(f.taskFile).to.match(/import-tabular[\\/]parse-task\.js$/);
          }
          expect(registry.get('csv')!.extensions).to.deep.equal(['.csv', '.tsv']);
          expect(registry.get('self_cms')!.extensions).to.deep.equal(['.ndjson']);
          const csv = registry.get('csv')!;
          const spoolPath = join(work, `pool-${db.name}-${cache.name}.ndjson`);
          const path = fixture('csv', 'spectrum-utf8.csv');
          const profile = await profileOf(path, 'spectrum-utf8.csv');
          const pool = k.kernel.container.resolve('pool') as { run(name: string, input: unknown, filename?: string): Promise<unknown> };
          const result = (await pool.run(
            csv.parseTask,
            { path, filename: 'spectrum-utf8.csv', workDir: work, spoolPath, profile, maxDepth: 32 },
            csv.taskFile,
          )) as { ok: boolean; value: ImportParseSummary };
          expect(result.ok).to.equal(true);
          expect(result.value.counts).to.deep.equal({ rows: 2 });
        });
      });
    }
  }
});

describe('import-tabular: through the importers HTTP flow', function () {
  this.timeout(120000);
  for (const db of DB_VARIANTS) {
    describe(db.name, () => {
      const k = useIdentityKernel(db);
      const post = (path: string, body: FormData | unknown, identity = 'admin') => postAs(k, identity, path, body);
      const upload = (content: Buffer | string, filename: string) => validateUpload(k, content, filename);

      it('csv: validate -> preview (scaffold) -> run -> jobs -> entries', async () => {
        const csv = 'id,name,price,active\nA1,Tea,3.5,true\nA2,"Coffee, dark",4,false\n';
        const v = await upload(csv, 'catalogue.csv');
        expect(v.status, JSON.stringify(v.body)).to.equal(200);
        expect(v.body.data).to.include({ valid: true, detectedFormat: 'csv' });
        expect(v.body.data.summary).to.deep.equal({ rows: 2 });
        const preview = await post('/api/importers/preview', { format: 'csv', uploadId: v.body.data.uploadId, scaffold: true });
        const plan = (await preview.json()).data;
        expect(preview.status, JSON.stringify(plan)).to.equal(200);
        const op = plan.operations.find((o: { sourceType: string }) => o.sourceType === 'rows');
        expect(op.count).to.equal(2);
        const run = await post('/api/importers/run', { planId: plan.planId, confirmed: true });
        const { jobId } = await run.json();
        const job = await pollImportJob(k, jobId, 'admin', 400);
        expect(job.results.rows).to.include({ imported: 2, failed: 0 });
        const list = (await (await k.request(`/api/collections/${op.targetCollection}?limit=100`, { identity: 'admin' })).json()).data;
        expect(list.total).to.equal(2);
        expect(list.items.map((i: Record<string, unknown>) => i.name).sort()).to.deep.equal(['Coffee, dark', 'Tea']);
      });

      it('product CSVs and self_cms NDJSON are detected as their own formats with their entity counts', async () => {
        const woo = await upload(readFileSync(fixture('shop_products', 'woocommerce-sample_products.csv')), 'products.csv');
        expect(woo.body.data).to.include({ valid: true, detectedFormat: 'shop_products_plugin' });
        expect(woo.body.data.summary).to.deep.equal({ products: 15 });
        const shop = await upload(readFileSync(fixture('shop_products', 'shopify-product_template.csv')), 'export.csv');
        expect(shop.body.data).to.include({ valid: true, detectedFormat: 'shop_products_hosted' });
        expect(shop.body.data.summary).to.deep.equal({ products: 3 });
        expect(shop.body.data.warnings.length).to.be.greaterThan(0);
        const ndjson = [
          { collection: 'posts', _id: 'p1', data: { title: 'One' } },
          { collection: 'pages', _id: 'g1', data: { title: 'About' } },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n');
        const self = await upload(ndjson, 'package.ndjson');
        expect(self.body.data).to.include({ valid: true, detectedFormat: 'self_cms' });
        expect(self.body.data.summary).to.deep.equal({ posts: 1, pages: 1 });
        const json = await upload(readFileSync(fixture('json', 'csvkit-testjson.json')), 'data.json');
        expect(json.body.data).to.include({ valid: true, detectedFormat: 'json' });
        expect(json.body.data.summary).to.deep.equal({ rows: 5 });
      });
    });
  }
});
