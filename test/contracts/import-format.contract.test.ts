import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { WorkerPool } from '../../kernel/pool.js';
import type { ImportFormat, ImportParseSummary, ImportProfile, ImportSample } from '../../plugins/importers/public.js';
import type { Registries } from '../../kernel/registries/index.js';
import type { TaskResult } from '../../workers/tasks.js';
import { importProfile } from '../../workers/import/profile.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

/** Real sample exports, one folder per format (../shared/fixtures/imports next to the checkout, or CMS_IMPORT_FIXTURES). */
const FIXTURES = IMPORT_FIXTURES;

async function sampleOf(path: string, filename = path.split('/').pop()!): Promise<ImportSample> {
  const profiled = await importProfile({ path, filename, maxDepth: 32 });
  if (!profiled.ok) throw new Error(JSON.stringify(profiled.issues));
  const bytes = readFileSync(path);
  return { filename, size: bytes.length, head: bytes.subarray(0, 64 * 1024), profile: profiled.value as ImportProfile };
}

/** The smallest file of the format's fixture folder (READMEs aside), or null. */
function smallestFixture(format: string): string | null {
  const dir = join(FIXTURES, format);
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => !f.toLowerCase().endsWith('.md') && !f.startsWith('.'))
    .map((f) => join(dir, f));
  files.sort((a, b) => statSync(a).size - statSync(b).size);
  return files[0] ?? null;
}

/**
 * One contract for every import format a kernel booted with all plugins registers (so each format
 * plugin is covered as it lands): shape, detector range and restraint, and the parse task's spool
 * agreeing with its summary over the format's smallest fixture.
 */
describe('import format contract (every registered format)', function () {
  this.timeout(120000);
  let t: TestKernel;
  let formats: ImportFormat[];
  let dir: string;
  before(async () => {
    t = await startTestKernel({ plugins: [fixturePlugin('import-example')] });
    formats = t.kernel.container.resolve<Registries>('registries').importFormats.list();
    dir = mkdtempSync(join(tmpdir(), 'cms-format-contract-'));
  });
  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('at least the example format is registered', () => {
    expect(formats.map((f) => f.format)).to.include('kv_blocks');
  });

  it('shape: format, label, extensions starting with ".", features, a parse task exported by taskFile', async () => {
    for (const f of formats) {
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
      for (const f of formats) {
        const c = f.detect(sample);
        expect(c, `${f.format} on ${name}`).to.be.a('number').within(0, 1);
        expect(c, `${f.format} on ${name}`).to.be.below(0.5);
      }
    }
  });

  it("over its smallest fixture: detect > 0 and the spool holds exactly the summary's counts", async () => {
    const pool = t.kernel.container.resolve<WorkerPool>('pool');
    const checked: string[] = [];
    for (const f of formats) {
      const file = smallestFixture(f.format);
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
  });
});
