// The admin UI speaks from its message catalogue (admin/src/i18n/messages/<locale>/<area>.json): no
// word of the UI may be written into a component, and every key the code names must be in English and
// German. The check itself is scripts/admin-catalogue.mjs (`node scripts/admin-catalogue.mjs --verbose`
// lists what is left); docs/guides/admin-ui-languages.md tells how to add a string or a language.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../kernel/version.js';

interface CatalogueCheck {
  ADMIN_SRC: string;
  svelteFiles(): string[];
  scriptFiles(): string[];
  literalsOf(file: string): Array<{ line: number; text: string }>;
  loadCatalogue(locale: string): Record<string, string>;
  catalogueProblems(): string[];
  icuArguments(message: string): string[];
}

/**
 * Files whose strings have not moved to the catalogue yet (paths under admin/src). The test still parses
 * them; it fails when one of them has no literal left (take it off this list then). Shrink it to empty.
 */
const NOT_YET_MOVED = new Set<string>([]);

describe('admin UI message catalogue (every string of the UI comes from it)', function () {
  let check: CatalogueCheck;
  before(async function () {
    check = (await import(pathToFileURL(join(PROJECT_ROOT, 'scripts', 'admin-catalogue.mjs')).href)) as CatalogueCheck;
  });

  it('every .svelte and .ts file of admin/src shows words only through the catalogue', function () {
    this.timeout(30_000);
    const files = [...check.svelteFiles(), ...check.scriptFiles()];
    expect(files.length).to.be.greaterThan(100);
    const literals: string[] = [];
    const movedButListed: string[] = [];
    for (const file of files) {
      const name = relative(check.ADMIN_SRC, file).split('\\').join('/');
      const found = check.literalsOf(file);
      if (NOT_YET_MOVED.has(name)) {
        if (!found.length) movedButListed.push(name);
        continue;
      }
      for (const l of found) literals.push(`${name}:${l.line}: ${l.text}`);
    }
    expect(literals, 'words written into the UI instead of a catalogue key').to.deep.equal([]);
    expect(movedButListed, 'files without literals still listed in NOT_YET_MOVED').to.deep.equal([]);
  });

  it('every key the code names is in English and German, and German has exactly English keys', function () {
    expect(check.catalogueProblems()).to.deep.equal([]);
    const en = check.loadCatalogue('en');
    expect(Object.keys(en).length).to.be.greaterThan(50);
  });

  it('finds a literal in markup, in a user-visible attribute and in a toast, and none behind translate="no"', function () {
    const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
    const file = join(dir, 'Fixture.svelte');
    writeFileSync(
      file,
      [
        '<script lang="ts">',
        "  toast.success('Saved');",
        "  toast.success(t('area.saved'));",
        '</script>',
        '<p>Hello</p>',
        '<input placeholder="Your name" class="wide" />',
        "<p>{$_('area.key')} · {count}</p>",
        "<p>{saving ? 'Saving' : $_('area.save')}</p>",
        '<code>npm start</code><span translate="no">Acme</span>',
        "<button aria-label={$_('area.close')}>×</button>",
      ].join('\n'),
    );
    try {
      expect(check.literalsOf(file)).to.deep.equal([
        { line: 5, text: 'Hello' },
        { line: 6, text: 'placeholder="Your name"' },
        { line: 8, text: 'Saving' },
        { line: 2, text: 'Saved' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(check.icuArguments('{count, plural, one {# entry} other {# entries}} in {name}')).to.deep.equal(['count', 'name']);
    expect(() => check.icuArguments('{count, plural, one {# entry}')).to.throw();
  });
});
