import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { checkEntryPath, extractArchive } from '../../workers/import/archive.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { handBuiltTar, type TarMember } from '../helpers/tar.js';

const FIXTURES = IMPORT_FIXTURES;

/** A hand-built tar (entries no well-behaved tool would write), gzip-compressed unless `gzip` is false. */
function tarOf(members: TarMember[], gzip = true): Buffer {
  const tar = handBuiltTar(members);
  return gzip ? gzipSync(tar) : tar;
}

describe('import archive extraction (workers/import/archive)', () => {
  let root: string;
  let n = 0;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cms-archive-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const write = (buf: Buffer) => {
    const path = join(root, `upload-${n++}.tar.gz`);
    writeFileSync(path, buf);
    return path;
  };

  it('extracts files and folders of a gzip or plain tar into the destination', async () => {
    for (const gzip of [true, false]) {
      const dest = join(root, `out-${gzip}`);
      const result = await extractArchive(
        write(
          tarOf(
            [
              { path: 'export/', type: 'Directory' },
              { path: 'export/metadata.json', body: '{"strapi":{"version":"4.15.0"}}' },
              { path: './export/entities/entities_00001.jsonl', body: '{"type":"api::a.a","id":1,"data":{}}\n' },
            ],
            gzip,
          ),
        ),
        dest,
      );
      expect(result.error).to.equal(undefined);
      expect(result.rejected).to.deep.equal([]);
      expect(result.files).to.have.members(['export/metadata.json', 'export/entities/entities_00001.jsonl']);
      expect(readFileSync(join(dest, 'export/metadata.json'), 'utf8')).to.contain('4.15.0');
      expect(result.bytes).to.equal(31 + 37);
    }
  });

  it('refuses `..`, absolute paths, links and devices, and writes nothing outside the destination', async () => {
    const dest = join(root, 'jail', 'out');
    const result = await extractArchive(
      write(
        tarOf([
          { path: 'ok.txt', body: 'fine' },
          { path: '../escaped.txt', body: 'evil' },
          { path: 'a/../../escaped2.txt', body: 'evil' },
          { path: '/tmp/absolute-escape.txt', body: 'evil' },
          { path: 'link-out', type: 'SymbolicLink', linkpath: '/etc/passwd' },
          { path: 'hard-out', type: 'Link', linkpath: '../../escaped.txt' },
          { path: 'dev-null', type: 'CharacterDevice' },
          { path: 'pipe', type: 'FIFO' },
          { path: 'also-ok.txt', body: 'fine too' },
        ]),
      ),
      dest,
    );
    expect(result.files).to.have.members(['ok.txt', 'also-ok.txt']);
    const refused = Object.fromEntries(result.rejected.map((r) => [r.path, r.reason]));
    expect(refused).to.have.keys(
      '../escaped.txt',
      'a/../../escaped2.txt',
      '/tmp/absolute-escape.txt',
      'link-out',
      'hard-out',
      'dev-null',
      'pipe',
    );
    expect(refused['../escaped.txt']).to.match(/\.\./);
    expect(refused['/tmp/absolute-escape.txt']).to.match(/absolute/);
    expect(refused['link-out']).to.match(/symbolic link/);
    expect(refused['hard-out']).to.match(/hard link/);
    expect(refused['dev-null']).to.match(/device/);
    expect(readdirSync(join(root, 'jail'))).to.deep.equal(['out']);
    expect(readdirSync(dest).sort()).to.deep.equal(['also-ok.txt', 'ok.txt']);
    expect(existsSync('/tmp/absolute-escape.txt')).to.equal(false);
    for (const f of readdirSync(dest)) expect(lstatSync(join(dest, f)).isSymbolicLink()).to.equal(false);
  });

  it('skips macOS AppleDouble files, __MACOSX and .DS_Store with a reason', async () => {
    const dest = join(root, 'out');
    const result = await extractArchive(
      write(
        tarOf([
          { path: 'entities/._entities_00001.jsonl', body: Buffer.from([0, 5, 22, 7, 0, 2, 0, 0]) },
          { path: 'entities/entities_00001.jsonl', body: '{}\n' },
          { path: '__MACOSX/entities/x', body: 'junk' },
          { path: '.DS_Store', body: 'junk' },
        ]),
      ),
      dest,
    );
    expect(result.files).to.deep.equal(['entities/entities_00001.jsonl']);
    expect(result.skipped.map((s) => s.path)).to.deep.equal(['entities/._entities_00001.jsonl', '__MACOSX/entities/x', '.DS_Store']);
    expect(result.skipped[0].reason).to.match(/AppleDouble/);
  });

  it('stops at the entry limit and at the byte limit, keeping what was written', async () => {
    const many = tarOf(Array.from({ length: 12 }, (_, i) => ({ path: `f${i}.txt`, body: 'x' })));
    const byCount = await extractArchive(write(many), join(root, 'count'), { maxEntries: 5 });
    expect(byCount.error).to.match(/more than 5 entries/);
    expect(byCount.files.length).to.be.at.most(5);

    const big = tarOf([
      { path: 'small.txt', body: 'tiny' },
      { path: 'big.bin', body: Buffer.alloc(64 * 1024, 1) },
      { path: 'after.txt', body: 'x' },
    ]);
    const byBytes = await extractArchive(write(big), join(root, 'bytes'), { maxBytes: 10 * 1024 });
    expect(byBytes.error).to.match(/more than 10240 bytes/);
    expect(byBytes.files).to.deep.equal(['small.txt']);
    expect(existsSync(join(root, 'bytes', 'after.txt'))).to.equal(false);
  });

  it('reports a corrupt or non-tar upload as an error instead of throwing', async () => {
    const gz = tarOf([{ path: 'a.txt', body: 'a'.repeat(5000) }]);
    const truncated = await extractArchive(write(gz.subarray(0, Math.floor(gz.length / 2))), join(root, 't'));
    expect(truncated.error).to.be.a('string');
    const garbage = await extractArchive(write(gzipSync(Buffer.from('this is not a tar archive at all'.repeat(40)))), join(root, 'g'));
    expect(garbage.files).to.deep.equal([]);
    const missing = await extractArchive(join(root, 'nope.tar.gz'), join(root, 'm'));
    expect(missing.error).to.match(/cannot read the archive: ENOENT/);
  });

  it('checkEntryPath: what is refused and why', () => {
    expect(checkEntryPath('a/./b//c.txt')).to.deep.equal({ segments: ['a', 'b', 'c.txt'] });
    expect(checkEntryPath('a/../b')).to.have.property('reason');
    expect(checkEntryPath('C:/x')).to.deep.equal({ reason: 'absolute path' });
    expect(checkEntryPath('a\\..\\b')).to.deep.equal({ reason: 'path contains a backslash' });
    expect(checkEntryPath('a\0b')).to.deep.equal({ reason: 'path contains a NUL byte' });
  });

  it('the real macOS-repacked Strapi export: 3 JSONL files extracted, 3 AppleDouble files skipped', async function () {
    const path = join(FIXTURES, 'node_cms', 'strapi4-macos-repacked-export.tar.gz');
    if (!existsSync(path)) this.skip();
    const result = await extractArchive(path, join(root, 'mac'));
    expect(result.error).to.equal(undefined);
    expect(result.rejected).to.deep.equal([]);
    expect(result.files.sort()).to.deep.equal([
      'configuration/configuration_00001.jsonl',
      'entities/entities_00001.jsonl',
      'schemas/schemas_00001.jsonl',
    ]);
    expect(result.skipped.map((s) => s.path).sort()).to.deep.equal([
      'configuration/._configuration_00001.jsonl',
      'entities/._entities_00001.jsonl',
      'schemas/._schemas_00001.jsonl',
    ]);
  });
});
