import { expect } from 'chai';
import type { ImportFormat } from '../../plugins/importers/public.js';
import type { Registries } from '../../kernel/registries/index.js';
import { importFormatContract } from '../../testing/index.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

/**
 * One contract (testing/import-format.ts, which plugin authors run against their own format) for every
 * import format a kernel booted with all plugins registers (so each format plugin is covered as it lands):
 * shape, detector range and restraint, and the parse task's spool agreeing with its summary over the
 * format's smallest fixture. Real sample exports, one folder per format (../shared/fixtures/imports next to
 * the checkout, or CMS_IMPORT_FIXTURES).
 */
describe('import format contract (every registered format)', function () {
  this.timeout(120000);
  let formats: ImportFormat[];
  const t = useTestKernel(
    { plugins: [fixturePlugin('import-example')] },
    { seed: async () => void (formats = t.kernel.container.resolve<Registries>('registries').importFormats.list()) },
  );

  it('at least the example format is registered', () => {
    expect(formats.map((f) => f.format)).to.include('kv_blocks');
  });

  importFormatContract({ t, formats: () => formats, fixtures: IMPORT_FIXTURES });
});
