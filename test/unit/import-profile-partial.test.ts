import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadWriter } from '../helpers/import-fixtures.js';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { WorkerPool } from '../../kernel/pool.js';
import type { ImportFormat } from '../../plugins/importers/public.js';
import { TABULAR_FORMATS } from '../../plugins/import-tabular/formats.js';
import { detectWxr } from '../../plugins/import-wxr/detect-wxr.js';
import { analyseUpload, type FormatsView } from '../../plugins/importers/analyse.js';
import { ImportLimitExceededError } from '../../plugins/importers/errors.js';
import { importProfile, PROFILE_BYTES } from '../../workers/import/profile.js';

/**
 * The profile reads only the first PROFILE_BYTES of a large XML, NDJSON or delimited file (`partial`);
 * what it used to find further on is still found by the format's parse task over the whole file: a
 * CSV record or NDJSON line past the line limit is refused with the same code and message (413
 * maxLineBytes, naming the line), and XML that is not well-formed further on lowers the WXR confidence
 * exactly as a whole-file profile did, with the parse's warning naming the line.
 */
const WXR: ImportFormat = {
  format: 'xml_blog',
  label: 'WordPress (WXR)',
  extensions: ['.xml'],
  features: [],
  detect: detectWxr,
  parseTask: 'parseWxr',
  taskFile: fileURLToPath(new URL('../../plugins/import-wxr/parse-task.js', import.meta.url)),
};
const ALL = [...TABULAR_FORMATS, WXR];
const KiB = 1024;

const WXR_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Big</title><wp:wxr_version>1.2</wp:wxr_version>
`;
const item = (i: number) =>
  `<item><title>Post ${i}</title><content:encoded><![CDATA[<p>${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>]]></content:encoded>` +
  `<wp:post_id>${i}</wp:post_id><wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>\n`;

/** A WXR of `count` items; `broken(i)` may replace item i's text. */
function wxr(count: number, broken?: (i: number) => string | undefined): string {
  const parts = [WXR_HEAD];
  for (let i = 1; i <= count; i++) parts.push(broken?.(i) ?? item(i));
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}

describe('unit: partial profile (first PROFILE_BYTES) and what the parse still refuses', function () {
  this.timeout(60000);
  let pool: WorkerPool;
  let dir: string;
  const formats: FormatsView = { list: () => ALL, get: (f) => ALL.find((x) => x.format === f) };
  const upload = uploadWriter(() => dir);
  const deps = (limits = {}) => ({ pool, formats, maxDepth: 32, limits });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cms-unit-partial-'));
    pool = new WorkerPool({ maxThreads: 1, idleTimeoutMs: 60000 });
  });
  after(async () => {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a CSV over PROFILE_BYTES: the header and the first rows profile; a long record past the profiled part is refused by the parse, naming its line', async () => {
    const rows = ['id,title,body'];
    for (let size = 0; size < PROFILE_BYTES + 64 * KiB;)
      size += rows[rows.push(`${rows.length},Row ${rows.length},"some text, quoted"`) - 1]!.length + 1;
    const longLine = rows.length + 1;
    rows.push(`${rows.length},Long,"${'x'.repeat(100 * KiB)}"`, '99999,After,end', '');
    const u = upload('big.csv', rows.join('\n'));
    const p = await importProfile({ path: u.path, filename: 'big.csv', limits: { maxLineBytes: 64 * KiB } });
    expect(p.ok).to.equal(true);
    if (!p.ok) return;
    expect(p.value).to.include({ kind: 'delimited', partial: true });
    expect(p.value.delimited).to.deep.include({ delimiter: ',', header: ['id', 'title', 'body'] });
    expect(p.value.delimited!.rows).to.be.above(1000).and.below(longLine);
    let refused: unknown;
    await analyseUpload(deps({ maxLineBytes: 64 * KiB }), u).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(ImportLimitExceededError);
    const err = refused as ImportLimitExceededError;
    expect(err.status).to.equal(413);
    expect(err.extra.limit).to.equal('maxLineBytes');
    expect(err.message).to.match(new RegExp(`: CSV record over 64 KiB at line ${longLine} \\(importers\\.maxLineBytes`));
  });

  it('NDJSON over PROFILE_BYTES: a line past the limit after the profiled part is refused by the parse, naming its line', async () => {
    const lines: string[] = [];
    for (let size = 0; size < PROFILE_BYTES + 64 * KiB;)
      size += lines[lines.push(JSON.stringify({ id: lines.length + 1, title: `Line ${lines.length + 1}` })) - 1]!.length + 1;
    const longLine = lines.length + 1;
    lines.push(JSON.stringify({ id: longLine, title: 'y'.repeat(100 * KiB) }), '');
    const u = upload('big.ndjson', lines.join('\n'));
    const p = await importProfile({ path: u.path, filename: 'big.ndjson', limits: { maxLineBytes: 64 * KiB } });
    expect(p.ok && p.value).to.deep.include({ kind: 'ndjson', partial: true });
    expect(p.ok && p.value.ndjson!.recordKeys).to.deep.equal(['id', 'title']);
    let refused: unknown;
    await analyseUpload(deps({ maxLineBytes: 64 * KiB }), u).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(ImportLimitExceededError);
    expect((refused as Error).message).to.match(new RegExp(`: NDJSON line over 64 KiB at line ${longLine} `));
  });

  it('a small file is still profiled whole (not partial)', async () => {
    const u = upload('small.csv', 'a,b\n1,2\n');
    const p = await importProfile({ path: u.path, filename: 'small.csv' });
    expect(p.ok && p.value.partial).to.equal(undefined);
    expect(p.ok && p.value.delimited!.rows).to.equal(1);
  });

  describe('WXR over PROFILE_BYTES', () => {
    const count = Math.ceil((PROFILE_BYTES * 1.4) / item(1).length);
    const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

    it('well-formed: detected from the profiled part with the same confidence as a whole profile', async () => {
      const text = wxr(count);
      const u = upload('big.xml', text);
      const p = await importProfile({ path: u.path, filename: 'big.xml' });
      expect(p.ok && p.value).to.deep.include({ kind: 'xml', partial: true });
      expect(p.ok && p.value.xml).to.include({ root: 'rss', wellFormed: true });
      const a = await analyseUpload(deps(), u);
      expect(a.format).to.equal('xml_blog');
      expect(a.confidence).to.equal(0.97);
      expect(a.summary.counts.posts).to.equal(count);
      expect(a.summary.wellFormed).to.equal(true);
    });

    it('a wrong close tag past the profiled part: the profile cannot see it; the parse warns at its line and the confidence drops as before', async () => {
      const bad = count - 5;
      const text = wxr(count, (i) => (i === bad ? item(i).replace('</title>', '</titel>') : undefined));
      const u = upload('broken.xml', text);
      expect(text.indexOf('</titel>')).to.be.above(PROFILE_BYTES);
      const p = await importProfile({ path: u.path, filename: 'broken.xml' });
      expect(p.ok && p.value.xml!.wellFormed).to.equal(true);
      const a = await analyseUpload(deps(), u);
      expect(a.format).to.equal('xml_blog');
      // 0.96 (namespace and wp: elements) - 0.05 (not well-formed) + 0.01 (.xml): what a whole-file profile gave.
      expect(a.confidence).to.be.closeTo(0.92, 1e-9);
      expect(a.profile!.xml!.wellFormed).to.equal(false);
      const warning = a.warnings.find((w) => w.message.includes('not well-formed XML'));
      expect(warning, JSON.stringify(a.warnings)).to.not.equal(undefined);
      expect(warning!.line).to.equal(lineOf(text, '</titel>'));
      expect(a.summary.counts.posts).to.equal(bad - 1);
    });

    it('a bare "&" past the profiled part: repaired by the parse, and still scored as not well-formed', async () => {
      const text = wxr(count, (i) => (i === count - 1 ? item(i).replace('Post ', 'Fish & chips ') : undefined));
      const u = upload('amp.xml', text);
      const a = await analyseUpload(deps(), u);
      expect(a.confidence).to.be.closeTo(0.92, 1e-9);
      expect(a.summary.counts.posts).to.equal(count);
      expect(a.warnings.some((w) => w.message.includes('bare "&"'))).to.equal(true);
    });

    it('truncated past the profiled part: what was read imports, the cut is warned', async () => {
      const full = wxr(count);
      const text = full.slice(0, Math.floor(full.length * 0.9));
      const u = upload('cut.xml', text);
      const a = await analyseUpload(deps(), u);
      expect(a.format).to.equal('xml_blog');
      expect(a.confidence).to.be.closeTo(0.92, 1e-9);
      expect(a.warnings.some((w) => /not well-formed XML at line \d+/.test(w.message))).to.equal(true);
    });
  });
});
