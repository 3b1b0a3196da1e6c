import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { tempDir, useTestKernel } from '../helpers/kernel.js';
import { readToken, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';

// The client SDK as a site gets it (issue 39, "done when"): `npm pack` of packages/sdk, installed from the tarball
// into an empty project (offline: the SDK has no dependencies), its README example type-checked with TypeScript
// (the project's own, from the root node_modules) and run against a kernel; then the static blog example
// (examples/static-blog, item 4) run in the same project.

const SDK = join(PROJECT_ROOT, 'packages', 'sdk');
const TSC = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

/** Our environment without npm's own variables (a test run by `npm test` must not hand its npm settings on). */
const cleanEnv = (extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  ...extra,
});

/** The ```ts block after the `<!-- marker` comment of a README. */
function exampleAfter(readme: string, marker: string): string {
  const at = readme.indexOf(`<!-- ${marker}`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (at < 0 || !block) throw new Error(`no ${marker} block`);
  return block[1]!;
}

async function node(cwd: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, env: cleanEnv(env), timeout: 60000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(e.code ?? 1), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('client SDK package: npm pack, install, README example and the static blog against a kernel (sqlite)', function () {
  this.timeout(120000);
  let blog: Blog;
  let token: string;
  let work: string;
  let project: string;
  let packed: { files: Array<{ path: string }> };
  const t = useTestKernel(SDK_KERNEL, {
    seed: async () => {
      blog = await seedBlog(t);
      token = await readToken(blog.admin);
      // The README's snippets read a singleton too.
      const settings = {
        name: 'site_settings',
        singular: 'site_setting',
        singleton: true,
        fields: [{ name: 'tagline', type: 'text' as const }],
      };
      await blog.admin.call('POST /api/collections', { body: settings });
    },
  });

  before(async function () {
    work = tempDir('cms-sdk-pack-');
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: SDK,
      env: cleanEnv(),
    });
    packed = JSON.parse(stdout)[0];
    project = join(work, 'site');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'site', private: true, type: 'module' }));
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'npm-cache'), join(work, tarball)], {
      cwd: project,
      env: cleanEnv(),
    });
  });
  after(() => work && rmSync(work, { recursive: true, force: true }));

  it('packs the built modules, their declarations, the README and the licence, nothing else', function () {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths).to.include.members(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/subscriptions.js']);
    expect(paths.filter((p) => !/^(package\.json|README\.md|LICENSE|dist\/[\w.-]+\.(js|d\.ts))$/.test(p))).to.deep.equal([]);
    expect(existsSync(join(project, 'node_modules', '@cms-kernel', 'sdk', 'dist', 'index.js'))).to.equal(true);
  });

  it("the READMEs' examples type-check against the installed package and the instance's types, and run", async function () {
    writeFileSync(join(project, 'cms-types.ts'), String(await blog.admin.call('GET /api/types.ts')));
    const sdkReadme = readFileSync(join(SDK, 'README.md'), 'utf8');
    // Every TypeScript block of the SDK's README, in order, as one module (they build on each other): type-checked only.
    const snippets = [...sdkReadme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(snippets.length).to.be.at.least(5);
    writeFileSync(join(project, 'readme-snippets.ts'), ['declare const id: string;', ...snippets].join('\n'));
    const examples = {
      'readme-example.ts': exampleAfter(sdkReadme, 'readme-example'),
      'quick-start.ts': exampleAfter(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'), 'sdk-quick-start'),
    };
    expect(examples['quick-start.ts'].trim().split('\n')).to.have.length(5); // the root README's "five lines"
    for (const [file, code] of Object.entries(examples)) {
      expect(code).to.include("'http://127.0.0.1:3000'").and.include("'YOUR_WEBSITE_TOKEN'");
      const runnable = code
        .replace("'http://127.0.0.1:3000'", JSON.stringify(t.url))
        .replace("'YOUR_WEBSITE_TOKEN'", JSON.stringify(token));
      writeFileSync(join(project, file), runnable);
    }
    // The other entry points resolve through the package's exports, typed.
    writeFileSync(
      join(project, 'entry-points.ts'),
      [
        "import { createClient, isCmsError, type CmsError } from '@cms-kernel/sdk/content';",
        "import { subscriptions, type Subscription } from '@cms-kernel/sdk/subscriptions';",
        "const live = subscriptions(createClient({ url: 'http://127.0.0.1:3000' }));",
        "export const s: Subscription<{ postAdded: { _id: string } }> = live.subscribe('subscription { postAdded { _id } }');",
        'export const guard = (e: unknown): e is CmsError => isCmsError(e);',
      ].join('\n'),
    );
    const compilerOptions = {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: [...Object.keys(examples), 'entry-points.ts', 'readme-snippets.ts'] }),
    );
    const compiled = await node(project, [TSC, '-p', 'tsconfig.json']);
    expect(compiled.code, compiled.stdout + compiled.stderr).to.equal(0);
    const lines = blog.published.map((title) => `${title} by Ada Lovelace`);
    const example = await node(project, ['readme-example.js']); // sorted by createdAt: oldest first
    expect(example.code, example.stderr).to.equal(0);
    expect(example.stdout.trim().split('\n')).to.deep.equal(lines);
    const quickStart = await node(project, ['quick-start.js']); // the default order: newest first
    expect(quickStart.code, quickStart.stderr).to.equal(0);
    expect(quickStart.stdout.trim().split('\n')).to.deep.equal([...lines].reverse());
  });

  it('the static blog example writes the published posts as HTML (titles escaped, the draft left out)', async function () {
    copyFileSync(join(PROJECT_ROOT, 'examples', 'static-blog', 'build.mjs'), join(project, 'build.mjs'));
    const out = join(work, 'public');
    const built = await node(project, ['build.mjs', out], { CMS_URL: t.url, CMS_TOKEN: token, SITE_NAME: 'Ada & friends' });
    expect(built.code, built.stderr).to.equal(0);
    expect(built.stdout).to.include('Wrote 2 posts');
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    expect(index).to.include('<title>Ada &amp; friends</title>');
    expect(index).to.include('Second &lt;post&gt; &amp; more');
    expect(index).to.not.include(blog.draft);
    expect(index.indexOf('Second &lt;post&gt;')).to.be.below(index.indexOf('Hello, world')); // newest first
    const files = readdirSync(join(out, 'posts')).sort();
    expect(files).to.have.length(2);
    for (const file of files) expect(file).to.match(/^[a-z0-9-]+\.html$/);
    const hello = readFileSync(
      join(
        out,
        'posts',
        files.find((f) => f.startsWith('hello'))!,
      ),
      'utf8',
    );
    expect(hello).to.include('<h1>Hello, world</h1>').and.include('by Ada Lovelace').and.include('<p>Hello, world</p>');
  });

  it('the static blog says in words when the instance refuses its token, and exits 1', async function () {
    const built = await node(project, ['build.mjs', join(work, 'refused')], { CMS_URL: t.url, CMS_TOKEN: 'not-a-token' });
    expect(built.code).to.equal(1);
    expect(built.stderr).to.match(/The CMS refused \(AUTHENTICATION_REQUIRED, HTTP 401\)/);
  });
});
