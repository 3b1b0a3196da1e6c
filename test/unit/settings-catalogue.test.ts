import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from '../../plugins/setup/settings-catalogue.js';

/** The README's settings tables and the catalogue seeding writes must agree (the issue asks for the list). */
describe('default settings catalogue', function () {
  const section =
    readFileSync(join(PROJECT_ROOT, 'docs', 'features', 'setup-and-settings.md'), 'utf8').split('\n## Default settings')[1] ?? '';
  const [publicPart = '', privatePart = ''] = section.split('\nPrivate:\n');
  const keys = (text: string) => [...text.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);

  it('has 23 public and 12 private settings with unique keys', function () {
    expect(PUBLIC_SETTINGS).to.have.length(23);
    expect(PRIVATE_SETTINGS).to.have.length(12);
    const all = [...PUBLIC_SETTINGS, ...PRIVATE_SETTINGS].map((s) => s.key);
    expect(new Set(all).size).to.equal(all.length);
  });

  it('the README lists exactly these keys, public and private apart', function () {
    expect(keys(publicPart)).to.deep.equal(PUBLIC_SETTINGS.map((s) => s.key));
    expect(keys(privatePart)).to.deep.equal(PRIVATE_SETTINGS.map((s) => s.key));
  });

  it('no private setting ships with a secret value', function () {
    for (const s of PRIVATE_SETTINGS) if (/SECRET|PASSWORD|KEY/.test(s.key)) expect(s.value, s.key).to.equal(null);
  });
});
