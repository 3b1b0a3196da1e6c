/**
 * CSV malformed rows: every malformed record of the real fixtures gets a warning naming the physical
 * line it starts on; lenient mode (the default) keeps such rows, strict mode refuses them (not
 * imported, a per-line reason, counted); line numbers stay the file's own lines through quoted
 * newlines (CRLF inside quotes included) and blank lines, up to the end of a large file. Through the
 * parse task and through the HTTP flow (instance default and the request's `strict` field).
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportedEntity, ImportParseInput, ImportParseSummary } from '../../plugins/importers/public.js';
import { analyseUpload } from '../../plugins/importers/analyse.js';
import * as tasks from '../../plugins/import-tabular/parse-task.js';
import { importProfile } from '../../workers/import/profile.js';
import { fixturePlugin, startTestKernel, type TestKernel, useIdentityKernel } from '../helpers/kernel.js';
import { postAs } from '../helpers/content.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const fixture = (name: string) => join(IMPORT_FIXTURES, 'csv', name);

let work: string;
let runs = 0;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'import-csv-strict-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

type Summary = ImportParseSummary & { refused?: Record<string, number> };

async function parseCsv(path: string, options: Record<string, unknown> = {}): Promise<{ summary: Summary; entities: ImportedEntity[] }> {
  const filename = path.split('/').pop()!;
  const profiled = await importProfile({ path, filename, maxDepth: 32 });
  if (!profiled.ok) throw new Error(JSON.stringify(profiled.issues));
  const spoolPath = join(work, `spool-${++runs}.ndjson`);
  const input: ImportParseInput = { path, filename, workDir: work, spoolPath, maxDepth: 32, profile: profiled.value, options };
  const result = await tasks.parseCsv(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const entities = readFileSync(spoolPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ImportedEntity);
  return { summary: result.value, entities };
}

const MALFORMED = /fields, the header|stray quote|after the closing quote|no name|unreadable record/;
const lineWarnings = (s: Summary) => s.warnings.filter((w) => w.line !== undefined && MALFORMED.test(w.message)).map((w) => w.line!);

describe('csv: every malformed record of the fixtures is warned at the line it starts on', () => {
  /** file -> [line, what the warning says] for each malformed record (the rest of the folder has none). */
  const MALFORMED_RECORDS: Record<string, Array<[number, RegExp]>> = {
    'csvkit-bad.csv': [
      [2, /row has 4 fields, the header 3: extra values ignored \("I'm too long!"\)/],
      [3, /row has 2 fields, the header 3: missing values left empty/],
    ],
    'csvparser-bad-data.csv': [[1, /column 1 has no name/]],
    'ghost-fsutils-malformed.csv': [[2, /row has 3 fields, the header 2: extra values ignored \("extrafield"\)/]],
    'csvparser-strict-extra-column.csv': [[4, /row has 4 fields, the header 3: extra values ignored \("10"\)/]],
    'ghost-wix-posts.csv': [[3, /text after the closing quote in column 12 \("Categories"\): kept as text/]],
    'spectrum-location_coordinates.csv': [[2, /stray quote in column 2 \("Location Coordinates"\): kept as text/]],
  };

  for (const file of readdirSync(join(IMPORT_FIXTURES, 'csv'))
    .filter((f) => f !== 'README.md')
    .sort()) {
    const expected = MALFORMED_RECORDS[file] ?? [];
    it(`${file}: ${expected.length ? expected.map(([l]) => `line ${l}`).join(', ') : 'no malformed record'}`, async () => {
      const { summary } = await parseCsv(fixture(file));
      expect(lineWarnings(summary), JSON.stringify(summary.warnings)).to.deep.equal(expected.map(([line]) => line));
      for (const [line, pattern] of expected) {
        expect(
          summary.warnings.some((w) => w.line === line && pattern.test(w.message)),
          `${file} line ${line}: ${JSON.stringify(summary.warnings)}`,
        ).to.equal(true);
      }
    });
  }

  it('trailing empty extra fields are malformed too: warned, not silently dropped', async () => {
    const file = join(work, 'trailing.csv');
    writeFileSync(file, 'a,b\n1,2,\n3,4\n');
    const { summary } = await parseCsv(file);
    expect(summary.warnings).to.deep.equal([{ message: 'row has 3 fields, the header 2: extra empty values ignored', line: 2 }]);
  });
});

describe('csv strict mode: malformed rows are refused, each with its line, and counted', () => {
  it('csvkit-bad.csv: the too-long and too-short rows are refused, the good row imports', async () => {
    const lenient = await parseCsv(fixture('csvkit-bad.csv'));
    expect(lenient.entities).to.have.length(3);
    const strict = await parseCsv(fixture('csvkit-bad.csv'), { strict: true });
    expect(strict.summary.counts).to.deep.equal({ rows: 1 });
    expect(strict.entities.map((e) => e.line)).to.deep.equal([4]);
    expect(strict.entities[0].data).to.deep.equal({ column_a: 0, column_b: 'mixed types.... uh oh', column_c: 17 });
    expect(strict.summary.refused).to.deep.equal({ rows: 2 });
    expect(strict.summary.warnings.filter((w) => w.line !== undefined)).to.deep.equal([
      { message: 'row refused (strict mode): row has 4 fields, the header 3', line: 2 },
      { message: 'row refused (strict mode): row has 2 fields, the header 3', line: 3 },
    ]);
    expect(strict.summary.warnings.some((w) => /2 rows refused in strict mode/.test(w.message))).to.equal(true);
  });

  it('stray quotes and extra fields in the other fixtures are refused the same way', async () => {
    const coords = await parseCsv(fixture('spectrum-location_coordinates.csv'), { strict: true });
    expect(coords.summary.counts).to.deep.equal({ rows: 0 });
    expect(
      coords.summary.warnings.some((w) => w.line === 2 && /refused \(strict mode\): stray quote in column 2/.test(w.message)),
    ).to.equal(true);
    const extra = await parseCsv(fixture('csvparser-strict-extra-column.csv'), { strict: true });
    expect(extra.entities.map((e) => e.data)).to.deep.equal([
      { a: 1, b: 2, c: 3 },
      { a: 4, b: 5, c: 6 },
    ]);
    expect(extra.summary.refused).to.deep.equal({ rows: 1 });
    const clean = await parseCsv(fixture('spectrum-newlines_crlf.csv'), { strict: true });
    expect(clean.summary.refused).to.deep.equal({ rows: 0 });
    expect(clean.entities).to.have.length(3);
  });
});

describe('csv line numbers: the physical line a record starts on, to the end of a large file', () => {
  /**
   * A file of `rows` records where every third has a value spanning two lines and every tenth is
   * followed by a blank line; near the end, a row with an extra field, one with a missing field and one
   * with a stray quote. Returns the text and the line each record starts on.
   */
  function generate(rows: number, eol: string) {
    const lines: string[] = ['name,notes,count'];
    const starts: number[] = [];
    let line = 2;
    const bad: Record<string, number> = {};
    for (let i = 1; i <= rows; i++) {
      starts.push(line);
      let record: string;
      if (i === rows - 3) {
        record = `extra ${i},x,${i},surplus`;
        bad.extra = line;
      } else if (i === rows - 2) {
        record = `short ${i},x`;
        bad.short = line;
      } else if (i === rows - 1) {
        record = `quote ${i},5" screen,${i}`;
        bad.quote = line;
      } else record = i % 3 === 0 ? `name ${i},"first part${eol}second part",${i}` : `name ${i},plain,${i}`;
      lines.push(record);
      line += i % 3 === 0 && !(i >= rows - 3) ? 2 : 1;
      if (i % 10 === 0) {
        lines.push('');
        line++;
      }
    }
    return { text: lines.join(eol) + eol, starts, bad, lastLine: line - 1 };
  }

  for (const [name, eol] of [
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['CR', '\r'],
  ] as const) {
    it(`${name} line ends, quoted newlines and blank lines: rows and warnings carry their first line`, async () => {
      const { text, starts, bad, lastLine } = generate(3000, eol);
      const file = join(work, `lines-${name}.csv`);
      writeFileSync(file, text);
      const { summary, entities } = await parseCsv(file);
      expect(entities).to.have.length(3000);
      expect(entities.map((e) => e.line)).to.deep.equal(starts);
      expect(Math.max(...entities.map((e) => e.line!))).to.be.at.most(lastLine);
      expect(summary.warnings.filter((w) => w.line !== undefined)).to.deep.equal([
        { message: 'row has 4 fields, the header 3: extra values ignored ("surplus")', line: bad.extra },
        { message: 'row has 2 fields, the header 3: missing values left empty', line: bad.short },
        { message: 'stray quote in column 2 ("notes"): kept as text', line: bad.quote },
      ]);
      const strict = await parseCsv(file, { strict: true });
      expect(strict.summary.warnings.filter((w) => w.line !== undefined).map((w) => w.line)).to.deep.equal([
        bad.extra,
        bad.short,
        bad.quote,
      ]);
      expect(strict.summary.counts).to.deep.equal({ rows: 2997 });
    });
  }

  it('an unterminated quote at the end is reported at the line where its record starts', async () => {
    const file = join(work, 'unterminated.csv');
    writeFileSync(file, 'a,b\r\n1,"two\r\nlines"\r\n3,"never closed\r\n4,5\r\n');
    const { summary, entities } = await parseCsv(file);
    expect(entities.map((e) => e.line)).to.deep.equal([2]);
    expect(
      summary.warnings.some((w) => w.line === 4 && /unreadable record skipped/.test(w.message)),
      JSON.stringify(summary.warnings),
    ).to.equal(true);
  });
});

for (const variant of DB_VARIANTS) {
  describe(`csv strict mode through the importers (${variant.name})`, function () {
    this.timeout(120000);
    const csv = 'title,score\nFirst,1\nSecond,2,surplus\nThird\nFourth,4\n';
    const post = (k: TestKernel, path: string, body: FormData | unknown) => postAs(k, 'admin', path, body);
    const form = (content: string, filename: string) => {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      return fd;
    };
    async function importCsv(k: TestKernel, filename: string) {
      const v = (await (await post(k, '/api/importers/validate', form(csv, filename))).json()).data;
      const plan = (await (await post(k, '/api/importers/preview', { format: 'csv', uploadId: v.uploadId, scaffold: true })).json()).data;
      const run = await (await post(k, '/api/importers/run', { planId: plan.planId, confirmed: true })).json();
      let job: any;
      for (let i = 0; i < 400; i++) {
        job = (await (await k.request(`/api/importers/jobs/${run.jobId}`, { identity: 'admin' })).json()).data;
        if (job.status !== 'processing') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const collection = plan.operations.find((o: { sourceType: string }) => o.sourceType === 'rows').targetCollection;
      const list = (await (await k.request(`/api/collections/${collection}?limit=100`, { identity: 'admin' })).json()).data;
      return { validate: v, job, titles: list.items.map((i: Record<string, unknown>) => i.title).sort() };
    }

    describe('lenient by default', () => {
      const k = useIdentityKernel(variant);

      it('ragged rows import with a warning on their line', async () => {
        const r = await importCsv(k, 'lenient.csv');
        expect(r.validate.summary).to.deep.equal({ rows: 4 });
        expect(r.validate.warnings).to.deep.include({
          message: 'row has 3 fields, the header 2: extra values ignored ("surplus")',
          line: 3,
        });
        expect(r.validate.warnings).to.deep.include({ message: 'row has 1 fields, the header 2: missing values left empty', line: 4 });
        expect(r.titles).to.deep.equal(['First', 'Fourth', 'Second', 'Third']);
      });
    });

    describe('strict as the instance default (plugins.options.importers.csvStrict / IMPORT_CSV_STRICT)', () => {
      let k: TestKernel;
      let saved: string | undefined;
      before(async function () {
        requireVariant(this, variant);
        saved = process.env.IMPORT_CSV_STRICT;
        process.env.IMPORT_CSV_STRICT = 'true';
        k = await startTestKernel({
          db: variant.name,
          plugins: [fixturePlugin('test-identity')],
          config: { plugins: { options: { importers: { csvStrict: true } } } } as never,
        });
      });
      after(async () => {
        await k?.close();
        if (saved === undefined) delete process.env.IMPORT_CSV_STRICT;
        else process.env.IMPORT_CSV_STRICT = saved;
      });

      it('ragged rows are refused with their line and are not imported', async () => {
        const r = await importCsv(k, 'strict.csv');
        expect(r.validate.valid).to.equal(true);
        expect(r.validate.summary).to.deep.equal({ rows: 2 });
        expect(r.validate.warnings).to.deep.include({ message: 'row refused (strict mode): row has 3 fields, the header 2', line: 3 });
        expect(r.validate.warnings).to.deep.include({ message: 'row refused (strict mode): row has 1 fields, the header 2', line: 4 });
        // Refused rows count as failed in the run's results; their reasons are in the warnings.
        expect(r.job.results.rows).to.include({ imported: 2, failed: 2 });
        expect(r.job.warnings).to.deep.include({
          message: 'while reading: row refused (strict mode): row has 3 fields, the header 2',
          line: 3,
        });
        expect(r.titles).to.deep.equal(['First', 'Fourth']);
      });
    });

    describe("the request's own `strict` field", () => {
      const k = useIdentityKernel(variant);

      it('analyseUpload passes strict=true from the request fields to the parse, over a lenient instance default', async () => {
        const dir = mkdtempSync(join(work, 'analyse-'));
        const path = join(dir, 'upload.bin');
        writeFileSync(path, csv);
        const deps = {
          pool: k.kernel.container.resolve('pool') as never,
          formats: k.kernel.registries.importFormats,
          maxDepth: 32,
          limits: { csvStrict: false },
        };
        const input = { path, filename: 'fields.csv', size: csv.length, workDir: dir, spoolPath: join(dir, 'entities.ndjson') };
        const strict = await analyseUpload(deps, { ...input, fields: { strict: 'true' } });
        expect(strict.summary.counts).to.deep.equal({ rows: 2 });
        expect(strict.warnings.filter((w) => /refused \(strict mode\)/.test(w.message)).map((w) => w.line)).to.deep.equal([3, 4]);
        const lenient = await analyseUpload(deps, { ...input, fields: { strict: 'false' } });
        expect(lenient.summary.counts).to.deep.equal({ rows: 4 });
      });
    });
  });
}
