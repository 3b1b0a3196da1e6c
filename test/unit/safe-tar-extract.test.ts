import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { handBuiltTar, type TarMember } from '../helpers/tar.js';
import { safeTarExtract, type SafeTarHooks, type SafeTarLimits, type SafeTarRefusals } from '../../lib/storage/safe-tar-extract.js';

/** A gzip-compressed hand-built tar (entries no well-behaved tool writes), then `trailing` zero bytes. */
function tarGz(members: TarMember[], trailing = 0): Buffer {
  return gzipSync(handBuiltTar(members, { trailing }), { level: 9 });
}

/** What a refusal factory was asked for, so the tests see which one fired and with what. */
class Refusal extends Error {
  constructor(
    readonly kind: string,
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
  }
}

const refusals: SafeTarRefusals = {
  invalid: (message) => new Refusal('invalid', message),
  unsafePath: (path) => new Refusal('unsafePath', path),
  link: (path) => new Refusal('link', path),
  special: (path, kind) => new Refusal('special', `${path} (${kind})`),
  limit: (name) => new Refusal('limit', name),
};

const LIMITS: SafeTarLimits = { maxEntries: 100, maxExtractedBytes: 64 * 1024 * 1024, maxRatio: 200 };

describe('safe tar.gz extraction (lib/storage/safe-tar-extract)', () => {
  let root: string;
  let dest: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cms-safe-tar-'));
    dest = join(root, 'jail', 'x');
    mkdirSync(dest, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = (archive: Buffer, limits: SafeTarLimits = LIMITS, hooks?: SafeTarHooks) => {
    const path = join(root, 'archive.tar.gz');
    writeFileSync(path, archive);
    return safeTarExtract(path, dest, limits, refusals, hooks);
  };
  /** The refusal the extraction ends with; a hang (a file left open) fails the test on its timeout. */
  const refusalOf = async (archive: Buffer, limits?: SafeTarLimits, hooks?: SafeTarHooks): Promise<Refusal> => {
    try {
      await run(archive, limits, hooks);
    } catch (err) {
      expect(err).to.be.instanceOf(Refusal);
      return err as Refusal;
    }
    throw new Error('the archive was accepted');
  };

  it('extracts a valid archive (folders and files, private modes) and answers the entry count', async () => {
    const count = await run(
      tarGz([
        { path: 'pkg/', type: 'Directory' },
        { path: 'pkg/manifest.json', body: '{"ok":true}' },
        { path: './pkg/data/a.ndjson', body: '{"a":1}\n' },
        { path: 'pkg/empty.txt', body: '' },
      ]),
    );
    expect(count).to.equal(4);
    expect(readFileSync(join(dest, 'pkg/manifest.json'), 'utf8')).to.equal('{"ok":true}');
    expect(readFileSync(join(dest, 'pkg/data/a.ndjson'), 'utf8')).to.equal('{"a":1}\n');
    expect(readFileSync(join(dest, 'pkg/empty.txt'), 'utf8')).to.equal('');
    expect(statSync(join(dest, 'pkg/manifest.json')).mode & 0o777).to.equal(0o600);
  });

  it('refuses a `..` traversal and writes nothing outside the destination', async () => {
    const r = await refusalOf(
      tarGz([
        { path: 'ok.txt', body: 'ok' },
        { path: '../escaped.txt', body: 'bad' },
      ]),
    );
    expect([r.kind, r.detail]).to.deep.equal(['unsafePath', '../escaped.txt']);
    expect(readdirSync(join(root, 'jail'))).to.deep.equal(['x']);
  });

  it('refuses absolute paths, drive letters and backslashes', async () => {
    for (const path of ['/tmp/safe-tar-absolute.txt', 'C:/x.txt', 'a\\b.txt']) {
      const r = await refusalOf(tarGz([{ path, body: 'bad' }]));
      expect([r.kind, r.detail]).to.deep.equal(['unsafePath', path]);
    }
    expect(existsSync('/tmp/safe-tar-absolute.txt')).to.equal(false);
  });

  it('refuses symbolic and hard links', async () => {
    const sym = await refusalOf(tarGz([{ path: 'link-out', type: 'SymbolicLink', linkpath: '/etc/passwd' }]));
    expect([sym.kind, sym.detail]).to.deep.equal(['link', 'link-out']);
    const hard = await refusalOf(tarGz([{ path: 'hard-out', type: 'Link', linkpath: 'ok.txt' }]));
    expect([hard.kind, hard.detail]).to.deep.equal(['link', 'hard-out']);
    expect(readdirSync(dest)).to.deep.equal([]);
  });

  it('refuses FIFOs and device files, naming the kind', async () => {
    expect((await refusalOf(tarGz([{ path: 'pipe', type: 'FIFO' }]))).detail).to.equal('pipe (FIFO)');
    expect((await refusalOf(tarGz([{ path: 'null', type: 'CharacterDevice' }]))).detail).to.equal('null (character device)');
    expect((await refusalOf(tarGz([{ path: 'sda', type: 'BlockDevice' }]))).detail).to.equal('sda (block device)');
  });

  it('refuses more entries than maxEntries', async () => {
    const members = Array.from({ length: 6 }, (_, i) => ({ path: `f${i}.txt`, body: 'x' }));
    const r = await refusalOf(tarGz(members), { ...LIMITS, maxEntries: 5 });
    expect([r.kind, r.detail]).to.deep.equal(['limit', 'maxEntries']);
  });

  it('refuses declared sizes over maxExtractedBytes before writing them', async () => {
    const r = await refusalOf(tarGz([{ path: 'big.bin', body: Buffer.alloc(4096) }]), { ...LIMITS, maxExtractedBytes: 1000 });
    expect([r.kind, r.detail]).to.deep.equal(['limit', 'maxExtractedBytes']);
    expect(readdirSync(dest)).to.deep.equal([]);
  });

  it('stops a gzip bomb (trailing zeros past the byte limit) at maxExtractedBytes', async () => {
    const bomb = tarGz([{ path: 'small.txt', body: 'x' }], 8 * 1024 * 1024);
    expect(bomb.length).to.be.below(64 * 1024);
    const r = await refusalOf(bomb, { maxEntries: 100, maxExtractedBytes: 2 * 1024 * 1024 });
    expect([r.kind, r.detail]).to.deep.equal(['limit', 'maxExtractedBytes']);
  });

  it('refuses a compression ratio over maxRatio, closing the file it stopped in', async () => {
    const r = await refusalOf(tarGz([{ path: 'zeros.bin', body: Buffer.alloc(8 * 1024 * 1024) }]), { ...LIMITS, maxRatio: 50 });
    expect([r.kind, r.detail]).to.deep.equal(['limit', 'maxRatio']);
  });

  it('closes a file left open when the byte limit fires in its last bytes (no hang)', async () => {
    const max = 2 * 1024 * 1024;
    const r = await refusalOf(tarGz([{ path: 'nearly.bin', body: Buffer.alloc(max - 100, 7) }]), {
      maxEntries: 10,
      maxExtractedBytes: max,
    });
    expect([r.kind, r.detail]).to.deep.equal(['limit', 'maxExtractedBytes']);
  });

  it('refuses a repeated path instead of overwriting the first copy', async () => {
    const r = await refusalOf(
      tarGz([
        { path: 'a.txt', body: 'first' },
        { path: 'a.txt', body: 'second' },
      ]),
    );
    expect(r.kind).to.equal('invalid');
    expect(r.detail).to.match(/^cannot write a\.txt: /);
    expect(readFileSync(join(dest, 'a.txt'), 'utf8')).to.equal('first');
  });

  it('refuses a file that is not gzip (with the caller message) and a gzip that holds no tar', async () => {
    const plain = await refusalOf(Buffer.from('plain text, not an archive'), LIMITS, { notGzip: 'not gzip (send a .tar.gz)' });
    expect([plain.kind, plain.detail]).to.deep.equal(['invalid', 'not gzip (send a .tar.gz)']);
    const noTar = await refusalOf(gzipSync(Buffer.alloc(2048, 1)));
    expect([noTar.kind, noTar.detail]).to.deep.equal(['invalid', 'the gzip does not hold a tar archive']);
  });

  it("applies the caller's entry check after the generic ones", async () => {
    const seen: string[] = [];
    const hooks: SafeTarHooks = {
      checkEntry: (path, segments, type) => {
        seen.push(`${type}:${segments.join('|')}`);
        return segments[0] === 'top' ? null : new Refusal('invalid', `outside top: ${path}`);
      },
    };
    const r = await refusalOf(
      tarGz([{ path: 'top/', type: 'Directory' }, { path: 'top/a.txt', body: 'a' }, { path: 'other.txt' }]),
      LIMITS,
      hooks,
    );
    expect([r.kind, r.detail]).to.deep.equal(['invalid', 'outside top: other.txt']);
    expect(seen).to.deep.equal(['Directory:top', 'File:top|a.txt', 'File:other.txt']);
  });
});
