import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * The plugin boundary, as a text scan of plugins/**\/*.ts (the ESLint rule in eslint.config.js checks the
 * paths; this test also reads the manifests):
 * - another plugin's code is imported only from its `public.ts`;
 * - a value import (anything but `import type`, `export type` or all-`type` specifiers) from another
 *   plugin needs that plugin in the importer's manifest `requires` (directly or through a required
 *   plugin: those boot whenever the importer does). Otherwise the other plugin's public.ts, and what it
 *   re-exports, loads even when that plugin is disabled. An optional dependency is reached through the
 *   container (`optional(scope, key)`) with type-only imports.
 * KNOWN lists what is still open, each with its reason: an entry that is no longer needed fails too.
 */
const PLUGINS = join(PROJECT_ROOT, 'plugins');

/** `<importer> -> <imported plugin>` value imports outside `requires` still to be removed. */
const KNOWN_VALUE_IMPORTS: Record<string, string> = {
  'auth -> setup': 'SETTING_CHANGED (event name): goes with the settings store moving into the kernel (wt-config)',
  'auth-oidc -> setup': 'SETTING_CHANGED (event name): goes with the settings store moving into the kernel (wt-config)',
  'graphql -> setup': 'SETTING_CHANGED (event name): goes with the settings store moving into the kernel (wt-config)',
  'maintenance -> setup': 'SETTING_CHANGED (event name): goes with the settings store moving into the kernel (wt-config)',
  'dashboard -> setup': 'SETUP_COMPLETED (event name) for the trial start: event names of optional plugins need a pure declaration module',
  'dashboard -> content': 'ENTRY_EVENTS (event names) for the time series: as above',
  'dashboard -> media': 'MEDIA_UPLOADED (event name) for the time series: as above',
  'graphql -> auth': 'USER_EVENTS (subscriptions), bearerHash and onIdentityChange (socket re-checks)',
  'graphql -> media': 'MEDIA_UPLOADED (subscription): event names of optional plugins need a pure declaration module',
  'data-ops -> auth': 'bearerHash and onIdentityChange (the completion stream re-checks its identity)',
};

/** Files that still import another plugin's internals, with the branch that removes the import. */
const KNOWN_INTERNAL_IMPORTS: Record<string, string> = {
  'importers/prepare-batch.ts':
    "content's entry-values, field-values, field-types, prepared-row: moved behind content/public.ts on wt-importers",
};

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

/** Folder name -> manifest (id, requires). */
function manifests(): Map<string, { id: string; requires: string[] }> {
  const out = new Map<string, { id: string; requires: string[] }>();
  for (const folder of readdirSync(PLUGINS)) {
    const file = join(PLUGINS, folder, 'plugin.json');
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as { id: string; requires?: string[] };
      out.set(folder, { id: m.id, requires: m.requires ?? [] });
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
  const refs = crossPluginImports(folders);

  it('finds the imports between plugins', function () {
    expect(refs.length).to.be.greaterThan(30);
    expect(refs.some((r) => r.typeOnly)).to.equal(true);
  });

  it("imports another plugin's code only from its public.ts", function () {
    const internal = refs.filter((r) => r.target.split(sep).slice(1).join('/') !== 'public.js');
    const offenders = internal
      .filter((r) => !KNOWN_INTERNAL_IMPORTS[r.file.split(sep).join('/')])
      .map((r) => `${r.file}:${r.line} imports ${r.target}`);
    expect(offenders, `import these through the plugin's public.ts:\n${offenders.join('\n')}`).to.deep.equal([]);
    const stale = Object.keys(KNOWN_INTERNAL_IMPORTS).filter((f) => !internal.some((r) => r.file.split(sep).join('/') === f));
    expect(stale, 'fixed: remove from KNOWN_INTERNAL_IMPORTS (and its override in eslint.config.js)').to.deep.equal([]);
  });

  it('value imports come only from required plugins (type-only imports may name any plugin)', function () {
    const pairs = new Map<string, string[]>();
    for (const r of refs) {
      if (r.typeOnly) continue;
      const from = idOf(r.file.split(sep)[0]!);
      const to = idOf(r.plugin);
      if (requiredClosure(from, requiresById).has(to)) continue;
      const key = `${from} -> ${to}`;
      pairs.set(key, [...(pairs.get(key) ?? []), `${r.file}:${r.line}`]);
    }
    const offenders = [...pairs].filter(([key]) => !KNOWN_VALUE_IMPORTS[key]).map(([key, at]) => `${key} (${at.join(', ')})`);
    expect(
      offenders,
      `value imports from plugins outside requires (use import type and the container, or require the plugin):\n${offenders.join('\n')}`,
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
