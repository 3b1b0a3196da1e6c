import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../../kernel/version.js';

// The client SDK's built package (packages/sdk/dist, issue 39 item 1) runs wherever fetch does: Node 20+,
// browsers, Deno, edge workers. So its modules import nothing but each other (no node: built-ins, no dependencies),
// touch no Node globals, are free of side effects (tree-shaking), and the content part stays under 15 KB gzipped.
// Sizes come from esbuild (Vite's, in node_modules) bundling an entry point for the browser, minified, then gzip.

const SDK = join(PROJECT_ROOT, 'packages', 'sdk');
const DIST = join(SDK, 'dist');
const CONTENT_LIMIT_BYTES = 15 * 1024;

const builtModules = () => readdirSync(DIST).filter((f) => f.endsWith('.js'));
const specifiers = (code: string) =>
  [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"]+)\1/g)].map((m) => m[2]!);

/** esbuild's bundle of `source` (an ES module importing the SDK's built files), minified for browsers: its bytes. */
async function bundle(source: string): Promise<{ code: string; raw: number; gzipped: number }> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    stdin: { contents: source, resolveDir: DIST, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.text;
  return { code, raw: Buffer.byteLength(code), gzipped: gzipSync(code, { level: 9 }).length };
}

describe('client SDK package: portable, side-effect free, small (packages/sdk/dist)', function () {
  this.timeout(20000);

  it('is built, and its package.json points at built files: ESM, typed, no dependencies, sideEffects false', function () {
    const pkg = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'));
    expect(pkg.name).to.equal('@cms-kernel/sdk');
    expect(pkg.type).to.equal('module');
    expect(pkg.sideEffects).to.equal(false);
    expect(pkg.dependencies ?? {}).to.deep.equal({});
    expect(existsSync(join(SDK, pkg.types))).to.equal(true);
    for (const [entry, target] of Object.entries<Record<string, string> | string>(pkg.exports)) {
      if (typeof target === 'string') continue;
      expect(existsSync(join(SDK, target.default!)), `${entry} -> ${target.default}`).to.equal(true);
      expect(existsSync(join(SDK, target.types!)), `${entry} -> ${target.types}`).to.equal(true);
    }
  });

  it('its modules import only each other: no node: built-ins, no packages, no Node globals', function () {
    const modules = builtModules();
    expect(modules).to.include('index.js');
    for (const file of modules) {
      const code = readFileSync(join(DIST, file), 'utf8');
      for (const spec of specifiers(code)) expect(spec, `${file} imports ${spec}`).to.match(/^\.\/[\w.-]+\.js$/);
      expect(code, `${file} uses a Node global`).to.not.match(/\b(process|Buffer|__dirname|__filename|require)\b\s*[.([]/);
    }
  });

  it('bundles for a platform without Node (esbuild neutral): nothing to resolve outside the package', async function () {
    const { code } = await bundle(`export * from './index.js';`);
    expect(code).to.include('graphql-transport-ws');
  });

  it(`the content part (@cms-kernel/sdk/content) is under ${CONTENT_LIMIT_BYTES / 1024} KB gzipped`, async function () {
    const content = await bundle(`export * from './content-entry.js';`);
    const whole = await bundle(`export * from './index.js';`);
    console.log(
      `      content part: ${content.raw} B minified, ${content.gzipped} B gzipped; ` +
        `whole SDK: ${whole.raw} B minified, ${whole.gzipped} B gzipped (limit for content: ${CONTENT_LIMIT_BYTES} B)`,
    );
    expect(content.gzipped).to.be.below(CONTENT_LIMIT_BYTES);
    expect(content.code).to.not.include('connection_init'); // the subscriptions helper is not part of it
  });

  it('tree-shakes: a site importing only createClient gets no subscriptions helper, one importing isCmsError no client', async function () {
    const client = await bundle(
      `import { createClient } from './index.js'; export const c = createClient({ url: 'https://cms.example' });`,
    );
    expect(client.code).to.include('/api/collections/');
    expect(client.code).to.not.include('connection_init');
    const guard = await bundle(`import { isCmsError } from './index.js'; export const f = (e) => isCmsError(e, 'FORBIDDEN');`);
    expect(guard.code).to.not.include('/api/collections/');
    expect(guard.code).to.not.include('graphql-transport-ws');
    expect(guard.gzipped).to.be.below(client.gzipped);
  });
});
