import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * The plugin boundary, as a text scan of plugins/**\/*.ts (the ESLint rule in eslint.config.js checks the
 * paths; this test also reads the manifests):
 * - another plugin's code is imported only from its `public.ts`, or from its `public-values.ts`: pure functions
 *   and types that worker threads load, so what it loads reaches neither the kernel nor a service;
 * - a value import (anything but `import type`, `export type` or all-`type` specifiers) from another
 *   plugin needs that plugin in the importer's manifest `requires` (directly or through a required
 *   plugin: those boot whenever the importer does), or in its `optional`: a plugin it works with when
 *   enabled and without otherwise. The public.ts of an optional plugin, and what it re-exports, loads even
 *   when that plugin is disabled, so only its declarations are imported (event names, pure helpers); its
 *   services are reached through the container (`optional(scope, key)`) with type-only imports.
 *   Events about state the kernel owns (SETTING_CHANGED) are declared in kernel/settings/events.ts (the SDK).
 * KNOWN lists what is still open, each with its reason: an entry that is no longer needed fails too.
 */
const PLUGINS = join(PROJECT_ROOT, 'plugins');

/** `<importer> -> <imported plugin>` value imports outside `requires` and `optional` still to be removed. */
const KNOWN_VALUE_IMPORTS: Record<string, string> = {};

/** Files that still import another plugin's internals, with the branch that removes the import. */
const KNOWN_INTERNAL_IMPORTS: Record<string, string> = {};

/** The modules another plugin may import: its public.ts, and the worker-safe public-values.ts where it has one. */
const PUBLIC_MODULES = new Set(['public.js', 'public-values.js']);

interface ImportRef {
  file: string;
  line: number;
  target: string;
  plugin: string;
  typeOnly: boolean;
}

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.split(sep).includes('node_modules'))
    .map((name) => join(dir, name));

interface ManifestDeps {
  id: string;
  requires: string[];
  optional: string[];
}

/** Folder name -> manifest (id, requires, optional). */
function manifests(): Map<string, ManifestDeps> {
  const out = new Map<string, ManifestDeps>();
  for (const folder of readdirSync(PLUGINS)) {
    const file = join(PLUGINS, folder, 'plugin.json');
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<ManifestDeps> & { id: string };
      out.set(folder, { id: m.id, requires: m.requires ?? [], optional: m.optional ?? [] });
    } catch {
      // not a plugin folder
    }
  }
  return out;
}

const STATEMENT = /^(import|export)\s+(type\s+)?(?:([^;'"]*?)\s+from\s+)?'([^']+)'/gm;

function isTypeOnly(typeKeyword: string | undefined, clause: string | undefined): boolean {
  if (typeKeyword) return true;
  const list = clause?.trim().match(/^\{([\s\S]*)\}$/)?.[1];
  if (list === undefined) return false; // default, namespace or side-effect import
  const specs = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return specs.length > 0 && specs.every((s) => s.startsWith('type '));
}

/** Every import or re-export of a file of another plugin. */
function crossPluginImports(folders: Map<string, unknown>): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const path of tsFiles(PLUGINS)) {
    const file = relative(PLUGINS, path);
    const own = file.split(sep)[0]!;
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(STATEMENT)) {
      const spec = m[4]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(PLUGINS, normalize(join(dirname(path), spec)));
      const plugin = target.split(sep)[0]!;
      if (target.startsWith('..') || plugin === own || !folders.has(plugin)) continue;
      const line = text.slice(0, m.index).split('\n').length;
      refs.push({ file, line, target, plugin, typeOnly: isTypeOnly(m[2], m[3]) });
    }
  }
  return refs;
}

function requiredClosure(id: string, byId: Map<string, string[]>, seen = new Set<string>()): Set<string> {
  for (const r of byId.get(id) ?? []) {
    if (seen.has(r)) continue;
    seen.add(r);
    requiredClosure(r, byId, seen);
  }
  return seen;
}

describe('plugin boundary: plugins meet through public.ts and requires', function () {
  const folders = manifests();
  const idOf = (folder: string) => folders.get(folder)?.id ?? folder;
  const requiresById = new Map([...folders.values()].map((m) => [m.id, m.requires]));
  const optionalById = new Map([...folders.values()].map((m) => [m.id, m.optional]));
  const refs = crossPluginImports(folders);

  it('finds the imports between plugins', function () {
    expect(refs.length).to.be.greaterThan(30);
    expect(refs.some((r) => r.typeOnly)).to.equal(true);
  });

  it("imports another plugin's code only from its public.ts", function () {
    const internal = refs.filter((r) => !PUBLIC_MODULES.has(r.target.split(sep).slice(1).join('/')));
    const offenders = internal
      .filter((r) => !KNOWN_INTERNAL_IMPORTS[r.file.split(sep).join('/')])
      .map((r) => `${r.file}:${r.line} imports ${r.target}`);
    expect(offenders, `import these through the plugin's public.ts:\n${offenders.join('\n')}`).to.deep.equal([]);
    const stale = Object.keys(KNOWN_INTERNAL_IMPORTS).filter((f) => !internal.some((r) => r.file.split(sep).join('/') === f));
    expect(stale, 'fixed: remove from KNOWN_INTERNAL_IMPORTS (and its override in eslint.config.js)').to.deep.equal([]);
  });

  it('an optional plugin is installed, and not required as well', function () {
    const ids = new Set([...folders.values()].map((m) => m.id));
    const wrong = [...folders.values()].flatMap((m) =>
      m.optional.filter((o) => !ids.has(o) || requiredClosure(m.id, requiresById).has(o)).map((o) => `${m.id} -> ${o}`),
    );
    expect(wrong, 'optional names an unknown plugin, or one that requires already brings').to.deep.equal([]);
  });

  it('a public-values.ts loads, through its value imports, only its own modules and packages (no kernel, no public.ts)', function () {
    const offenders: string[] = [];
    const seen = new Set<string>();
    const visit = (path: string, folder: string) => {
      if (seen.has(path)) return;
      seen.add(path);
      for (const m of readFileSync(path, 'utf8').matchAll(STATEMENT)) {
        if (!m[4]!.startsWith('.') || isTypeOnly(m[2], m[3])) continue;
        const target = normalize(join(dirname(path), m[4]!)).replace(/\.js$/, '.ts');
        const inside = relative(folder, target);
        if (inside.startsWith('..') || inside === 'public.ts')
          offenders.push(`${relative(PLUGINS, path)} loads ${relative(PLUGINS, target)}`);
        else visit(target, folder);
      }
    };
    const files = [...folders.keys()].map((f) => join(PLUGINS, f, 'public-values.ts')).filter((f) => existsSync(f));
    expect(files.length).to.be.greaterThan(0);
    for (const file of files) visit(file, dirname(file));
    expect(offenders, `worker threads load these: keep them free of the kernel and services:\n${offenders.join('\n')}`).to.deep.equal([]);
  });

  it('value imports come only from required or optional plugins (type-only imports may name any plugin)', function () {
    const pairs = new Map<string, string[]>();
    for (const r of refs) {
      if (r.typeOnly) continue;
      const from = idOf(r.file.split(sep)[0]!);
      const to = idOf(r.plugin);
      if (requiredClosure(from, requiresById).has(to) || optionalById.get(from)?.includes(to)) continue;
      const key = `${from} -> ${to}`;
      pairs.set(key, [...(pairs.get(key) ?? []), `${r.file}:${r.line}`]);
    }
    const offenders = [...pairs].filter(([key]) => !KNOWN_VALUE_IMPORTS[key]).map(([key, at]) => `${key} (${at.join(', ')})`);
    expect(
      offenders,
      `value imports from plugins outside requires and optional (use import type and the container, or list the plugin):\n${offenders.join('\n')}`,
    ).to.deep.equal([]);
    const stale = Object.keys(KNOWN_VALUE_IMPORTS).filter((key) => !pairs.has(key));
    expect(stale, 'fixed: remove from KNOWN_VALUE_IMPORTS').to.deep.equal([]);
  });

  it('every plugin reaches the kernel only through kernel/sdk.js or a listed exception (eslint.config.js)', async function () {
    const config = readFileSync(join(PROJECT_ROOT, 'eslint.config.js'), 'utf8');
    const exceptions = [...config.matchAll(/\{ module: '([^']+)', reason: /g)].map((m) => m[1]!);
    expect(exceptions.length, 'KERNEL_EXCEPTIONS in eslint.config.js').to.be.greaterThan(0);
    const offenders: string[] = [];
    for (const path of tsFiles(PLUGINS)) {
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(STATEMENT)) {
        const target = relative(join(PROJECT_ROOT, 'kernel'), normalize(join(dirname(path), m[4]!)))
          .split(sep)
          .join('/');
        if (!m[4]!.startsWith('.') || target.startsWith('..')) continue;
        if (target === 'sdk.js' || exceptions.some((e) => (e.endsWith('/') ? target.startsWith(e) : target === e))) continue;
        offenders.push(`${relative(PLUGINS, path)}: kernel/${target}`);
      }
    }
    expect(offenders, `import these from kernel/sdk.js:\n${offenders.join('\n')}`).to.deep.equal([]);
  });
});
