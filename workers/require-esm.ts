/**
 * The pool's threads run without require(esm) (`--no-experimental-require-module`, see kernel/pool.ts),
 * but sanitize-html 2.17 require()s htmlparser2 12, which is an ES module only. A task file that
 * sanitises calls `allowEsmDependencies()` before it loads sanitize-html (by a dynamic import after the
 * await): htmlparser2 is imported as ESM and put into the CommonJS cache under the path sanitize-html's
 * require() resolves to, so that require() finds it there. Where require(esm) works (the main thread),
 * nothing is done.
 */
import { createRequire, Module } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
let done: Promise<void> | null = null;

async function seed(): Promise<void> {
  if ((process.features as { require_module?: boolean }).require_module) return;
  const from = createRequire(require.resolve('sanitize-html'));
  const path = from.resolve('htmlparser2');
  if (require.cache[path]) return;
  const namespace = (await import(pathToFileURL(path).href)) as object;
  const cached = new Module(path) as Module & { filename: string; loaded: boolean; exports: unknown };
  cached.filename = path;
  cached.loaded = true;
  cached.exports = namespace;
  require.cache[path] = cached as NodeJS.Module;
}

export const allowEsmDependencies = (): Promise<void> => (done ??= seed());
