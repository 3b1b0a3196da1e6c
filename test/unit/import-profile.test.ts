import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ImportProfile } from '../../plugins/importers/public.js';
import { importProfile, sniffDelimiter, unsafeEntryPath } from '../../workers/import/profile.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

/** The shared real-world fixtures (../shared/fixtures/imports next to the checkout, or CMS_IMPORT_FIXTURES). */
const FIXTURES = IMPORT_FIXTURES;
const fixture = (path: string) => join(FIXTURES, path);

async function profile(path: string, maxDepth = 32): Promise<ImportProfile> {
  const result = await importProfile({ path, filename: path.split('/').pop()!, maxDepth });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

describe('import profile task (workers/import/profile)', function () {
  let dir: string;
  before(function () {
    if (!existsSync(FIXTURES)) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'cms-profile-'));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('classifies Drupal JSON:API output by structure: records under data, their types', async () => {
    const p = await profile(fixture('php_cms/drupal-umami-articles-en.jsonapi.json'));
    expect(p).to.include({ container: 'plain', kind: 'json', encoding: 'utf-8', bom: false });
    expect(p.json).to.include({ root: 'object', recordsPath: 'data', recordCount: 10 });
    expect(p.json!.recordTypes).to.deep.equal(['node--article']);
    expect(p.json!.topKeys).to.include.members(['jsonapi', 'data', 'links']);
    expect(p.json!.recordKeys).to.include.members(['type', 'id', 'attributes', 'relationships']);
  });

  it('a root array of records (Directus items) has recordsPath ""', async () => {
    const p = await profile(fixture('data_cms/directus-simple-website-cms-posts.json'));
    expect(p.json).to.include({ root: 'array', recordsPath: '', recordCount: 6 });
    expect(p.json!.recordKeys).to.include.members(['id', 'slug', 'status']);
  });

  it('reads NDJSON line by line', async () => {
    const p = await profile(fixture('json/csvkit-testjson_multiline-ndjson.json'));
    expect(p.kind).to.equal('ndjson');
    expect(p.ndjson).to.deep.equal({ lines: 2, recordKeys: ['a', 'b', 'd'], recordTypes: [] });
  });

  it('profiles WordPress WXR: root rss, the wp namespace, elements, well-formed', async () => {
    const p = await profile(fixture('xml_blog/wpimporter-valid-wxr-1.1.xml'));
    expect(p.kind).to.equal('xml');
    expect(p.xml).to.include({ root: 'rss', doctype: false, wellFormed: true });
    expect(p.xml!.namespaces.wp).to.equal('http://wordpress.org/export/1.1/');
    expect(p.xml!.elements).to.include.members(['rss', 'channel', 'item', 'wp:post_id']);
  });

  it('marks a broken WXR as not well-formed', async () => {
    const p = await profile(fixture('xml_blog/wpimporter-malformed-simple.xml'));
    expect(p.xml).to.include({ root: 'rss', wellFormed: false });
  });

  it('lists a Strapi export archive (gzip tar) and profiles its small .json members', async () => {
    const p = await profile(fixture('node_cms/strapi4-dashboard-export.tar.gz'));
    expect(p.container).to.equal('tar');
    expect(p.archive!.entries).to.include.members(['metadata.json', 'entities/entities_00001.jsonl', 'schemas/schemas_00001.jsonl']);
    expect(p.archive!.rejected).to.deep.equal([]);
    expect(p.archive!.jsonEntries['metadata.json']!.root).to.equal('object');
  });

  it('CSV: delimiter, header and rows; a UTF-8 BOM is removed from the first header', async () => {
    const p = await profile(fixture('csv/rcsv-bom-crlf.csv'));
    expect(p).to.include({ kind: 'delimited', encoding: 'utf-8', bom: true });
    expect(p.delimited!.delimiter).to.equal(',');
    expect(p.delimited!.header[0]).to.equal('Date');
    // Over PROFILE_BYTES: only its start is profiled (the parse counts all 7268 rows).
    const big = await profile(fixture('csv/csvparser-large-dataset-usgs.csv'));
    expect(big).to.include({ partial: true });
    expect(big.delimited).to.include({ delimiter: ',' });
    expect(big.delimited!.rows).to.be.above(1000).and.below(7268);
  });

  it('CSV in UTF-16 LE with a BOM, semicolons, tabs', async () => {
    const p = await profile(fixture('csv/csvparser-utf16le-bom.csv'));
    expect(p).to.include({ kind: 'delimited', encoding: 'utf-16le', bom: true });
    expect(p.delimited).to.deep.equal({ delimiter: ',', header: ['a', 'b', 'c'], rows: 2 });
    expect((await profile(fixture('csv/csvkit-sniff_limit-semicolon.csv'))).delimited!.delimiter).to.equal(';');
    expect((await profile(fixture('csv/maximal-countries.tsv'))).delimited).to.include({ delimiter: '\t', rows: 250 });
  });

  it('a non-UTF-8 CSV gets a single-byte encoding, not utf-8', async () => {
    const p = await profile(fixture('csv/csvkit-test_latin1.csv'));
    expect(p.kind).to.equal('delimited');
    expect(p.encoding).to.not.equal('utf-8');
  });

  it('stops a JSON parse past the depth bound', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const p = await profile(write('deep.json', deep), 16);
    expect(p.kind).to.equal('json');
    expect(p.json!.maxDepth).to.equal(17);
  });

  it('never resolves a DOCTYPE: external entities are not read', async () => {
    const xml = '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<r>&x;</r>';
    const p = await profile(write('xxe.xml', xml));
    expect(p.xml).to.include({ root: 'r', doctype: true });
  });

  it('empty, binary and garbage files', async () => {
    expect((await profile(write('empty.txt', ''))).kind).to.equal('unknown');
    expect((await profile(write('bin.dat', Buffer.from(Array.from({ length: 512 }, (_, i) => i % 7))))).kind).to.equal('binary');
    expect((await profile(write('words.txt', 'just some words without structure\n'))).kind).to.equal('unknown');
  });

  it('refuses unsafe archive paths', () => {
    expect(unsafeEntryPath('../etc/passwd')).to.equal(true);
    expect(unsafeEntryPath('a/../../b')).to.equal(true);
    expect(unsafeEntryPath('/abs/path')).to.equal(true);
    expect(unsafeEntryPath('C:\\windows')).to.equal(true);
    expect(unsafeEntryPath('entities/entities_00001.jsonl')).to.equal(false);
    expect(sniffDelimiter('a;b;c\n1;2;3\n', 'x.csv')).to.equal(';');
  });

  it('answers a missing file with a task issue, not a throw', async () => {
    const result = await importProfile({ path: join(dir, 'nope'), filename: 'nope', maxDepth: 8 });
    expect(result.ok).to.equal(false);
  });
});
