import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { BootError } from './errors.js';
import { readManifest, type PluginManifest } from './manifest.js';

export interface DiscoveredPlugin {
  manifest: PluginManifest;
  /** Folder holding plugin.json and the entry module. */
  dir: string;
  source: 'builtin' | 'path' | 'package';
}

/** Reads `<dir>/*\/plugin.json` without running any plugin code. */
export function discoverFolder(dir: string): DiscoveredPlugin[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'plugin.json')))
    .map((d) => ({ manifest: readManifest(join(d, 'plugin.json')), dir: d, source: 'builtin' as const }));
}

/**
 * A `plugins.paths` entry is a folder (starts with `.` or `/`, relative to the config's folder) or an
 * npm package name resolved from there; either holds a plugin.json.
 */
export function discoverConfigured(entries: string[], root: string): DiscoveredPlugin[] {
  const req = createRequire(join(root, 'package.json'));
  return entries.map((entry) => {
    if (entry.startsWith('.') || isAbsolute(entry)) {
      const dir = resolve(root, entry);
      const file = join(dir, 'plugin.json');
      if (!existsSync(file)) throw new BootError(`Plugin folder ${dir} (from plugins.paths) has no plugin.json`);
      return { manifest: readManifest(file), dir, source: 'path' as const };
    }
    let file: string;
    try {
      file = req.resolve(`${entry}/plugin.json`);
    } catch {
      throw new BootError(`Plugin package '${entry}' (from plugins.paths) is not installed or has no plugin.json`);
    }
    return { manifest: readManifest(file), dir: dirname(file), source: 'package' as const };
  });
}

export function assertUniqueIds(plugins: DiscoveredPlugin[]): void {
  const seen = new Map<string, DiscoveredPlugin>();
  for (const p of plugins) {
    const first = seen.get(p.manifest.id);
    if (first) throw new BootError(`Duplicate plugin id '${p.manifest.id}': found in ${first.dir} and in ${p.dir}`);
    seen.set(p.manifest.id, p);
  }
}
