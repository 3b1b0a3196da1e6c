import type { z } from 'zod';
import { BootError } from './errors.js';
import { EVENTS_RESYNC, type EventBus } from './events.js';
import type { Logger } from './logger.js';
import type { PluginSettingEntry } from './manifest.js';
import { hasPath, type PluginEnv, withoutEnvPath, withoutPath } from './plugin-env.js';
import { SETTING_CHANGED } from './settings/events.js';

/**
 * One configuration path (issue 34). A plugin that declares an `options` schema on its definition gets
 * its configuration merged by the kernel, in one order for every plugin:
 *
 *   schema defaults  <  System Settings (manifest `settings`)  <  plugins.options.<id>  <  environment (manifest `env`)
 *
 * Objects merge key by key; any other value (text, numbers, lists) replaces what came before; the manifest's
 * env `block` and `under` make exceptions (applyRanks). The result is
 * validated by the schema; an error names the option path and where its value came from, never the value.
 * A System Setting that does not fit is left out with a warning (an administrator's typo in the Settings
 * page must not stop the server); a bad file option or variable stops the boot.
 */

/** Where an option's value came from, in words for messages. */
export type OptionSource = string;

/** A plugin's configuration as the kernel hands it over (boot context `config`). */
export interface PluginConfig<O> {
  /** The merged, validated options now. */
  current(): O;
  /** Where the value at an option path came from ("environment variable SMTP_PORT", "default", ...). */
  sourceOf(path: string): OptionSource;
  /**
   * Calls `listener` with the new options after a System Setting the manifest maps changed (on any instance)
   * and the result differs; returns the function that stops it. Stopped with the plugin.
   */
  watch(listener: (next: O, previous: O) => void): () => void;
}

type Tree = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `b` over `a`: plain objects merge key by key, anything else replaces. */
function mergeOver(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Tree = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = mergeOver(a[k], v);
  return out;
}

function setPath(target: Tree, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Tree;
  }
  node[path[path.length - 1]!] = value;
}

/** Every leaf path of a tree (a list or a value is a leaf), dotted. */
function leafPaths(tree: unknown, prefix: string[] = []): string[] {
  if (!isPlainObject(tree)) return prefix.length ? [prefix.join('.')] : [];
  return Object.entries(tree).flatMap(([k, v]) => (v === undefined ? [] : leafPaths(v, [...prefix, k])));
}

/** The settings' values placed at their option paths; unset, null and blank text count as unset. */
function settingsTree(
  mapping: Record<string, PluginSettingEntry>,
  values: Map<string, unknown>,
): { tree: Tree; sources: Map<string, string> } {
  const tree: Tree = {};
  const sources = new Map<string, string>();
  for (const [key, entry] of Object.entries(mapping)) {
    const value = values.get(key);
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) continue;
    setPath(tree, entry.option.split('.'), typeof value === 'string' ? value.trim() : value);
    sources.set(entry.option, `System Setting ${key}`);
  }
  return { tree, sources };
}

export interface ConfigLayers {
  pluginId: string;
  /** plugins.options.<id> from the configuration file. */
  options: unknown;
  env: PluginEnv;
  settingsMapping: Record<string, PluginSettingEntry>;
  /** The mapped settings' stored values (default tenant); empty before boot. */
  settings: Map<string, unknown>;
}

/**
 * The manifest's blocks and fallbacks (PluginEnv.ranks): at such a path one side is left out whole instead
 * of merged key by key: the file's value under a block the environment set, or the variable(s) under `under`
 * where the file sets something.
 */
function applyRanks(options: Tree, env: PluginEnv): { options: Tree; env: PluginEnv } {
  let file = options;
  let vars = env;
  for (const [path, rank] of Object.entries(env.ranks ?? {})) {
    const parts = path.split('.');
    if (rank === 'replaces') file = withoutPath(file, parts);
    else if (hasPath(file, parts)) vars = withoutEnvPath(vars, path);
  }
  return { options: file, env: vars };
}

/** How messages name the configuration file's options of a plugin. */
const fileOptions = (pluginId: string) => `plugins.options.${pluginId}`;

/**
 * The source of an option path: the layer that set the path or the nearest enclosing one. At the root
 * (an unknown key) it is the file's options: the environment and settings only reach declared paths.
 */
function sourceFinder(sources: Map<string, string>, file: string): (path: string) => OptionSource {
  return (path) => {
    if (path === '') return file;
    for (let parts = path.split('.'); parts.length; parts = parts.slice(0, -1)) {
      const hit = sources.get(parts.join('.'));
      if (hit) return hit;
    }
    // An issue at a parent names the last layer that set something below it.
    const below = [...sources].filter(([p]) => p.startsWith(`${path}.`));
    return below.length ? below[below.length - 1]![1] : 'default';
  };
}

/**
 * Merges and validates once. Returns the options and the source finder, or throws a BootError naming
 * every bad option path and its source; `dropped` receives the settings left out because they do not fit.
 */
export function resolvePluginOptions<O>(
  schema: z.ZodType<O>,
  layers: ConfigLayers,
  dropped: (key: string, message: string) => void = () => undefined,
): { value: O; sourceOf: (path: string) => OptionSource } {
  const settings = new Map(layers.settings);
  // Each round leaves out the settings that did not fit; bounded by the number of mapped settings.
  for (let round = 0; round <= Object.keys(layers.settingsMapping).length; round++) {
    const fromSettings = settingsTree(layers.settingsMapping, settings);
    const { options, env } = applyRanks(isPlainObject(layers.options) ? layers.options : {}, layers.env);
    const merged = mergeOver(mergeOver(fromSettings.tree, options), env.values);
    const sources = new Map(fromSettings.sources);
    for (const p of leafPaths(options)) sources.set(p, `${fileOptions(layers.pluginId)}.${p}`);
    for (const [p, variable] of Object.entries(env.sources)) sources.set(p, `environment variable ${variable}`);
    const sourceOf = sourceFinder(sources, fileOptions(layers.pluginId));
    const parsed = schema.safeParse(merged);
    if (parsed.success) return { value: parsed.data, sourceOf };
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
    const badSettings = new Set(
      issues
        .map((i) => sourceOf(i.path))
        .filter((s) => s.startsWith('System Setting '))
        .map((s) => s.slice('System Setting '.length)),
    );
    if (badSettings.size === 0 || issues.some((i) => !sourceOf(i.path).startsWith('System Setting '))) {
      throw new BootError(
        `Invalid configuration of plugin '${layers.pluginId}' (plugins.options['${layers.pluginId}'], its environment variables and System Settings): ${issues.map((i) => `${i.path || '(root)'} (${sourceOf(i.path)}): ${i.message}`).join('; ')}`,
      );
    }
    for (const key of badSettings) {
      dropped(key, issues.find((i) => sourceOf(i.path) === `System Setting ${key}`)!.message);
      settings.delete(key);
    }
  }
  throw new BootError(`Invalid configuration of plugin '${layers.pluginId}': the System Settings do not fit its options`);
}

/** What the kernel needs to read the mapped settings. */
export interface SettingsReader {
  valuesOfKeys(keys: string[], tenantId?: string): Promise<Map<string, unknown>>;
}

/**
 * The live configuration of one plugin: resolved without settings at register (no I/O there), read with
 * its settings before boot, and again when one of them changes or the event bus was lost.
 */
export class LivePluginConfig<O> implements PluginConfig<O> {
  private value: O;
  private sourceOfNow: (path: string) => OptionSource;
  private readonly listeners = new Set<(next: O, previous: O) => void>();
  private unsubscribe: Array<() => void> = [];
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly schema: z.ZodType<O>,
    private readonly layers: ConfigLayers,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    const first = resolvePluginOptions(schema, layers);
    this.value = first.value;
    this.sourceOfNow = first.sourceOf;
  }

  current(): O {
    return this.value;
  }

  sourceOf(path: string): OptionSource {
    return this.sourceOfNow(path);
  }

  watch(listener: (next: O, previous: O) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get keys(): string[] {
    return Object.keys(this.layers.settingsMapping);
  }

  /** Reads the mapped settings and resolves again (before boot: errors stop it; later: kept as they were, logged). */
  async load(settings: SettingsReader | undefined): Promise<void> {
    if (!settings || !this.keys.length) return;
    const values = await settings.valuesOfKeys(this.keys);
    const next = resolvePluginOptions(this.schema, { ...this.layers, settings: values }, (key, message) =>
      this.logger.warn({ setting: key, reason: message }, 'ignoring a System Setting that does not fit the plugin options'),
    );
    const previous = this.value;
    this.value = next.value;
    this.sourceOfNow = next.sourceOf;
    if (JSON.stringify(previous) !== JSON.stringify(next.value)) for (const l of this.listeners) l(next.value, previous);
  }

  /** Follows the mapped settings on the event bus (any instance) until close(). */
  follow(events: Pick<EventBus, 'subscribe'>, settings: () => SettingsReader | undefined): void {
    if (!this.keys.length) return;
    const reread = () => {
      this.reading = this.reading
        .then(() => this.load(settings()))
        .catch((err) => this.logger.warn({ err }, 'cannot read the plugin options again; keeping the ones in force'));
    };
    this.unsubscribe.push(
      events.subscribe(SETTING_CHANGED, (event) => {
        if (event.payload.tenantId === 'default' && this.keys.includes(event.payload.key)) reread();
      }),
      events.subscribe(EVENTS_RESYNC, reread),
    );
  }

  /** Waits for a re-read under way (tests, close). */
  settled(): Promise<void> {
    return this.reading;
  }

  close(): void {
    for (const stop of this.unsubscribe) stop();
    this.unsubscribe = [];
    this.listeners.clear();
  }
}

/**
 * The configuration a plugin receives: live (merged and followed) with an `options` schema; otherwise a
 * fixed view of `plugins.options.<id>` as written (the plugin combines `envOptions` itself).
 */
export function pluginConfigOf(
  schema: z.ZodType<unknown> | undefined,
  layers: Omit<ConfigLayers, 'settings'>,
  logger: Pick<Logger, 'warn'>,
): { live: LivePluginConfig<unknown> | null; config: PluginConfig<unknown> } {
  if (schema) {
    const live = new LivePluginConfig(schema, { ...layers, settings: new Map() }, logger);
    return { live, config: live };
  }
  if (Object.keys(layers.settingsMapping).length) {
    throw new BootError(`Plugin '${layers.pluginId}': its manifest maps System Settings but its definition declares no options schema`);
  }
  const raw = layers.options;
  return {
    live: null,
    config: {
      current: () => raw,
      sourceOf: (path) => `${fileOptions(layers.pluginId)}.${path}`,
      watch: () => () => undefined,
    },
  };
}
