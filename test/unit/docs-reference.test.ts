import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERROR_CATALOGUE } from '../../kernel/errors.js';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { firstDifference } from '../helpers/first-difference.js';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from '../../plugins/setup/settings-catalogue.js';

const GENERATOR = join(PROJECT_ROOT, 'scripts', 'gen-docs.mjs');

interface DocsGenerator {
  PAGES: Record<string, () => Promise<string>>;
}

describe('generated reference pages (scripts/gen-docs.mjs)', function () {
  let gen: DocsGenerator;
  before(async function () {
    gen = (await import(pathToFileURL(GENERATOR).href)) as DocsGenerator;
  });

  async function expectUpToDate(page: string): Promise<string> {
    const generated = await gen.PAGES[page]!();
    const committed = readFileSync(join(PROJECT_ROOT, page), 'utf8');
    expect(
      generated === committed,
      `${page} is out of date (node scripts/gen-docs.mjs), ${firstDifference(generated, committed)}`,
    ).to.equal(true);
    return committed;
  }

  it('docs/reference/errors.md matches the error catalogue, every code with its status', async function () {
    const page = await expectUpToDate('docs/reference/errors.md');
    for (const e of ERROR_CATALOGUE) expect(page, e.code).to.include(`| \`${e.code}\` | ${e.status} |`);
  });

  it('docs/reference/environment.md matches the env mappings of the built-in plugins', async function () {
    const page = await expectUpToDate('docs/reference/environment.md');
    expect(page.split('\n').filter((l) => l.startsWith('| `')).length, 'no plugin declares env variables').to.be.greaterThan(10);
  });

  it('docs/reference/settings.md matches the System Settings catalogue, every key listed', async function () {
    const page = await expectUpToDate('docs/reference/settings.md');
    for (const x of [...PUBLIC_SETTINGS, ...PRIVATE_SETTINGS]) expect(page, x.key).to.include(`| \`${x.key}\` |`);
  });

  it('docs/reference/routes.md matches the route declarations (the OpenAPI document)', async function () {
    const page = await expectUpToDate('docs/reference/routes.md');
    expect(page).to.include('| GET | `/api/system/health` | public | system |');
  });
});
