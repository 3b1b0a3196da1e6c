import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerPool } from '../kernel/pool.js';
import type { ImportFormat, ImportParseSummary, ImportProfile, ImportSample } from '../plugins/importers/public.js';
import type { TaskResult } from '../workers/tasks.js';
import { importProfile } from '../workers/import/profile.js';
import type { ContractKernel } from './contract-kernel.js';

export interface ImportFormatContractOptions {
  /** The kernel whose worker pool runs the parse tasks. */
  t: Pick<ContractKernel, 'kernel'>;
  /** The formats under test (e.g. the kernel's importFormats registry, or your own format alone). */
  formats(): ImportFormat[];
  /**
   * A folder with one sub-folder per format (named by its `format`) of sample files: the smallest of each
   * (READMEs and dot files aside) is parsed. A format without a folder skips that check.
   */
  fixtures: string;
}

async function sampleOf(path: string, filename = path.split('/').pop()!): Promise<ImportSample> {
  const profiled = await importProfile({ path, filename, maxDepth: 32 });
  if (!profiled.ok) throw new Error(JSON.stringify(profiled.issues));
  const bytes = readFileSync(path);
  return { filename, size: bytes.length, head: bytes.subarray(0, 64 * 1024), profile: profiled.value as ImportProfile };
}

/** The smallest file of the format's fixture folder (READMEs aside), or null. */
function smallestFixture(fixtures: string, format: string): string | null {
  const dir = join(fixtures, format);
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => !f.toLowerCase().endsWith('.md') && !f.startsWith('.'))
    .map((f) => join(dir, f));
  files.sort((a, b) => statSync(a).size - statSync(b).size);
  return files[0] ?? null;
}

/**
 * Registers the import format contract's tests in the calling suite: shape, detector range and restraint,
 * and the parse task's spool agreeing with its summary over the format's smallest fixture. Needs mocha and
 * chai (dev dependencies).
 */
export function importFormatContract(options: ImportFormatContractOptions): void {
  let dir: string;
  before(() => void (dir = mkdtempSync(join(tmpdir(), 'cms-format-contract-'))));
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shape: format, label, extensions starting with ".", features, a parse task exported by taskFile', async () => {
    for (const f of options.formats()) {
      expect(f.format, f.format).to.match(/^[a-z][a-z0-9_]*$/);
      expect(f.label, f.format).to.be.a('string').and.not.equal('');
      expect(f.extensions.length, `${f.format} extensions`).to.be.greaterThan(0);
      for (const ext of f.extensions) expect(ext, `${f.format} extension`).to.match(/^\.[a-z0-9.]+$/);
      expect(f.features, `${f.format} features`).to.be.an('array');
      expect(existsSync(f.taskFile), `${f.format} taskFile ${f.taskFile}`).to.equal(true);
      const mod = (await import(f.taskFile)) as Record<string, unknown>;
      expect(typeof mod[f.parseTask], `${f.format} exports ${f.parseTask}`).to.equal('function');
    }
  });

  it('detect answers a number in [0, 1], below 0.5 for empty and garbage files', async () => {
    const garbage: Array<[string, string | Buffer]> = [
      ['empty.json', ''],
      ['noise.xml', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 131) % 256))],
      ['words.txt', 'lorem ipsum dolor sit amet\n'],
      // The extension alone must not make a format sure of prose.
      ['words.csv', 'lorem ipsum dolor sit amet\n'],
    ];
    for (const [name, content] of garbage) {
      const path = join(dir, name);
      writeFileSync(path, content);
      const sample = await sampleOf(path);
      for (const f of options.formats()) {
        const c = f.detect(sample);
        expect(c, `${f.format} on ${name}`).to.be.a('number').within(0, 1);
        expect(c, `${f.format} on ${name}`).to.be.below(0.5);
      }
    }
  });

  it("over its smallest fixture: detect > 0 and the spool holds exactly the summary's counts", () => parsesSmallestFixtures(options, dir));
}

async function parsesSmallestFixtures(options: ImportFormatContractOptions, dir: string): Promise<void> {
  const pool = options.t.kernel.container.resolve<WorkerPool>('pool');
  const checked: string[] = [];
  for (const f of options.formats()) {
    const file = smallestFixture(options.fixtures, f.format);
    if (!file) continue;
    const sample = await sampleOf(file);
    const c = f.detect(sample);
    expect(c, `${f.format} detect on ${file}`).to.be.within(0, 1);
    if (c === 0) continue; // a fixture that is deliberately not this format's (e.g. broken on purpose)
    const workDir = mkdtempSync(join(dir, `${f.format}-`));
    const spoolPath = join(workDir, 'entities.ndjson');
    const result = await pool.run<TaskResult<ImportParseSummary>>(
      f.parseTask,
      { path: file, filename: file.split('/').pop(), workDir, spoolPath, profile: sample.profile, maxDepth: 32 },
      f.taskFile,
    );
    expect(result.ok, `${f.format} parse of ${file}: ${JSON.stringify(result)}`).to.equal(true);
    if (!result.ok) continue;
    const lines = existsSync(spoolPath)
      ? readFileSync(spoolPath, 'utf8')
          .split('\n')
          .filter((l) => l.trim()).length
      : 0;
    const total = Object.values(result.value.counts).reduce((n, v) => n + v, 0);
    expect(lines, `${f.format}: spool lines vs summary counts`).to.equal(total);
    for (const line of readFileSync(spoolPath, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, 20)) {
      const e = JSON.parse(line);
      expect(e.entity, f.format).to.be.a('string');
      expect(e.externalId, f.format).to.be.a('string');
      expect(e.data, f.format).to.be.an('object');
    }
    checked.push(f.format);
  }
  // Formats without a fixture folder (the example) are exercised by the importers HTTP tests.
  expect(checked.length).to.be.at.least(0);
}
