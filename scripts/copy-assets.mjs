// Copies the non-TypeScript files the compiled tree needs (plugin manifests, widget manifests,
// theme presets, fixture JavaScript) from the source tree into dist/, keeping their paths.
import { cpSync, existsSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// `node scripts/copy-assets.mjs [outDir]`: outDir defaults to dist (helpers may build elsewhere).
const outDir = process.argv[2] ?? 'dist';
const wanted = (name) => name === 'plugin.json' || name === 'widget.json' || (name.endsWith('.js') && !name.endsWith('.d.js'));
const dirs = ['plugins', 'widgets', 'themes', 'test/fixtures', 'bench/plugins', 'examples/notes-plugin'];

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      walk(full);
      continue;
    }
    const inThemes = relative(root, full).startsWith('themes');
    if (!wanted(name) && !(inThemes && name.endsWith('.json'))) continue;
    const target = join(root, outDir, relative(root, full));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(full, target);
  }
}
for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
