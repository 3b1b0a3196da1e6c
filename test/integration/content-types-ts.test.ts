import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { as, dataOf } from '../helpers/content.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { childEnv } from '../helpers/cli-instance.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

// Types for developers (issue 35, item 8): GET /api/types.ts answers TypeScript types of every collection
// and component as the API answers them, populate-aware. The test compiles them with code that uses them.
const USAGE = `
import type { Post, Author, Collections, CmsTypes, SeoComponent, SiteSetting } from './cms-types';

declare const plain: Post;
declare const populated: Post<'author' | 'cover'>;
const id: string | null = plain.author;
const name: string | null = populated.author ? populated.author.name : null;
const url: string | undefined = populated.cover?.url;
const kind: 'news' | 'essay' = plain.kind;
const title: string = plain.title;
const views: number | null = plain.views;
// @ts-expect-error an unpopulated relation is an id, not an entry
const wrong: Author | null = plain.author;
// @ts-expect-error a select only takes its options
const badKind: Post['kind'] = 'poem';
const seo: SeoComponent = { title: 'x', noindex: null };
const all: Collections['posts'] = plain;
declare const site: SiteSetting;
const tagline: string | null = site.tagline;
// CmsTypes, the client SDK's type map: the collections, and each one's relation and media fields populated.
const entries: CmsTypes['collections']['posts'] = plain;
const populatedAuthor: CmsTypes['populated']['posts']['author'] = populated.author;
const populatedCover: CmsTypes['populated']['posts']['cover'] = populated.cover;
// @ts-expect-error a collection without relation or media fields has nothing to populate
const none: CmsTypes['populated']['authors']['name'] = 'x';
export { id, name, url, kind, title, views, wrong, badKind, seo, all, tagline, entries, populatedAuthor, populatedCover, none };
`;

const AUTHORS = { name: 'authors', fields: [{ name: 'name', type: 'text', required: true }] };
const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'kind', type: 'select', options: ['news', 'essay'], required: true },
    { name: 'views', type: 'number' },
    { name: 'author', type: 'relation', collection: 'authors' },
    { name: 'cover', type: 'media' },
  ],
};
const SITE = { name: 'site_settings', singular: 'site_setting', singleton: true, fields: [{ name: 'tagline', type: 'text' }] };

for (const variant of DB_VARIANTS)
  describe(`content: GET /api/types.ts (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      {
        variant,
        seed: async () => {
          const admin = as(t, 'admin');
          await dataOf(
            await admin.post('/api/components', {
              name: 'seo',
              fields: [
                { name: 'title', type: 'text', required: true },
                { name: 'noindex', type: 'boolean' },
              ],
            }),
            201,
          );
          for (const definition of [AUTHORS, POSTS, SITE]) await dataOf(await admin.post('/api/collections', definition), 201);
        },
      },
    );

    it('answers types that compile, and that type-check code using them (populated relations as entries, others as ids)', async function () {
      const res = await as(t, 'viewer').get('/api/types.ts');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const source = await res.text();
      expect(source).to.include('export interface Post<P extends "author" | "cover" = never> extends EntryBase');
      const dir = mkdtempSync(join(tmpdir(), 'cms-types-'));
      writeFileSync(join(dir, 'cms-types.ts'), source);
      writeFileSync(join(dir, 'usage.ts'), USAGE);
      const program = ts.createProgram([join(dir, 'usage.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).to.deep.equal([]);
    });

    it('cms types FILE writes the same types from the data folder, and says in words when it cannot', async function () {
      const dir = mkdtempSync(join(tmpdir(), 'cms-types-cli-'));
      const run = (file: string, ...more: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile(
            process.execPath,
            [join(DIST_ROOT, 'kernel', 'cli.js'), 'types', file, ...more].filter(Boolean),
            {
              cwd: dir,
              // The installation's own database: its SQLite file, or its MariaDB database.
              env: {
                ...childEnv(t.dataDir),
                ...(t.dbUrl ? { DB_TYPE: 'mariadb', DB_URL: t.dbUrl } : { DB_TYPE: 'sqlite' }),
                LOG_LEVEL: 'warn',
                REDIS_URL: '',
              },
              timeout: 60000,
            },
            (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
          );
        });
      const ok = await run(join(dir, 'cms-types.ts'));
      expect(ok.code, ok.stderr).to.equal(0);
      expect(ok.stdout).to.include('Wrote ');
      const viaHttp = await (await as(t, 'viewer').get('/api/types.ts')).text();
      expect(readFileSync(join(dir, 'cms-types.ts'), 'utf8')).to.equal(viaHttp);
      const bad = await run(join(dir, 'no-such-folder', 'x.ts'));
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.include('Cannot write');
      // The rules of every cms command: --json, --help, an unknown flag refused in words (not taken for a file name).
      const json = await run(join(dir, 'again.ts'), '--json');
      expect(json.code, json.stderr).to.equal(0);
      expect(JSON.parse(json.stdout)).to.include({ file: join(dir, 'again.ts'), bytes: Buffer.byteLength(viaHttp) });
      expect(JSON.parse((await run('', '--json')).stdout).source).to.equal(viaHttp);
      const help = await run('', '--help');
      expect(help.code).to.equal(0);
      expect(help.stdout).to.include('Usage: cms types [FILE] [--json]');
      const flag = await run('', '--out');
      expect(flag.code).to.equal(1);
      expect(flag.stderr).to.include("Unknown option '--out'").and.include('cms types --help');
    });

    it('needs content:read', async function () {
      expect((await t.request('/api/types.ts')).status).to.equal(401);
    });
  });
