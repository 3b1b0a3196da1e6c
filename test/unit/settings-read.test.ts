import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from '../../plugins/setup/settings-catalogue.js';

/** Source folders (tests and docs are not sources; neither is the catalogue itself). */
const SOURCE_DIRS = ['kernel', 'plugins', 'workers', 'widgets', 'admin/src'];
const CATALOGUE = 'plugins/setup/settings-catalogue.ts';
const SOURCE_FILE = /\.(ts|js|mjs|svelte)$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') sourceFiles(path, out);
    } else if (SOURCE_FILE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The System Setting keys the built-in plugins' manifests map onto their options (plugin.json `settings`). */
function manifestSettingKeys(): string[] {
  const dir = join(PROJECT_ROOT, 'plugins');
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      try {
        return Object.keys((JSON.parse(readFileSync(join(dir, e.name, 'plugin.json'), 'utf8')) as { settings?: object }).settings ?? {});
      } catch {
        return [];
      }
    });
}

/** The code without comments (a key named only in a comment is not read); `://` in strings is kept. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/**
 * A source reads a setting when it names the key as a string (`settings.get('KEY')`, a list of keys)
 * or as the key of a map to option names (`{ MEDIA_FOLDER: 'folder' }`, as the storage drivers keep);
 * a constant or type of the same name (`DEFAULT_THEME: ThemeState`) does not count.
 */
const reads = (code: string, key: string) => new RegExp(`(['"\`])${key}\\1|\\b${key}\\s*:\\s*['"\`]`).test(code);

describe('seeded settings are read by the code (no dead settings)', function () {
  const sources = SOURCE_DIRS.flatMap((d) => sourceFiles(join(PROJECT_ROOT, d)))
    .filter((file) => relative(PROJECT_ROOT, file).split('\\').join('/') !== CATALOGUE)
    .map((file) => withoutComments(readFileSync(file, 'utf8')))
    // A manifest's `settings` map is read by the kernel for its plugin (docs/configuration.md, "One configuration
    // path"); its keys count as read, its `env` entries do not (a variable may share a setting's name).
    .concat(manifestSettingKeys().map((key) => `'${key}'`));

  it('finds the sources', function () {
    expect(sources.length).to.be.greaterThan(100);
  });

  it('every catalogue key is read by a source file outside the catalogue, tests and docs', function () {
    const unread = [...PUBLIC_SETTINGS, ...PRIVATE_SETTINGS].map((s) => s.key).filter((key) => !sources.some((code) => reads(code, key)));
    expect(unread, `settings no code reads (wire them or remove them from ${CATALOGUE})`).to.deep.equal([]);
  });

  it('the check itself: a key only named in a comment or inside a longer name does not count', function () {
    expect(reads(withoutComments("// settings.get('SITE_NAME')\n/* 'SITE_NAME' */"), 'SITE_NAME')).to.equal(false);
    expect(reads("env.CMS_SITE_NAME: 1, 'MY_SITE_NAME'", 'SITE_NAME')).to.equal(false);
    expect(reads("await settings.get('SITE_NAME')", 'SITE_NAME')).to.equal(true);
    expect(reads('{ MEDIA_FOLDER: "folder" }', 'MEDIA_FOLDER')).to.equal(true);
    expect(reads('export const DEFAULT_THEME: ThemeState = {}', 'DEFAULT_THEME')).to.equal(false);
    expect(reads(withoutComments("const url = 'http://x'; get('A_B')"), 'A_B')).to.equal(true);
  });
});
