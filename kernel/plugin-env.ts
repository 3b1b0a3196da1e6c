import { BootError } from './errors.js';
import type { PluginEnvEntry } from './manifest.js';

/**
 * A plugin's environment variables, mapped by its manifest's `env` field to option keys.
 *
 * The kernel reads the environment once, when it starts (KernelOptions.env, else process.env), and
 * hands each plugin only the variables its manifest declares, converted to their type and placed at
 * their option path (`envOptions` in the register and boot contexts). The plugin combines them with
 * `plugins.options.<id>` (and, for some, System Settings) in the order its README row states; no
 * plugin reads process.env itself.
 */
export interface PluginEnv {
  /** The values taken from the environment, nested by option path ("smtp.port" -> { smtp: { port } }). */
  values: Record<string, any>;
  /** Option path -> the variable it came from (for messages; never the value). */
  sources: Record<string, string>;
  /**
   * Option path -> how the environment's value there relates to plugins.options at that path, from the
   * manifest's `block` and `under` (only for paths the environment set): `replaces` what the file has there
   * (a block), or counts only where the file has nothing there (`under`). Absent: merged key by key, env wins.
   */
  ranks?: Record<string, 'replaces' | 'under'>;
}

const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

/**
 * Converts one raw value. A value that does not fit its type is handed on as the string it was, so
 * the plugin's own validation names the variable, as it did before the mapping existed.
 */
export function convertEnvValue(raw: string, type: PluginEnvEntry['type'], name: string): unknown {
  switch (type) {
    case 'int':
      return /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
    case 'number':
      return NUMBER.test(raw) ? Number(raw) : raw;
    case 'bool':
      if (/^\s*(1|true|yes|on)\s*$/i.test(raw)) return true;
      if (/^\s*(0|false|no|off)\s*$/i.test(raw)) return false;
      return raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        // Never the value: it may be a secret.
        throw new BootError(`Invalid environment variable ${name}: not valid JSON`);
      }
    default:
      return raw;
  }
}

function setPath(target: Record<string, any>, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null || Array.isArray(node[part])) node[part] = {};
    node = node[part];
  }
  node[path[path.length - 1]!] = value;
}

export function hasPath(target: Record<string, any>, path: string[]): boolean {
  let node: any = target;
  for (const part of path) {
    if (node === null || typeof node !== 'object' || !(part in node)) return false;
    node = node[part];
  }
  return node !== undefined;
}

/** `tree` without the value at `path` (copied along the path; the rest is shared). */
export function withoutPath<T extends Record<string, any>>(tree: T, path: string[]): T {
  const [head, ...rest] = path;
  if (head === undefined || !(head in tree)) return tree;
  const out: Record<string, any> = { ...tree };
  if (!rest.length) delete out[head];
  else if (typeof tree[head] === 'object' && tree[head] !== null) out[head] = withoutPath(tree[head], rest);
  return out as T;
}

/** The environment without what it set at `path` and below it. */
export function withoutEnvPath(env: PluginEnv, path: string): PluginEnv {
  const sources = Object.fromEntries(Object.entries(env.sources).filter(([p]) => !`${p}.`.startsWith(`${path}.`)));
  return { ...env, values: withoutPath(env.values, path.split('.')), sources };
}

/** The manifest's blocks (`block`, `required`) and fallbacks (`under`) applied to what the variables set. */
function rankBlocks(mapping: Record<string, PluginEnvEntry>, mapped: PluginEnv): PluginEnv {
  let out = mapped;
  const ranks: Record<string, 'replaces' | 'under'> = {};
  const blocks = new Map<string, PluginEnvEntry[]>();
  for (const [name, entry] of Object.entries(mapping)) {
    if (entry.block && (entry.option.includes('*') || !`${entry.option}.`.startsWith(`${entry.block}.`)))
      throw new BootError(`Invalid env entry ${name}: block must be an option path at or above its option (without *)`);
    if (entry.block) blocks.set(entry.block, [...(blocks.get(entry.block) ?? []), entry]);
    else if (entry.under && hasPath(out.values, entry.option.split('.'))) ranks[entry.option] = 'under';
  }
  for (const [block, entries] of blocks) {
    // A block lacking one of its required variables does not count at all.
    if (!entries.every((e) => !e.required || hasPath(out.values, e.option.split('.')))) out = withoutEnvPath(out, block);
    else if (hasPath(out.values, block.split('.'))) ranks[block] = entries.some((e) => e.under) ? 'under' : 'replaces';
  }
  return Object.keys(ranks).length ? { ...out, ranks } : out;
}

/** `OIDC_*_CLIENT_SECRET` -> a matcher that yields the part the star stands for. */
function matcher(pattern: string): (name: string) => string | null {
  if (!pattern.includes('*')) return (name) => (name === pattern ? '' : null);
  const [before, after] = pattern.split('*') as [string, string];
  return (name) =>
    name.length > before.length + after.length && name.startsWith(before) && name.endsWith(after)
      ? name.slice(before.length, name.length - after.length)
      : null;
}

/**
 * Maps the environment through a manifest's `env` field. An unset or empty variable is skipped.
 * Several variables may name one option: the first listed that is set wins (aliases). A variable
 * name with one `*` matches any name of that shape; the option path's `*` is replaced by what the
 * star matched (`OIDC_OPEN_CLIENT_SECRET` -> `clientSecrets.OPEN`). Then the blocks and fallbacks
 * (`block`, `required`, `under`): an incomplete block is left out, the others get their `ranks`.
 */
export function mapPluginEnv(mapping: Record<string, PluginEnvEntry> | undefined, env: Record<string, string | undefined>): PluginEnv {
  const out: PluginEnv = { values: {}, sources: {} };
  if (!mapping) return out;
  const names = Object.keys(env).sort();
  for (const [pattern, entry] of Object.entries(mapping)) {
    const match = matcher(pattern);
    for (const name of pattern.includes('*') ? names : [pattern]) {
      const star = match(name);
      if (star === null) continue;
      const raw = env[name];
      if (raw === undefined || raw.trim() === '') continue;
      const path = entry.option.split('.').map((p) => (p === '*' ? star : p));
      const key = path.join('.');
      if (out.sources[key] !== undefined || hasPath(out.values, path)) continue; // an earlier alias won
      setPath(out.values, path, convertEnvValue(raw, entry.type, name));
      out.sources[key] = name;
    }
  }
  return rankBlocks(mapping, out);
}

/** A plugin's own reading of its variables (PluginDefinition.readEnv) applied: its values, the sources of the paths it kept. */
export function readPluginEnv(
  env: PluginEnv,
  read: ((values: Record<string, any>, sources: Record<string, string>) => Record<string, any>) | undefined,
): PluginEnv {
  if (!read) return env;
  const values = read(env.values, env.sources);
  const sources = Object.fromEntries(Object.entries(env.sources).filter(([path]) => hasPath(values, path.split('.'))));
  // The manifest's ranks (blocks, fallbacks) stay for the paths the plugin kept.
  const ranks = Object.fromEntries(Object.entries(env.ranks ?? {}).filter(([path]) => hasPath(values, path.split('.'))));
  return Object.keys(ranks).length ? { values, sources, ranks } : { values, sources };
}

/** Names of the variables a mapping declares that hold secrets (never logged). */
export function secretVariables(mapping: Record<string, PluginEnvEntry> | undefined): string[] {
  return Object.entries(mapping ?? {})
    .filter(([, e]) => e.secret)
    .map(([n]) => n);
}
