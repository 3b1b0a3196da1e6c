import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadWriter } from '../helpers/import-fixtures.js';
import { BootError } from '../../kernel/errors.js';
import { WorkerPool } from '../../kernel/pool.js';
import type { ImportFormat, ImportSample } from '../../plugins/importers/public.js';
import { TABULAR_FORMATS } from '../../plugins/import-tabular/formats.js';
import { analyseUpload, confidenceOf, type FormatsView } from '../../plugins/importers/analyse.js';
import { ImportFormatMismatchError, ImportFormatUnknownError, ImportLimitExceededError } from '../../plugins/importers/errors.js';
import { pluginOptions } from '../helpers/plugin-options.js';
import { importerOptionsSchema, readImporterEnv } from '../../plugins/importers/options.js';

/** plugins.options.importers (`raw`) with the IMPORT_* variables the kernel mapped (`env`) over it, as the kernel merges them. */
const parseImporterOptions = (raw: unknown, env: Record<string, unknown> = {}, sources: Record<string, string> = {}) =>
  pluginOptions('importers', importerOptionsSchema, readImporterEnv, raw, env, sources);

/**
 * The importers' options (defaults, IMPORT_* variables over plugins.options) and the analysis step
 * (profile, detection by every registered format, parse) with the real worker pool and the real
 * tabular formats.
 */
describe('unit: importer options and analysis', () => {
  describe('parseImporterOptions', () => {
    it('gives the documented defaults', () => {
      const o = parseImporterOptions(undefined);
      assert.equal(o.maxBytes, 512 * 1024 * 1024);
      assert.equal(o.inlineThreshold, 100);
      assert.equal(o.fetchRemote, false);
      assert.equal(o.fetchAllowPrivate, false);
      assert.equal(o.csvStrict, false);
    });

    it('environment values win over plugins.options, numbers floored, flags read as yes/no', () => {
      const o = parseImporterOptions(
        { maxBytes: 1000, csvStrict: true },
        { maxBytes: '2048.7', csvStrict: 'off', fetchRemote: 'YES', retentionHours: '0.5' },
      );
      assert.equal(o.maxBytes, 2048);
      assert.equal(o.csvStrict, false);
      assert.equal(o.fetchRemote, true);
      assert.equal(o.retentionHours, 0.5);
      assert.equal(parseImporterOptions({ csvStrict: true }, { csvStrict: '' }).csvStrict, true, 'an empty variable changes nothing');
    });

    it('refuses a bad variable naming the variable, and bad options naming the option', () => {
      assert.throws(
        () => parseImporterOptions({}, { maxBytes: 'lots' }, { maxBytes: 'IMPORT_MAX_BYTES' }),
        (err: unknown) => err instanceof BootError && /IMPORT_MAX_BYTES/.test(err.message) && /'lots'/.test(err.message),
      );
      assert.throws(() => parseImporterOptions({}, { maxLineBytes: '-5' }), BootError);
      assert.throws(
        () => parseImporterOptions({ batchSize: 1001 }),
        (err: unknown) => err instanceof BootError && /batchSize/.test(err.message),
      );
    });
  });

  describe('confidenceOf', () => {
    const sample = { filename: 'x.csv', size: 1, head: Buffer.from('a'), profile: {} } as unknown as ImportSample;
    const fmt = (detect: ImportFormat['detect']) => ({ ...TABULAR_FORMATS[0]!, detect });
    it('clamps to 0..1 and counts a throwing or non-numeric detector as 0', () => {
      assert.equal(
        confidenceOf(
          fmt(() => 7),
          sample,
        ),
        1,
      );
      assert.equal(
        confidenceOf(
          fmt(() => -1),
          sample,
        ),
        0,
      );
      assert.equal(
        confidenceOf(
          fmt(() => 0.4),
          sample,
        ),
        0.4,
      );
      assert.equal(
        confidenceOf(
          fmt(() => {
            throw new Error('bad detector');
          }),
          sample,
        ),
        0,
      );
      assert.equal(
        confidenceOf(
          fmt(() => Number.NaN),
          sample,
        ),
        0,
      );
      assert.equal(confidenceOf(fmt((() => 'high') as never), sample), 0);
    });
  });

  describe('analyseUpload', function () {
    let pool: WorkerPool;
    let dir: string;
    const formats: FormatsView = { list: () => TABULAR_FORMATS, get: (f) => TABULAR_FORMATS.find((x) => x.format === f) };
    const upload = uploadWriter(() => dir);
    const deps = (limits = {}) => ({ pool, formats, maxDepth: 32, limits });

    before(async function () {
      this.timeout(10000);
      dir = mkdtempSync(join(tmpdir(), 'cms-unit-import-'));
      pool = new WorkerPool({ maxThreads: 1, idleTimeoutMs: 60000 });
      // Warm the worker once (module loading), so each test measures only its own work.
      await analyseUpload(deps(), upload('warm.csv', 'a,b\n1,2\n'));
    });
    after(async () => {
      await pool?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('detects CSV and counts its rows', async () => {
      const steps: string[] = [];
      const a = await analyseUpload(deps(), upload('people.csv', 'name,age\nAda,36\nAlan,41\nGrace,85\n'), (s) => steps.push(s));
      assert.equal(a.format, 'csv');
      assert.ok(a.confidence > 0);
      assert.deepEqual(a.blockedReasons, []);
      assert.equal(a.summary.counts.rows, 3);
      assert.deepEqual(steps, ['detecting', 'parsing']);
    });

    it('detects a JSON array of records', async () => {
      const a = await analyseUpload(
        deps(),
        upload(
          'items.json',
          JSON.stringify([
            { id: 1, t: 'a' },
            { id: 2, t: 'b' },
          ]),
        ),
      );
      assert.equal(a.format, 'json');
      assert.equal(a.summary.counts.rows, 2);
    });

    it('blocks an empty upload as empty, whatever its name', async () => {
      const a = await analyseUpload(deps(), upload('data.csv', '   \n\n'));
      assert.equal(a.format, null);
      assert.deepEqual(a.blockedReasons, ['The file is empty.']);
    });

    it('an unknown format hint is a 400 naming the known formats; a hint the content contradicts is a mismatch', async () => {
      await assert.rejects(
        analyseUpload(deps(), { ...upload('a.csv', 'a,b\n1,2\n'), hint: 'xlsx' }),
        (err: unknown) =>
          err instanceof ImportFormatUnknownError && /xlsx/.test((err as Error).message) && /csv/.test((err as Error).message),
      );
      await assert.rejects(analyseUpload(deps(), { ...upload('a.json', '{"products": [}'), hint: 'self_cms' }), ImportFormatMismatchError);
    });

    it('a line past maxLineBytes is refused with 413 naming the limit, and the job folder is removed', async () => {
      const u = upload('wide.csv', `a,b\n${'x'.repeat(5000)},1\n`);
      await assert.rejects(
        analyseUpload(deps({ maxLineBytes: 1024 }), u),
        (err: unknown) => err instanceof ImportLimitExceededError && err.status === 413 && err.extra.limit === 'maxLineBytes',
      );
      assert.equal(existsSync(u.workDir), false);
    });
  });
});
