/**
 * Hostile uploads through POST /api/importers/validate (and the one-request import stream): a small
 * .tar.gz that expands to gigabytes, too many archive entries, an endless CSV record / NDJSON line /
 * JSON string, and an analysis that outruns its time. Each is refused with 413 IMPORT_LIMIT_EXCEEDED
 * naming the limit, never a 500, and leaves no job folder under <data>/imports/. The bombs are made
 * here (concatenated gzip members of zeros: a few KB on disk per 16 MiB), with small limits so the
 * suite is fast.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Header } from 'tar';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const MiB = 1024 * 1024;

function tarHeader(path: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  new Header({ path, type: 'File', size, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }).encode(block, 0);
  return block;
}

let zeros16: ReturnType<typeof gzipSync> | null = null;
/** A .tar.gz holding one file of `size` zero bytes (a multiple of 16 MiB): gzip members of 16 MiB of zeros, concatenated. */
function zeroBomb(size: number): Buffer {
  zeros16 ??= gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  const parts = [gzipSync(tarHeader('zeros.bin', size))];
  for (let i = 0; i < size / (16 * MiB); i++) parts.push(zeros16);
  parts.push(gzipSync(Buffer.alloc(1024)));
  return Buffer.concat(parts);
}

/** A .tar.gz of `n` small JSON files. */
function manyEntries(n: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(`{"id":${i}}`);
    blocks.push(tarHeader(`items/item-${i}.json`, body.length), body, Buffer.alloc(512 - body.length));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function form(content: string | Buffer, filename: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), filename);
  return fd;
}

/**
 * Limits for one kernel: given both as plugins.options.importers and as the IMPORT_* variables (set
 * while the kernel runs), so they hold however the instance passes them to the analysis.
 */
function limitsEnv(limits: Record<string, number>): Record<string, string> {
  const names: Record<string, string> = {
    maxDecompressedBytes: 'IMPORT_MAX_DECOMPRESSED_BYTES',
    maxCompressionRatio: 'IMPORT_MAX_COMPRESSION_RATIO',
    maxArchiveEntries: 'IMPORT_MAX_ARCHIVE_ENTRIES',
    maxLineBytes: 'IMPORT_MAX_LINE_BYTES',
    analysisTimeoutMs: 'IMPORT_ANALYSIS_TIMEOUT_MS',
  };
  return Object.fromEntries(Object.entries(limits).map(([k, v]) => [names[k], String(v)]));
}

for (const variant of DB_VARIANTS) {
  describe(`import limits: hostile uploads are refused with 413 and leave nothing behind (${variant.name})`, function () {
    this.timeout(120000);

    /** A kernel with these limits, and the env variables restored after it. */
    function kernelWith(limits: Record<string, number>) {
      const state: { k: TestKernel | null; saved: Record<string, string | undefined> } = { k: null, saved: {} };
      before(async function () {
        requireVariant(this, variant);
        for (const [name, value] of Object.entries(limitsEnv(limits))) {
          state.saved[name] = process.env[name];
          process.env[name] = value;
        }
        state.k = await startTestKernel({
          db: variant.name,
          plugins: [fixturePlugin('test-identity')],
          config: { plugins: { options: { importers: limits } } } as never,
        });
      });
      after(async () => {
        await state.k?.close();
        for (const [name, value] of Object.entries(state.saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      });
      return state;
    }

    const importsOf = (k: TestKernel) => {
      const root = join(k.dataDir, 'imports');
      return existsSync(root) ? readdirSync(root) : [];
    };

    async function expectRefused(k: TestKernel, content: Buffer | string, filename: string, limit: string, message: RegExp) {
      const res = await k.request('/api/importers/validate', { method: 'POST', body: form(content, filename), identity: 'admin' });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.equal(413);
      expect(body).to.include({ success: false, error: 'IMPORT_LIMIT_EXCEEDED', limit });
      expect(body.message).to.match(message);
      expect(body.message).to.include(`importers.${limit}`);
      expect(importsOf(k), 'job folders left in <data>/imports').to.deep.equal([]);
    }

    describe('with the default limits', () => {
      const s = kernelWith({});

      it('a 64 MiB tar.gz of zeros (65 KB on disk) is refused for its compression ratio (200:1)', async () => {
        const bomb = zeroBomb(64 * MiB);
        expect(bomb.length).to.be.below(100 * 1024);
        await expectRefused(s.k!, bomb, 'export.tar.gz', 'maxCompressionRatio', /compression ratio over 200:1/);
      });

      it('the one-request import stream reports the same refusal as its error event, and keeps no job folder', async () => {
        const res = await s.k!.request('/api/migration/import', {
          method: 'POST',
          body: form(zeroBomb(64 * MiB), 'export.tar.gz'),
          identity: 'admin',
        });
        const text = await res.text();
        const error = text.split('\n\n').find((b) => b.startsWith('event: error'));
        expect(error, text).to.not.equal(undefined);
        const data = JSON.parse(/^data: (.+)$/m.exec(error!)![1]);
        expect(data).to.include({ success: false, error: 'IMPORT_LIMIT_EXCEEDED' });
        expect(data.message).to.match(/compression ratio over 200:1/);
        expect(importsOf(s.k!)).to.deep.equal([]);
      });

      it('an ordinary CSV still validates', async () => {
        const res = await s.k!.request('/api/importers/validate', {
          method: 'POST',
          body: form('a,b\n1,2\n', 'ok.csv'),
          identity: 'admin',
        });
        expect((await res.json()).data).to.include({ valid: true, detectedFormat: 'csv' });
      });
    });

    describe('with small size limits (4 MiB decompressed, 10 entries, 64 KiB lines; ratio off)', () => {
      const s = kernelWith({
        maxDecompressedBytes: 4 * MiB,
        maxCompressionRatio: 1_000_000,
        maxArchiveEntries: 10,
        maxLineBytes: 64 * 1024,
      });

      it('an archive expanding past the decompressed size is refused', async () => {
        await expectRefused(s.k!, zeroBomb(32 * MiB), 'export.tar.gz', 'maxDecompressedBytes', /decompressed size over 4 MiB/);
      });

      it('an archive with more entries than allowed is refused', async () => {
        await expectRefused(s.k!, manyEntries(30), 'items.tar.gz', 'maxArchiveEntries', /archive has more than 10 entries/);
      });

      it('a CSV record, an NDJSON line and a JSON string past the line limit are refused, naming the line', async () => {
        const long = 'x'.repeat(100 * 1024);
        await expectRefused(
          s.k!,
          `id,text\n1,short\n2,"${long}"\n3,after\n`,
          'long.csv',
          'maxLineBytes',
          /CSV record over 64 KiB at line 3/,
        );
        await expectRefused(
          s.k!,
          `{"id":1}\n{"id":2}\n{"id":3,"text":"${long}"}\n`,
          'long.ndjson',
          'maxLineBytes',
          /NDJSON line over 64 KiB at line 3/,
        );
        await expectRefused(
          s.k!,
          JSON.stringify([{ id: 1 }, { id: 2, text: long }]),
          'long.json',
          'maxLineBytes',
          /JSON value .*over 64 KiB/,
        );
      });

      it('an upload within the limits validates', async () => {
        const res = await s.k!.request('/api/importers/validate', {
          method: 'POST',
          body: form(manyEntries(5), 'items.tar.gz'),
          identity: 'admin',
        });
        expect(res.status).to.equal(200);
        expect(importsOf(s.k!).length).to.be.at.most(1);
      });
    });

    describe('with a short analysis time (300 ms; sizes unlimited)', () => {
      const s = kernelWith({ analysisTimeoutMs: 300, maxDecompressedBytes: 1024 * 1024 * MiB, maxCompressionRatio: 1_000_000 });

      it('an analysis still running at the deadline is aborted and refused', async () => {
        // 2 GiB of zeros: seconds of decompression, far past the deadline.
        await expectRefused(s.k!, zeroBomb(2048 * MiB), 'export.tar.gz', 'analysisTimeoutMs', /analysis took longer than 0\.3 s/);
      });
    });
  });
}
