import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/version.js';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'check-licences.mjs');

interface Checker {
  allows(expression: string): boolean;
  checkLicences(root: string): { rows: { name: string; licence: string; status: string; source: string }[]; problems: string[] };
}

/** Runs the script; resolves with its exit code and output (a non-zero exit is an answer, not an error). */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args], { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('licences: the project is MIT and its runtime dependencies allow that (scripts/check-licences.mjs)', function () {
  this.timeout(30000);
  let checker: Checker;
  before(async function () {
    checker = (await import(pathToFileURL(SCRIPT).href)) as Checker;
  });

  it('the project states the MIT licence: LICENSE, package.json and the README', function () {
    const licence = readFileSync(join(PROJECT_ROOT, 'LICENSE'), 'utf8');
    expect(licence).to.match(/^MIT License\n\nCopyright \(c\) 2026 the CMS kernel contributors\n/);
    expect(licence).to.include('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).license).to.equal('MIT');
    expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')).to.match(/## Licence\n\n[^#]*MIT licence/);
  });

  it('every package of the runtime tree in package-lock.json has an allowed or reviewed licence', async function () {
    const { code, stdout, stderr } = await run([]);
    expect(code, stderr).to.equal(0);
    const { rows, problems } = checker.checkLicences(PROJECT_ROOT);
    expect(problems).to.deep.equal([]);
    const byName = new Map(rows.map((r) => [r.name, r]));
    // Runtime packages are listed, development-only ones are not.
    expect(byName.get('koa')?.licence).to.equal('MIT');
    expect(byName.has('mocha'), 'a devDependency is not in the runtime tree').to.equal(false);
    expect(byName.has('vite')).to.equal(false);
    // No licence in the lockfile: the installed package.json's old "licenses" array answers.
    expect(byName.get('busboy')).to.include({ licence: 'MIT', source: 'package.json', status: 'allowed' });
    // The MariaDB client (LGPL) is a reviewed exception, named with its reason in the listing.
    expect(byName.get('mariadb')).to.include({ licence: 'LGPL-2.1-or-later', status: 'reviewed' });
    expect(stdout).to.match(/reviewed +mariadb@\S+ +LGPL-2\.1-or-later +\(the MariaDB client library/);
    expect(stdout).to.match(/^\d+ runtime packages: \d+ allowed, \d+ reviewed$/m);
  });

  it('SPDX expressions: OR needs one allowed side, AND needs both; copyleft and unknown text are refused', function () {
    for (const ok of [
      'MIT',
      'Apache-2.0',
      '(MIT OR GPL-3.0-only)',
      'GPL-2.0 OR BSD-3-Clause',
      '(MIT AND ISC)',
      'MIT OR (GPL-2.0 AND LGPL-3.0)',
      'BlueOak-1.0.0',
      'Apache-2.0 WITH LLVM-exception',
      'mit',
    ])
      expect(checker.allows(ok), ok).to.equal(true);
    for (const bad of [
      'GPL-3.0-only',
      'AGPL-3.0',
      'LGPL-2.1-or-later',
      'SSPL-1.0',
      'EUPL-1.2',
      'MIT AND GPL-2.0',
      '(ISC AND (GPL-2.0 OR AGPL-3.0))',
      'SEE LICENSE IN LICENSE.txt',
      'UNLICENSED',
      '',
      'MIT OR',
      '(MIT',
    ])
      expect(checker.allows(bad), bad).to.equal(false);
  });

  describe('a project with problems', function () {
    let root: string;
    before(function () {
      root = mkdtempSync(join(tmpdir(), 'cms-licences-'));
      const lock = {
        name: 'demo',
        lockfileVersion: 3,
        packages: {
          '': {
            name: 'demo',
            dependencies: { fine: '1', 'gpl-lib': '1', mystery: '1', 'old-style': '1' },
            devDependencies: { 'gpl-tool': '1' },
          },
          'node_modules/fine': { version: '1.0.0', license: 'MIT', dependencies: { 'agpl-inner': '1', either: '1' } },
          'node_modules/fine/node_modules/agpl-inner': { version: '2.0.0', license: 'AGPL-3.0-only' },
          'node_modules/agpl-inner': { version: '9.0.0', license: 'MIT' },
          'node_modules/either': { version: '1.0.0', license: '(MIT OR GPL-3.0-only)', peerDependencies: { both: '1' } },
          'node_modules/both': { version: '1.0.0', license: 'MIT AND GPL-2.0-only' },
          'node_modules/gpl-lib': { version: '3.1.0', license: 'GPL-3.0-or-later' },
          'node_modules/mystery': { version: '0.1.0' },
          'node_modules/old-style': { version: '1.0.0' },
          'node_modules/gpl-tool': { version: '1.0.0', license: 'GPL-3.0-only', dev: true },
        },
      };
      writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
      mkdirSync(join(root, 'node_modules', 'old-style'), { recursive: true });
      writeFileSync(join(root, 'node_modules', 'old-style', 'package.json'), JSON.stringify({ licenses: [{ type: 'ISC' }] }));
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    it('fails naming each copyleft, unknown or mixed-AND licence in the runtime tree, and nothing else', async function () {
      const { code, stderr } = await run(['--root', root, '--quiet']);
      expect(code).to.equal(1);
      const listed = stderr
        .split('\n')
        .slice(1)
        .map((l) => l.trim())
        .filter(Boolean)
        .sort();
      expect(listed).to.deep.equal([
        'agpl-inner@2.0.0: AGPL-3.0-only (copyleft licence)',
        'both@1.0.0: MIT AND GPL-2.0-only (copyleft licence)',
        'gpl-lib@3.1.0: GPL-3.0-or-later (copyleft licence)',
        'mystery@0.1.0: (none) (no licence in the lockfile nor in the installed package.json)',
      ]);
      const rows = new Map(checker.checkLicences(root).rows.map((r) => [r.name, r]));
      expect(rows.get('old-style')).to.include({ licence: 'ISC', source: 'package.json', status: 'allowed' });
      expect(rows.get('either')?.status, 'one allowed side of OR is enough').to.equal('allowed');
      expect(rows.has('gpl-tool'), 'a dev-only package is not checked').to.equal(false);
      expect(rows.size, 'the hoisted MIT agpl-inner@9 is used by no one: only the nested one is listed').to.equal(7);
    });

    it('a missing or unreadable lockfile is reported, not passed', async function () {
      const empty = mkdtempSync(join(tmpdir(), 'cms-licences-none-'));
      try {
        const { code, stderr } = await run(['--root', empty]);
        expect(code).to.equal(2);
        expect(stderr).to.match(/check-licences: .*package-lock\.json/);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });
});
