/**
 * Detection of php_cms (Drupal JSON:API), node_cms (Strapi) and data_cms (Directus) from the real
 * profile task's output over every shared import fixture: each of our fixtures is recognised by its
 * own format (>= 0.8) and by neither of the other two; every other folder's fixture scores low.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ImportProfile, ImportSample } from '../../plugins/importers/public.js';
import { detectPhpCms } from '../../plugins/import-cms/php-cms-format.js';
import { detectNodeCms } from '../../plugins/import-cms/node-cms-format.js';
import { detectDataCms } from '../../plugins/import-cms/data-cms-format.js';
import { importProfile } from '../../workers/import/profile.js';
import { IMPORT_FIXTURES } from '../helpers/import-fixtures.js';

const FIXTURES = IMPORT_FIXTURES;
const DETECT = { php_cms: detectPhpCms, node_cms: detectNodeCms, data_cms: detectDataCms } as const;
type Ours = keyof typeof DETECT;

async function sampleOf(path: string, filename = path.split('/').pop()!): Promise<ImportSample> {
  const r = await importProfile({ path, filename, maxDepth: 32 });
  if (!r.ok) throw new Error(`${path}: ${JSON.stringify(r.issues)}`);
  return { filename, size: statSync(path).size, head: readFileSync(path).subarray(0, 64 * 1024), profile: r.value };
}
const scores = (s: ImportSample) => Object.fromEntries(Object.entries(DETECT).map(([f, d]) => [f, d(s)])) as Record<Ours, number>;

describe('import-cms detection from real profiles', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(FIXTURES)) this.skip();
  });

  for (const own of Object.keys(DETECT) as Ours[]) {
    it(`every ${own} fixture is detected as ${own} (>= 0.8) and by neither other CMS format`, async () => {
      const files = readdirSync(join(FIXTURES, own)).filter((f) => f !== 'README.md');
      expect(files.length).to.be.greaterThan(2);
      for (const f of files) {
        const s = scores(await sampleOf(join(FIXTURES, own, f)));
        expect(s[own], `${own}/${f}`).to.be.at.least(0.8);
        for (const other of Object.keys(DETECT) as Ours[]) if (other !== own) expect(s[other], `${other} on ${own}/${f}`).to.equal(0);
      }
    });
  }

  it("other folders' fixtures (WXR, CSV, generic JSON, shop CSVs) score below 0.5 for all three", async () => {
    let seen = 0;
    for (const folder of readdirSync(FIXTURES).filter((d) => statSync(join(FIXTURES, d)).isDirectory() && !(d in DETECT))) {
      for (const f of readdirSync(join(FIXTURES, folder)).filter((x) => x !== 'README.md' && !x.startsWith('.'))) {
        const s = scores(await sampleOf(join(FIXTURES, folder, f)));
        for (const [format, score] of Object.entries(s)) expect(score, `${format} on ${folder}/${f}`).to.be.below(0.5);
        seen++;
      }
    }
    expect(seen).to.be.greaterThan(50);
  });

  it('structure decides, not the name: a Drupal document named .txt still scores; a generic array named drupal.json does not', async () => {
    const drupal = await sampleOf(join(FIXTURES, 'php_cms', 'drupal-standard-article.jsonapi.json'));
    expect(detectPhpCms({ ...drupal, filename: 'export.txt' })).to.be.at.least(0.9);
    const generic = {
      ...drupal,
      filename: 'drupal.json',
      profile: {
        ...drupal.profile,
        json: { ...drupal.profile.json!, topKeys: ['items'], recordsPath: 'items', recordKeys: ['id', 'name'], recordTypes: [] },
      },
    };
    expect(detectPhpCms(generic)).to.equal(0);
  });

  it('profiles made by hand: Strapi REST v4/v5, an encrypted export, a Directus {data} response, a plain array', () => {
    const json = (j: Partial<NonNullable<ImportProfile['json']>>): ImportProfile['json'] => ({
      root: 'object',
      topKeys: [],
      recordsPath: 'data',
      recordCount: 2,
      recordKeys: [],
      recordTypes: [],
      maxDepth: 4,
      ...j,
    });
    const sample = (filename: string, profile: Partial<ImportProfile>): ImportSample => ({
      filename,
      size: 100,
      head: Buffer.alloc(0),
      profile: { container: 'plain', encoding: 'utf-8', bom: false, kind: 'json', ...profile },
    });
    const v4 = sample('articles.json', { json: json({ topKeys: ['data', 'meta'], recordKeys: ['id', 'attributes'] }) });
    expect(detectNodeCms(v4)).to.be.at.least(0.9);
    expect(detectPhpCms(v4)).to.equal(0);
    expect(detectDataCms(v4)).to.equal(0);
    const v5 = sample('articles.json', {
      json: json({ topKeys: ['data', 'meta'], recordKeys: ['id', 'documentId', 'title', 'publishedAt'] }),
    });
    expect(detectNodeCms(v5)).to.be.at.least(0.9);
    expect(detectNodeCms(sample('backup.tar.gz.enc', { kind: 'binary' }))).to.equal(0.6);
    const directusData = sample('posts.json', {
      json: json({ topKeys: ['data'], recordKeys: ['id', 'status', 'user_created', 'date_created'] }),
    });
    expect(detectDataCms(directusData)).to.be.at.least(0.9);
    expect(detectNodeCms(directusData)).to.equal(0);
    const plain = sample('rows.json', { json: json({ root: 'array', topKeys: [], recordsPath: '', recordKeys: ['id', 'name', 'price'] }) });
    expect([detectPhpCms(plain), detectNodeCms(plain), detectDataCms(plain)]).to.deep.equal([0, 0, 0]);
  });
});
