#!/usr/bin/env node
// Rewrites the kernel imports of plugins and examples to the plugin SDK (kernel/sdk.ts).
//
//   node scripts/codemod-sdk-imports.mjs [--check] [folder or file ...]
//
// Default folders: plugins/, examples/, test/fixtures/plugins/. For every import (or re-export) of a
// kernel module, the names kernel/sdk.ts exports move to one `import ... from '<rel>/kernel/sdk.js'`
// (type-only names stay type-only); names the SDK does not export stay where they were (the lint rule
// then names them). The SDK's export lists are read from kernel/sdk.ts, so adding an export there and
// running this again is enough. Idempotent: a file with nothing left to move is not touched. Changed
// files are formatted with Prettier. --check lists what would change and exits 1 if anything would.
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SDK = join(ROOT, 'kernel', 'sdk.ts');
const DEFAULT_TARGETS = ['plugins', 'examples', join('test', 'fixtures', 'plugins')];

/** Names the SDK exports: name -> { type: boolean } (type: exported only as a type). */
export function sdkNames(source = readFileSync(SDK, 'utf8')) {
  const names = new Map();
  for (const m of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from\s+'[^']+'/g)) {
    for (const raw of m[2].split(',')) {
      const spec = raw.replace(/\/\/.*$/gm, '').trim();
      if (!spec) continue;
      const typeOnly = Boolean(m[1]) || spec.startsWith('type ');
      const name = spec
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        .trim();
      names.set(name, { type: typeOnly && !(names.get(name)?.type === false) });
    }
  }
  return names;
}

const IMPORT = /^(import|export)\s+(type\s+)?\{([^}]*)\}\s+from\s+'((?:\.\.\/)+|\.\/)kernel\/([^']+)';?[ \t]*\n?/gm;

/** The rewritten text of one file, or null when nothing moves. */
export function rewrite(text, file, names) {
  const sdkPath = relative(dirname(file), join(ROOT, 'kernel', 'sdk.js'))
    .split(sep)
    .join('/');
  const sdkSpec = sdkPath.startsWith('.') ? sdkPath : `./${sdkPath}`;
  const moved = []; // { name, alias, type }
  let firstAt = -1;
  let changes = 0;
  let sdkImports = 0;
  const out = text.replace(IMPORT, (whole, keyword, typeKw, list, _prefix, mod, offset) => {
    if (keyword === 'export' && mod !== 'sdk.js') {
      // Re-exports move only as a whole (they are a plugin's public surface).
      const specs = parseSpecs(list, Boolean(typeKw));
      if (!specs.every((s) => names.has(s.name))) return whole;
      changes++;
      return whole.replace(/'((?:\.\.\/)+|\.\/)kernel\/[^']+'/, `'${sdkSpec}'`);
    }
    if (keyword === 'export') return whole;
    const specs = parseSpecs(list, Boolean(typeKw));
    const toSdk = mod === 'sdk.js' ? specs : specs.filter((s) => names.has(s.name));
    if (toSdk.length === 0) return whole;
    if (mod === 'sdk.js') sdkImports++;
    else changes++;
    if (firstAt < 0) firstAt = offset;
    moved.push(...toSdk.map((s) => ({ ...s, type: s.type || names.get(s.name)?.type === true })));
    const rest = specs.filter((s) => !toSdk.includes(s));
    return rest.length ? `import ${typeKw ?? ''}{ ${rest.map(specText).join(', ')} } from '${_prefix}kernel/${mod}';\n` : '';
  });
  if (changes === 0 && sdkImports <= 1) return null;
  if (moved.length === 0) return out;
  const merged = mergeSpecs(moved);
  const allTypes = merged.every((s) => s.type);
  const line = `import ${allTypes ? 'type ' : ''}{ ${merged.map((s) => specText(allTypes ? { ...s, type: false } : s)).join(', ')} } from '${sdkSpec}';\n`;
  // The combined import goes where the first moved import was (offsets before it are unchanged).
  const before = text.slice(0, firstAt);
  const at = out.startsWith(before) ? firstAt : 0;
  return out.slice(0, at) + line + out.slice(at);
}

function parseSpecs(list, allType) {
  return list
    .split(',')
    .map((raw) => raw.trim())
    .filter(Boolean)
    .map((spec) => {
      const type = allType || spec.startsWith('type ');
      const [name, alias] = spec
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .map((s) => s.trim());
      return { name, alias: alias ?? null, type };
    });
}

function mergeSpecs(specs) {
  const byKey = new Map();
  for (const s of specs) {
    const key = `${s.name} as ${s.alias ?? s.name}`;
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, type: seen.type && s.type } : s);
  }
  return [...byKey.values()];
}

const specText = (s) => `${s.type ? 'type ' : ''}${s.name}${s.alias ? ` as ${s.alias}` : ''}`;

function tsFiles(target) {
  const full = resolve(ROOT, target);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return full.endsWith('.ts') ? [full] : [];
  return readdirSync(full, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name === 'dist' ? [] : tsFiles(join(full, e.name)),
  );
}

function main(argv) {
  const check = argv.includes('--check');
  const targets = argv.filter((a) => a !== '--check');
  const names = sdkNames();
  const changed = [];
  for (const file of (targets.length ? targets : DEFAULT_TARGETS).flatMap(tsFiles)) {
    const text = readFileSync(file, 'utf8');
    const next = rewrite(text, file, names);
    if (next === null || next === text) continue;
    changed.push(file);
    if (!check) writeFileSync(file, next);
  }
  for (const file of changed) console.log(`${check ? 'would rewrite' : 'rewrote'} ${relative(ROOT, file)}`);
  if (!check && changed.length)
    execFileSync('npx', ['prettier', '--log-level', 'warn', '--write', ...changed], { cwd: ROOT, stdio: 'inherit' });
  console.log(`${changed.length} file(s) ${check ? 'to rewrite' : 'rewritten'}`);
  if (check && changed.length) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
