import { realpathSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KernelContainer } from './container.js';
import type { CmsConfig } from './config.js';
import type { MigrationDefinition } from './db/migrations.js';
import type { ModelRegistry } from './db/models.js';
import type { DiscoveredPlugin } from './discovery.js';
import { navGroupOf } from './admin-nav.js';
import { BootError } from './errors.js';
import { mapPluginEnv, readPluginEnv } from './plugin-env.js';
import { pluginConfigOf, type LivePluginConfig } from './plugin-config.js';
import { every, recurringJob } from './every.js';
import { follow, followEach, type FollowBus } from './follow.js';
import type { NamespaceMap } from './http/namespaces.js';
import type { ContainerServices, RouteTable } from './http/route-table.js';
import type { Logger } from './logger.js';
import type { AdminPageManifest, PluginPhase } from './manifest.js';
import type { BoundRegistry, PluginBootContext, PluginDefinition, PluginRegistries } from './plugin.js';
import { PROVIDES_KEYS, type AdminPageDefinition, type Registries } from './registries/index.js';

export interface PluginRecord {
  id: string;
  name: string;
  version: string;
  description?: string;
  source: DiscoveredPlugin['source'];
  dir: string;
  phase: PluginPhase;
  requires: string[];
  enabled: boolean;
  state: 'disabled' | 'registered' | 'booting' | 'booted' | 'failed' | 'closed';
  provides: Record<string, string[]>;
  permissions: string[];
  namespaces: string[];
  routes: number;
  containerKeys: string[];
  registerMs?: number;
  bootMs?: number;
}

interface LoadedPlugin {
  discovered: DiscoveredPlugin;
  definition: PluginDefinition;
  record: PluginRecord;
  bootContext: PluginBootContext;
  /** What boot() returned, handed to close(). */
  state?: unknown;
  /** onClose() callbacks, run last added first before close(). */
  closers: Array<() => Promise<void> | void>;
  /** With an options schema: the configuration the kernel merges, reads with its settings before boot, and follows. */
  liveConfig: LivePluginConfig<unknown> | null;
}

export interface LoaderDeps {
  container: KernelContainer;
  routes: RouteTable;
  registries: Registries;
  namespaces: NamespaceMap;
  migrations: MigrationDefinition[];
  models: ModelRegistry;
  config: CmsConfig;
  logger: Logger;
  /** The environment, read once when the kernel starts; each plugin sees only what its manifest's `env` maps. */
  env?: Record<string, string | undefined>;
}

/** The boot context's follow, followEach and every: bound to the event bus, closed with the plugin. */
function runtimePrimitives(
  owner: string,
  deps: { container: KernelContainer; registries: Registries; logger: Logger },
  closers: LoadedPlugin['closers'],
): Pick<PluginBootContext, 'follow' | 'followEach' | 'every'> {
  const bus = () => deps.container.resolve('events') as FollowBus;
  return {
    follow(options) {
      const copy = follow(bus(), deps.logger, options);
      closers.push(() => copy.close());
      return copy;
    },
    followEach(options) {
      const copies = followEach(bus(), options);
      closers.push(() => copies.close());
      return copies;
    },
    every(options) {
      if (options.job) deps.registries.systemJobs.add(recurringJob(options), owner);
      const task = every(deps.logger, options);
      closers.push(() => task.close());
      return task;
    },
  };
}

function bindRegistries(registries: Registries, owner: string): PluginRegistries {
  const bound: Record<string, unknown> = {};
  for (const [name, registry] of Object.entries(registries)) {
    const r = registry as any;
    bound[name] = {
      add:
        name === 'adminPages'
          ? () => {
              throw new BootError(`Plugin '${owner}': admin pages are declared in plugin.json (adminPages), not added from code`);
            }
          : (item: unknown) => r.add(item, owner),
      get: (key: string) => r.get(key),
      has: (key: string) => r.has(key),
      list: () => r.list(),
    } satisfies BoundRegistry<any>;
  }
  return bound as PluginRegistries;
}

/** Paths the admin-ui plugin serves itself: a plugin page cannot take them. */
const RESERVED_ADMIN_PATHS = ['/admin/plugin-pages', '/admin/assets', '/admin/share', '/admin/preview'];

/** URL prefix under which the admin-ui plugin serves the declared page modules of plugins. */
export const PLUGIN_PAGE_MODULE_PREFIX = '/admin/plugin-pages';

/**
 * A manifest's admin page as a registry entry: a `bundled:<name>` module, or a file that must exist
 * inside the plugin's folder (symbolic links included) when the kernel boots.
 */
export function adminPageOf(page: AdminPageManifest, pluginId: string, dir: string): AdminPageDefinition {
  const where = `Plugin '${pluginId}': admin page ${page.path}`;
  const reserved = RESERVED_ADMIN_PATHS.find((r) => page.path === r || page.path.startsWith(`${r}/`));
  if (reserved) throw new BootError(`${where}: ${reserved} is reserved by the admin UI`);
  const nav: AdminPageDefinition['nav'] =
    page.nav === false || (page.nav === undefined && page.path.includes('/:'))
      ? false
      : typeof page.nav === 'object'
        ? { label: page.nav.label, order: page.nav.order, group: navGroupOf(page.nav.group, page.icon) }
        : { label: page.title, order: 500, group: navGroupOf(null, page.icon) };
  let module: AdminPageDefinition['module'];
  if (page.module.startsWith('bundled:')) {
    module = { kind: 'bundled', name: page.module.slice('bundled:'.length) };
  } else {
    const root = resolve(dir);
    const file = resolve(root, page.module);
    if (!file.startsWith(root + sep)) throw new BootError(`${where}: module ${page.module} is outside the plugin's folder`);
    let real: string;
    try {
      real = realpathSync(file);
      if (!statSync(real).isFile()) throw new Error('not a file');
    } catch {
      throw new BootError(`${where}: module file ${page.module} does not exist in ${root}`);
    }
    if (!real.startsWith(realpathSync(root) + sep))
      throw new BootError(`${where}: module ${page.module} resolves outside the plugin's folder`);
    module = { kind: 'file', file: real, relative: page.module, url: `${PLUGIN_PAGE_MODULE_PREFIX}/${pluginId}/${page.module}` };
  }
  return {
    path: page.path,
    pluginId,
    title: page.title,
    nav,
    module,
    ...(page.icon ? { icon: page.icon } : {}),
    ...(page.permission ? { permission: page.permission } : {}),
  };
}

function recordOf(p: DiscoveredPlugin, enabled: boolean): PluginRecord {
  const m = p.manifest;
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    description: m.description,
    source: p.source,
    dir: p.dir,
    phase: m.phase,
    requires: m.requires,
    enabled,
    state: enabled ? 'registered' : 'disabled',
    provides: Object.fromEntries(Object.entries(m.provides).filter(([, v]) => v && v.length)) as Record<string, string[]>,
    permissions: Object.keys(m.permissions),
    namespaces: Object.keys(m.namespaces),
    routes: 0,
    containerKeys: [],
  };
}

/** Loads entry modules, runs register (declarations), boot (per phase) and close (reverse order). */
type BootContainer = PluginBootContext['container'];

export class PluginLoader {
  private readonly loaded: LoadedPlugin[] = [];
  private readonly disabledRecords: PluginRecord[] = [];
  private readonly booted: LoadedPlugin[] = [];

  private readonly env: Record<string, string | undefined>;

  constructor(private readonly deps: LoaderDeps) {
    // The one place plugin settings are read from the environment (a copy: later changes do not count).
    this.env = { ...(deps.env ?? process.env) };
  }

  noteDisabled(plugins: DiscoveredPlugin[]): void {
    for (const p of plugins) this.disabledRecords.push(recordOf(p, false));
  }

  async register(ordered: DiscoveredPlugin[]): Promise<void> {
    const { container, routes, registries, namespaces, migrations, models, config, logger } = this.deps;
    for (const p of ordered) {
      const { id } = p.manifest;
      const started = performance.now();
      const definition = await this.importEntry(p);
      const record = recordOf(p, true);
      const pluginLogger = logger.child({ plugin: id });
      const env = mapPluginEnv(p.manifest.env, this.env);
      const { values: envOptions, sources: envSources } = env;
      const layers = {
        pluginId: id,
        options: config.plugins.options[id] ?? {},
        env: readPluginEnv(env, definition.readEnv),
        settingsMapping: p.manifest.settings,
      };
      const { live: liveConfig, config: pluginConfig } = pluginConfigOf(definition.options, layers, pluginLogger);
      const options = pluginConfig.current() as Record<string, unknown>;
      namespaces.addFromManifest(p.manifest);
      for (const [name, description] of Object.entries(p.manifest.permissions)) {
        registries.permissions.add({ name, description }, id);
      }
      for (const page of p.manifest.adminPages) registries.adminPages.add(adminPageOf(page, id, p.dir), id);
      const routesBefore = routes.list().length;
      // What register and boot both receive.
      const common = { id, manifest: p.manifest, config, options, envOptions, envSources, logger: pluginLogger };
      definition.register?.({
        ...common,
        pluginConfig: pluginConfig as PluginBootContext['pluginConfig'],
        container: { register: (key, resolver) => container.register(id, key, resolver) },
        routes: { add: (route) => routes.add(route, id) },
        registries: bindRegistries(registries, id),
        migrations: {
          add: (m) => {
            if (!m?.name || typeof m.up !== 'function')
              throw new BootError(`Plugin '${id}' added a migration without a name and an up() function`);
            migrations.push({ ...m, name: `${id}/${m.name}` });
          },
        },
        models: { add: (model) => models.add(model, id) },
      });
      record.routes = routes.list().length - routesBefore;
      record.containerKeys = container.keysOwnedBy(id);
      record.registerMs = Math.round((performance.now() - started) * 100) / 100;
      this.checkProvides(p, registries);
      const closers: LoadedPlugin['closers'] = [];
      const bootContext: PluginBootContext = {
        ...common,
        container: {
          resolve: ((key: string) => container.resolve(key)) as BootContainer['resolve'],
          cradle: container.awilix.cradle as BootContainer['cradle'],
        },
        pluginConfig: pluginConfig as PluginBootContext['pluginConfig'],
        onClose: (fn) => void closers.push(fn),
        ...runtimePrimitives(id, { container, registries, logger: common.logger }, closers),
      };
      if (liveConfig) closers.push(() => liveConfig.close());
      this.loaded.push({ discovered: p, definition, record, bootContext, closers, liveConfig });
    }
    models.associateAll();
    this.checkPermissionsExist();
  }

  private async importEntry(p: DiscoveredPlugin): Promise<PluginDefinition> {
    const file = join(p.dir, p.manifest.entry);
    let mod: any;
    try {
      mod = await import(pathToFileURL(file).href);
    } catch (err) {
      throw new BootError(`Plugin '${p.manifest.id}': cannot load entry ${file}: ${(err as Error).message}`);
    }
    const exported = mod.default ?? mod;
    // A factory gives each kernel its own definition (state shared by register, boot and close in a closure).
    const definition = typeof exported === 'function' ? exported() : exported;
    if (
      !definition ||
      typeof definition !== 'object' ||
      (typeof definition.register !== 'function' && typeof definition.boot !== 'function')
    ) {
      throw new BootError(
        `Plugin '${p.manifest.id}': entry ${file} must export default definePlugin({ register, boot?, close? }) or definePlugin(() => ({ ... }))`,
      );
    }
    return definition as PluginDefinition;
  }

  /** The manifest must say what the code adds, so the plugin tree can be described without running code. */
  private checkProvides(p: DiscoveredPlugin, registries: Registries): void {
    for (const key of PROVIDES_KEYS) {
      const declared = [...(p.manifest.provides[key] ?? [])].sort();
      const actual = registries[key].keysOwnedBy(p.manifest.id).sort();
      if (declared.join(',') !== actual.join(',')) {
        throw new BootError(
          `Plugin '${p.manifest.id}': manifest provides.${key} is [${declared.join(', ')}] but its code added [${actual.join(', ')}]`,
        );
      }
    }
  }

  private checkPermissionsExist(): void {
    const known = (name: string) => name === 'public' || name === 'authenticated' || this.deps.registries.permissions.has(name);
    for (const route of this.deps.routes.list()) {
      if (!known(route.permission)) {
        throw new BootError(`Route ${route.method} ${route.path} (plugin '${route.owner}') uses unknown permission '${route.permission}'`);
      }
    }
    for (const page of this.deps.registries.adminPages.list()) {
      if (page.permission && !known(page.permission)) {
        throw new BootError(`Admin page ${page.path} (plugin '${page.pluginId}') uses unknown permission '${page.permission}'`);
      }
    }
    for (const [ns, entry] of this.deps.namespaces.entries()) {
      for (const [method, permission] of Object.entries(entry.methods)) {
        if (!known(permission))
          throw new BootError(`Namespace '${ns}' ${method} (plugin '${entry.owner}') uses unknown permission '${permission}'`);
      }
    }
  }

  /** Boots the plugins of one phase in order; `beforeEach` may throw to stop (shutdown during boot). */
  async bootPhase(phase: PluginPhase, beforeEach: () => void = () => undefined): Promise<void> {
    for (const plugin of this.loaded.filter((p) => p.discovered.manifest.phase === phase)) {
      beforeEach();
      const started = performance.now();
      plugin.record.state = 'booting';
      try {
        await this.readSettings(plugin);
        plugin.state = await plugin.definition.boot?.(plugin.bootContext);
      } catch (err) {
        plugin.record.state = 'failed';
        throw new BootError(`Plugin '${plugin.record.id}' failed to boot: ${(err as Error).message}`);
      }
      plugin.record.bootMs = Math.round((performance.now() - started) * 100) / 100;
      plugin.record.state = 'booted';
      this.booted.push(plugin);
    }
  }

  /** Before boot: the plugin's mapped System Settings join its options, and their changes are followed. */
  private async readSettings(plugin: LoadedPlugin): Promise<void> {
    const live = plugin.liveConfig;
    if (!live) return;
    const { container } = this.deps;
    const cradle = container.awilix.cradle as ContainerServices;
    // Settings come third: a store that cannot be read leaves the environment, the options and the defaults.
    await live.load(cradle.settings).catch((err: unknown) => {
      if (err instanceof BootError) throw err;
      plugin.bootContext.logger.warn({ err }, 'cannot read the System Settings of this plugin; using environment, options and defaults');
    });
    plugin.bootContext.options = live.current() as Record<string, unknown>;
    live.follow(cradle.events, () => cradle.settings);
  }

  /** A plugin serves requests once booted; one without a boot() is ready as soon as it is registered. */
  isBooted(id: string): boolean {
    const plugin = this.loaded.find((p) => p.record.id === id);
    return plugin !== undefined && (plugin.record.state === 'booted' || (plugin.record.state === 'registered' && !plugin.definition.boot));
  }

  /** Closes booted plugins in reverse boot order; one failure does not stop the others. */
  async closeAll(): Promise<void> {
    while (this.booted.length) {
      const plugin = this.booted.pop()!;
      try {
        while (plugin.closers.length) await plugin.closers.pop()!();
        await plugin.definition.close?.({ ...plugin.bootContext, state: plugin.state });
        plugin.record.state = 'closed';
      } catch (err) {
        this.deps.logger.error({ err, plugin: plugin.record.id }, 'plugin close failed');
      }
    }
  }

  describe(): PluginRecord[] {
    return [...this.loaded.map((p) => p.record), ...this.disabledRecords];
  }
}
