/** Pure helpers of the tabular import formats: number typing, delimiter sniffing, depth counting, encodings, detect. */
import { expect } from 'chai';
import type { ImportProfile } from '../../plugins/importers/public.js';
import { sniffDelimiter } from '../../plugins/import-tabular/csv-rows.js';
import { toPlainNumber } from '../../plugins/import-tabular/csv-values.js';
import { detectCsv, detectJson, detectSelfCms, detectShopHosted, detectShopPlugin } from '../../plugins/import-tabular/detect.js';
import { looksLikeNdjson, textDepth } from '../../plugins/import-tabular/ndjson-lines.js';
import { guessEncoding } from '../../plugins/import-tabular/text-source.js';

const sample = (filename: string, profile: Partial<ImportProfile>) => ({
  filename,
  size: 0,
  head: Buffer.alloc(0),
  profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'unknown', ...profile } as ImportProfile,
});

describe('import-tabular helpers', () => {
  it('numbers are recognised conservatively', () => {
    expect(['12', '-3.5', '.5', '0', '0.25', '123456789'].map((v) => toPlainNumber(v))).to.deep.equal([12, -3.5, 0.5, 0, 0.25, 123456789]);
    for (const text of ['004', '08123', '1,234.5', '1,7', '3.65275E+11', '+5', '2095257564', '1 000', '12abc', '-', '.'])
      expect(toPlainNumber(text), text).to.equal(null);
    expect(toPlainNumber('1,7', true)).to.equal(1.7);
    expect(toPlainNumber('200.000.000', true)).to.equal(200000000);
  });

  it('sniffs comma, semicolon, tab and pipe, ignoring delimiters inside quotes', () => {
    expect(sniffDelimiter('a,b,c\n1,2,3\n')).to.equal(',');
    expect(sniffDelimiter('a;b;c\n"1,5";2;3\n')).to.equal(';');
    expect(sniffDelimiter('a\tb\n1\t2\n')).to.equal('\t');
    expect(sniffDelimiter('a|b|c\n1|2|3\n')).to.equal('|');
    expect(sniffDelimiter('single\nvalue\n')).to.equal(',');
  });

  it('counts JSON depth from the text without parsing it', () => {
    expect(textDepth('{"a":1}', 10)).to.equal(1);
    expect(textDepth('{"a":{"b":[1,{"c":2}]}}', 10)).to.equal(4);
    expect(textDepth('{"a":"{[{[ not nesting"}', 10)).to.equal(1);
    expect(textDepth('{"a":"\\"{"}', 10)).to.equal(1);
    expect(textDepth('['.repeat(1_000_000), 64)).to.equal(65);
    expect(looksLikeNdjson('{"a":1}\n{"b":2}\n')).to.equal(true);
    expect(looksLikeNdjson('{\n"a":1\n}\n')).to.equal(false);
  });

  it('guesses encodings: BOMs, UTF-8, single-byte Latin', () => {
    expect(guessEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]), false)).to.deep.equal({ encoding: 'utf-8', bom: true });
    expect(guessEncoding(Buffer.from([0xff, 0xfe, 0x61, 0]), false)).to.deep.equal({ encoding: 'utf-16le', bom: true });
    expect(guessEncoding(Buffer.from('Köppen', 'utf8'), false)).to.deep.equal({ encoding: 'utf-8', bom: false });
    expect(guessEncoding(Buffer.from('a,b\nMontr\xe9al,K\xf6ppen\n', 'latin1'), false).encoding).to.match(/^windows-125[02]$/);
    // a UTF-8 sequence cut at the end of a full head is still UTF-8
    const cut = Buffer.concat([Buffer.from('x'.repeat(10)), Buffer.from('ʤ').subarray(0, 1)]);
    expect(guessEncoding(cut, true).encoding).to.equal('utf-8');
  });

  it('detect: structure decides, the extension nudges', () => {
    const delimited = (header: string[]) => ({ kind: 'delimited' as const, delimited: { delimiter: ',', header, rows: 3 } });
    expect(detectCsv(sample('a.csv', delimited(['a', 'b'])))).to.equal(0.9);
    expect(detectCsv(sample('a.txt', delimited(['a', 'b'])))).to.equal(0.8);
    expect(detectCsv(sample('a.json', { kind: 'json' }))).to.equal(0);
    const hosted = delimited(['Handle', 'Title', 'Body (HTML)', 'Variant SKU', 'Variant Price', 'Image Src']);
    expect(detectShopHosted(sample('p.csv', hosted))).to.equal(0.95);
    expect(detectCsv(sample('p.csv', hosted))).to.equal(0.8);
    expect(detectShopPlugin(sample('p.csv', hosted))).to.equal(0);
    const plugin = delimited(['ID', 'Type', 'SKU', 'Name', 'Regular price', 'Sale price', 'Parent']);
    expect(detectShopPlugin(sample('p.csv', plugin))).to.equal(0.95);
    expect(detectShopHosted(sample('p.csv', plugin))).to.equal(0);
    const json = (j: Partial<NonNullable<ImportProfile['json']>>) => ({
      kind: 'json' as const,
      json: { root: 'array' as const, topKeys: [], recordsPath: '', recordCount: 2, recordKeys: ['a'], recordTypes: [], maxDepth: 2, ...j },
    });
    expect(detectJson(sample('x.json', json({})))).to.equal(0.6);
    expect(detectJson(sample('x.json', json({ root: 'scalar', recordsPath: null })))).to.equal(0);
    const ndjson = (keys: string[]) => ({ kind: 'ndjson' as const, ndjson: { lines: 2, recordKeys: keys, recordTypes: [] } });
    expect(detectSelfCms(sample('x.ndjson', ndjson(['collection', '_id', 'data'])))).to.equal(0.95);
    expect(detectSelfCms(sample('x.ndjson', ndjson(['a', 'b'])))).to.equal(0.3);
    expect(detectJson(sample('x.json', ndjson(['a', 'b'])))).to.equal(0.55);
    expect(
      detectShopHosted(
        sample(
          'p.json',
          json({
            root: 'object',
            topKeys: ['products'],
            recordsPath: 'products',
            recordKeys: ['id', 'title', 'handle', 'body_html', 'variants'],
          }),
        ),
      ),
    ).to.equal(0.95);
  });
});
