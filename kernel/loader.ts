import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KernelContainer } from './container.js';
import type { CmsConfig } from './config.js';
import type { MigrationDefinition } from './db/migrations.js';
import type { ModelRegistry } from './db/models.js';
import type { DiscoveredPlugin } from './discovery.js';
import { BootError } from './errors.js';
import type { NamespaceMap } from './http/namespaces.js';
import type { RouteTable } from './http/route-table.js';
import type { Logger } from './logger.js';
import type { PluginPhase } from './manifest.js';
import type { BoundRegistry, PluginBootContext, PluginDefinition, PluginRegistries } from './plugin.js';
import { PROVIDES_KEYS, type Registries } from './registries/index.js';

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
}

function bindRegistries(registries: Registries, owner: string): PluginRegistries {
  const bound: Record<string, unknown> = {};
  for (const [name, registry] of Object.entries(registries)) {
    const r = registry as any;
    bound[name] = {
      add: (item: unknown) => r.add(item, owner),
      get: (key: string) => r.get(key),
      has: (key: string) => r.has(key),
      list: () => r.list(),
    } satisfies BoundRegistry<any>;
  }
  return bound as PluginRegistries;
}

function recordOf(p: DiscoveredPlugin, enabled: boolean): PluginRecord {
  const m = p.manifest;
  return {
    id: m.id, name: m.name, version: m.version, description: m.description, source: p.source, dir: p.dir,
    phase: m.phase, requires: m.requires, enabled, state: enabled ? 'registered' : 'disabled',
    provides: Object.fromEntries(Object.entries(m.provides).filter(([, v]) => v && v.length)) as Record<string, string[]>,
    permissions: Object.keys(m.permissions), namespaces: Object.keys(m.namespaces), routes: 0, containerKeys: [],
  };
}

/** Loads entry modules, runs register (declarations), boot (per phase) and close (reverse order). */
export class PluginLoader {
  private readonly loaded: LoadedPlugin[] = [];
  private readonly disabledRecords: PluginRecord[] = [];
  private readonly booted: LoadedPlugin[] = [];

  constructor(private readonly deps: LoaderDeps) {}

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
      const options = config.plugins.options[id] ?? {};
      namespaces.addFromManifest(p.manifest);
      for (const [name, description] of Object.entries(p.manifest.permissions)) {
        registries.permissions.add({ name, description }, id);
      }
      const routesBefore = routes.list().length;
      definition.register?.({
        id, manifest: p.manifest, config, options, logger: pluginLogger,
        container: { register: (key, resolver) => container.register(id, key, resolver) },
        routes: { add: (route) => routes.add(route, id) },
        registries: bindRegistries(registries, id),
        migrations: {
          add: (m) => {
            if (!m?.name || typeof m.up !== 'function') throw new BootError(`Plugin '${id}' added a migration without a name and an up() function`);
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
        id, manifest: p.manifest, config, options, logger: pluginLogger,
        container: { resolve: (key) => container.resolve(key), cradle: container.awilix.cradle },
        onClose: (fn) => void closers.push(fn),
      };
      this.loaded.push({ discovered: p, definition, record, bootContext, closers });
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
    if (!definition || typeof definition !== 'object' || (typeof definition.register !== 'function' && typeof definition.boot !== 'function')) {
      throw new BootError(`Plugin '${p.manifest.id}': entry ${file} must export default definePlugin({ register, boot?, close? }) or definePlugin(() => ({ ... }))`);
    }
    return definition as PluginDefinition;
  }

  /** The manifest must say what the code adds, so the plugin tree can be described without running code. */
  private checkProvides(p: DiscoveredPlugin, registries: Registries): void {
    for (const key of PROVIDES_KEYS) {
      const declared = [...(p.manifest.provides[key] ?? [])].sort();
      const actual = registries[key].keysOwnedBy(p.manifest.id).sort();
      if (declared.join(',') !== actual.join(',')) {
        throw new BootError(`Plugin '${p.manifest.id}': manifest provides.${key} is [${declared.join(', ')}] but its code added [${actual.join(', ')}]`);
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
    for (const [ns, entry] of this.deps.namespaces.entries()) {
      for (const [method, permission] of Object.entries(entry.methods)) {
        if (!known(permission)) throw new BootError(`Namespace '${ns}' ${method} (plugin '${entry.owner}') uses unknown permission '${permission}'`);
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
