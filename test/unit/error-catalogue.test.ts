import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverFolder } from '../../kernel/discovery.js';
// The kernel's own modules define codes too (DATABASE_BUSY, IDEMPOTENCY_*): plugins import only kernel/sdk.js, so load the kernel.
import '../../kernel/index.js';
import { ERROR_CATALOGUE } from '../../kernel/errors.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';

/** The README's error table and kernel/errors.ts must list the same codes, statuses and descriptions. */
describe('error catalogue', function () {
  // The error table lives in docs/reference/error-catalogue.md (the whole page is the former README section).
  const section = readFileSync(join(PROJECT_ROOT, 'docs', 'reference', 'error-catalogue.md'), 'utf8');
  const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+?) \|$/gm)].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    description: m[3]!,
  }));
  const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);

  // Built-in plugins define their codes next to their error classes: load them all first.
  before(async function () {
    for (const p of discoverFolder(join(DIST_ROOT, 'plugins'))) await import(pathToFileURL(join(p.dir, p.manifest.entry)).href);
  });

  it('the README documents every code the kernel and the built-in plugins can answer with, and no other', function () {
    expect(rows.length, 'README error table not found').to.be.greaterThan(5);
    expect([...rows].sort(byCode)).to.deep.equal([...ERROR_CATALOGUE].map((e) => ({ ...e })).sort(byCode));
  });

  it('codes are unique and statuses are client or server errors', function () {
    const codes = ERROR_CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).to.equal(codes.length);
    for (const e of ERROR_CATALOGUE) expect(e.status, e.code).to.be.within(400, 599);
  });
});
