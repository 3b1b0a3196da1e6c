import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { tempDir, useTestKernel } from '../helpers/kernel.js';
import { readToken, seedBlog, SDK_KERNEL, type Blog } from '../helpers/sdk-blog.js';

// The client SDK (packages/sdk, issue 39 item 1) outside Node: its built modules run as they are in Deno (the `deno`
// npm package's own binary, with network access to 127.0.0.1 only and nothing else) and bundled into Vercel's Edge
// Runtime sandbox (@edge-runtime/vm: web APIs only, no Node built-ins, as an edge worker), each reading the published
// posts of a real kernel with a website token and catching a refused call by its code.

const DIST = join(PROJECT_ROOT, 'packages', 'sdk', 'dist');
const DENO = join(PROJECT_ROOT, 'node_modules', '.bin', 'deno');

/** What a site does: list the published posts, read one, and get the code of a call with a revoked token. */
const SITE_CODE = (sdk: string) => `
  const { createClient, isCmsError } = ${sdk};
  const cms = createClient({ url: URL_, token: TOKEN_ });
  const titles = [];
  for await (const post of cms.collection('posts').all({ sort: 'title', limit: 1 })) titles.push(post.title);
  const first = await cms.collection('posts').list({ sort: 'title', limit: 1 });
  const one = await cms.collection('posts').get(first.items[0]._id);
  let refused = null;
  try {
    await createClient({ url: URL_, token: 'not-a-token' }).collection('posts').list();
  } catch (err) {
    refused = isCmsError(err) ? { code: err.code, status: err.status } : String(err);
  }
  RESULT_ = { titles, one: one.title, refused };
`;

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd, timeout: 60000, env: { PATH: process.env.PATH ?? '', HOME: cwd, DENO_DIR: join(cwd, '.deno'), NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(err);
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
  });
}

describe('client SDK in other runtimes: Deno and an edge sandbox (sqlite)', function () {
  this.timeout(90000);
  let blog: Blog;
  let token = '';
  const t = useTestKernel(SDK_KERNEL, {
    seed: async () => {
      blog = await seedBlog(t, ['Hello, world', 'Second <post> & more']);
      token = await readToken(blog.admin);
    },
  });
  const expected = {
    titles: ['Hello, world', 'Second <post> & more'],
    one: 'Hello, world',
    refused: { code: 'AUTHENTICATION_REQUIRED', status: 401 },
  };

  it('Deno runs the built modules as they are, allowed to reach 127.0.0.1 only', async function () {
    const dir = tempDir('cms-sdk-deno-');
    const port = new URL(t.url).port;
    const script = `
      const URL_ = ${JSON.stringify(t.url)};
      const TOKEN_ = ${JSON.stringify(token)};
      let RESULT_;
      ${SITE_CODE(`await import(${JSON.stringify(pathToFileURL(join(DIST, 'index.js')).href)})`)}
      console.log(JSON.stringify({ deno: typeof Deno.version.deno, ...RESULT_ }));
    `;
    writeFileSync(join(dir, 'site.mjs'), script);
    const out = await run(
      DENO,
      ['run', '--no-config', '--no-prompt', `--allow-net=127.0.0.1:${port}`, `--allow-read=${DIST}`, 'site.mjs'],
      dir,
    );
    expect(out.code, out.stderr).to.equal(0);
    expect(JSON.parse(out.stdout.trim())).to.deep.equal({ deno: 'string', ...expected });
  });

  it('Deno without network permission: the SDK reports the refusal as an error (no hang, no partial answer)', async function () {
    const dir = tempDir('cms-sdk-deno-');
    const script = `
      const { createClient } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'index.js')).href)});
      try { await createClient({ url: ${JSON.stringify(t.url)}, token: 'x' }).collection('posts').list(); console.log('answered'); }
      catch (err) { console.log('refused:' + (err?.code ?? err?.name)); }
    `;
    writeFileSync(join(dir, 'site.mjs'), script);
    const out = await run(DENO, ['run', '--no-config', '--no-prompt', `--allow-read=${DIST}`, 'site.mjs'], dir);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout.trim()).to.match(/^refused:/);
  });

  it('an edge sandbox (Edge Runtime VM: web APIs only) runs the SDK bundled for the web', async function () {
    const esbuild = await import('esbuild');
    const bundled = await esbuild.build({
      stdin: { contents: `export * from './index.js';`, resolveDir: DIST, loader: 'js' },
      bundle: true,
      format: 'iife',
      globalName: 'CmsSdk',
      platform: 'neutral',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const { EdgeVM } = await import('@edge-runtime/vm');
    const vm = new EdgeVM();
    vm.evaluate(bundled.outputFiles[0]!.text);
    // The sandbox has no Node: no process, no require, no Buffer.
    expect(vm.evaluate(`[typeof process, typeof require, typeof Buffer, typeof fetch]`)).to.deep.equal([
      'undefined',
      'undefined',
      'undefined',
      'function',
    ]);
    const result = await vm.evaluate(`(async () => {
      const URL_ = ${JSON.stringify(t.url)};
      const TOKEN_ = ${JSON.stringify(token)};
      let RESULT_;
      ${SITE_CODE('CmsSdk')}
      return JSON.stringify(RESULT_);
    })()`);
    expect(JSON.parse(result as string)).to.deep.equal(expected);
  });
});
