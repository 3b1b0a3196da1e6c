/**
 * The worker side of the import limits: every task that reads an upload (the profile, the tabular and
 * CMS parse tasks, archive extraction) stops at the size limits it is given and answers an
 * IMPORT_LIMIT_EXCEEDED issue naming the limit, instead of reading on or failing otherwise.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Header } from 'tar';
import type { ImportParseInput, ImportProfile } from '../../plugins/importers/public.js';
import * as cms from '../../plugins/import-cms/parse-task.js';
import * as tabular from '../../plugins/import-tabular/parse-task.js';
import { extractArchive } from '../../workers/import/archive.js';
import { ImportLimitError, JsonTokenGuard, readLines } from '../../workers/import/limits.js';
import { importProfile } from '../../workers/import/profile.js';

const KiB = 1024;
const MiB = 1024 * KiB;

function tarOf(members: Array<{ path: string; body: Buffer }>): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const header = Buffer.alloc(512);
    new Header({ path: m.path, type: 'File', size: m.body.length, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }).encode(header, 0);
    blocks.push(header, m.body, Buffer.alloc((512 - (m.body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

describe('import limits in the workers', () => {
  let dir: string;
  let n = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'import-limits-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, content: string | Buffer) => {
    const path = join(dir, `${n++}-${name}`);
    writeFileSync(path, content);
    return path;
  };
  const limitIssue = (r: { ok: boolean; issues?: unknown[] }) => {
    expect(r.ok, JSON.stringify(r)).to.equal(false);
    return (r as { issues: Array<{ code: string; message: string; limit: string }> }).issues[0];
  };
  const parseInput = (
    path: string,
    kind: ImportProfile['kind'],
    limits: Record<string, number>,
    extra: Partial<ImportParseInput> = {},
  ): ImportParseInput => ({
    path,
    filename: path.split('/').pop()!,
    workDir: dir,
    spoolPath: join(dir, `spool-${n++}.ndjson`),
    maxDepth: 32,
    profile: { container: 'plain', encoding: 'utf-8', bom: false, kind },
    options: { limits },
    ...extra,
  });

  it('readLines: LF, CRLF and lone CR lines with their numbers; a line past the limit is refused with its number', async () => {
    const lines: Array<[number, string]> = [];
    for await (const l of readLines(Readable.from(['a\r\nb', '\r', '\nc\rd\n\ne']), 100, 'line')) lines.push([l.line, l.text]);
    expect(lines).to.deep.equal([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
      [5, ''],
      [6, 'e'],
    ]);
    const long = Readable.from(['ok\n', 'x'.repeat(60), 'x'.repeat(60), '\nafter\n']);
    let error: unknown;
    try {
      for await (const _ of readLines(long, 100, 'NDJSON line')) void _;
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ImportLimitError);
    expect((error as ImportLimitError).message).to.equal(
      'NDJSON line over 100 bytes at line 2 (importers.maxLineBytes, IMPORT_MAX_LINE_BYTES)',
    );
  });

  it('JsonTokenGuard refuses a string, key or number arriving in chunks past the limit', () => {
    const guard = new JsonTokenGuard(10);
    expect(guard.see({ name: 'startString' })).to.equal(true);
    expect(guard.see({ name: 'stringChunk', value: '12345' })).to.equal(true);
    expect(() => guard.see({ name: 'stringChunk', value: '123456' })).to.throw(ImportLimitError, /over 10 bytes/);
    expect(guard.see({ name: 'startKey' })).to.equal(true);
    expect(guard.see({ name: 'keyChunk', value: 'short' })).to.equal(true);
    expect(guard.see({ name: 'keyValue', value: 'short' })).to.equal(false);
  });

  it('the profile task: a long CSV record, NDJSON line or JSON string, and too many archive entries', async () => {
    const long = 'y'.repeat(20 * KiB);
    const limits = { maxLineBytes: 8 * KiB, maxArchiveEntries: 3 };
    const csv = limitIssue(
      await importProfile({ path: write('a.csv', `a,b\n1,2\r\n3,"x\r\ny"\r\n4,${long}\n`), filename: 'a.csv', limits }),
    );
    expect(csv).to.deep.include({ code: 'IMPORT_LIMIT_EXCEEDED', limit: 'maxLineBytes' });
    expect(csv.message).to.match(/^CSV record over 8 KiB at line 5 /);
    const ndjson = limitIssue(
      await importProfile({ path: write('a.ndjson', `{"a":1}\n{"a":2}\n{"a":"${long}"}\n`), filename: 'a.ndjson', limits }),
    );
    expect(ndjson.message).to.match(/^NDJSON line over 8 KiB at line 3 /);
    const json = limitIssue(
      await importProfile({ path: write('a.json', JSON.stringify({ items: [{ a: 1 }, { a: long }] })), filename: 'a.json', limits }),
    );
    expect(json).to.deep.include({ limit: 'maxLineBytes' });
    const archive = tarOf(Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.txt`, body: Buffer.from('x') })));
    const entries = limitIssue(await importProfile({ path: write('a.tar.gz', archive), filename: 'a.tar.gz', limits }));
    expect(entries).to.deep.include({
      limit: 'maxArchiveEntries',
      message: 'archive has more than 3 entries (importers.maxArchiveEntries, IMPORT_MAX_ARCHIVE_ENTRIES)',
    });
    // Within the limits the same kinds of file profile normally.
    const fine = await importProfile({ path: write('b.csv', 'a,b\n1,2\n'), filename: 'b.csv', limits });
    expect(fine.ok).to.equal(true);
    // A large minified document on one line is not a long line: only its values are measured.
    const minified = JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: i, title: `record ${i}` })));
    expect(minified.length).to.be.above(100 * KiB);
    const doc = await importProfile({ path: write('big.json', minified), filename: 'big.json', limits });
    expect(doc.ok && doc.value.kind).to.equal('json');
    expect(doc.ok && doc.value.json?.recordCount).to.equal(4000);
  });

  it('the tabular parse tasks refuse a record past the line limit they are given', async () => {
    const long = 'z'.repeat(20 * KiB);
    const limits = { maxLineBytes: 8 * KiB };
    const csv = limitIssue(await tabular.parseCsv(parseInput(write('c.csv', `a,b\n1,${long}\n`), 'delimited', limits)));
    expect(csv.message).to.match(/^CSV record over 8 KiB at line 2 \(importers\.maxLineBytes/);
    const ndjson = limitIssue(await tabular.parseJson(parseInput(write('c.json', `{"a":1}\n{"a":"${long}"}\n`), 'ndjson', limits)));
    expect(ndjson.message).to.match(/^NDJSON line over 8 KiB at line 2/);
    const json = limitIssue(await tabular.parseJson(parseInput(write('d.json', JSON.stringify([{ a: 1 }, { a: long }])), 'json', limits)));
    expect(json.limit).to.equal('maxLineBytes');
    const self = limitIssue(
      await tabular.parseSelfCms(
        parseInput(write('e.ndjson', `{"collection":"posts","_id":"1","data":{"t":"${long}"}}\n`), 'ndjson', limits),
      ),
    );
    expect(self.limit).to.equal('maxLineBytes');
    const shop = limitIssue(
      await tabular.parseShopHosted(
        parseInput(write('p.json', JSON.stringify({ products: [{ id: 1, title: long, variants: [] }] })), 'json', limits),
      ),
    );
    expect(shop.limit).to.equal('maxLineBytes');
  });

  it('the CMS parse tasks: an archive past the decompressed size, a JSON string past the line limit', async () => {
    const big = tarOf([
      { path: 'export/metadata.json', body: Buffer.from('{}') },
      { path: 'export/entities/entities_00001.jsonl', body: Buffer.alloc(2 * MiB, 0x20) },
    ]);
    const archivePath = write('s.tar.gz', big);
    const strapi = limitIssue(
      await cms.parseNodeCms(
        parseInput(
          archivePath,
          'unknown',
          { maxDecompressedBytes: MiB, maxCompressionRatio: 1e9 },
          {
            profile: { container: 'tar', encoding: 'binary', bom: false, kind: 'unknown' },
          },
        ),
      ),
    );
    expect(strapi).to.deep.include({ code: 'IMPORT_LIMIT_EXCEEDED', limit: 'maxDecompressedBytes' });
    expect(strapi.message).to.match(/^decompressed size over 1 MiB \(importers\.maxDecompressedBytes/);
    const drupal = limitIssue(
      await cms.parsePhpCms(
        parseInput(
          write(
            'd.json',
            JSON.stringify({ jsonapi: {}, data: [{ type: 'node--article', id: 'x', attributes: { body: 'b'.repeat(20 * KiB) } }] }),
          ),
          'json',
          { maxLineBytes: 8 * KiB },
        ),
      ),
    );
    expect(drupal.limit).to.equal('maxLineBytes');
  });

  it('archive extraction: the compression ratio and the decompressed size are limits with their name', async () => {
    const zeros = tarOf([{ path: 'zeros.bin', body: Buffer.alloc(16 * MiB) }]);
    const ratio = await extractArchive(write('z.tar.gz', zeros), join(dir, `x${n++}`));
    expect(ratio.limit?.limit).to.equal('maxCompressionRatio');
    expect(ratio.files).to.deep.equal([]);
    const size = await extractArchive(write('z.tar.gz', zeros), join(dir, `x${n++}`), { maxBytes: 2 * MiB, maxRatio: 1e9 });
    expect(size.limit?.limit).to.equal('maxDecompressedBytes');
  });
});
