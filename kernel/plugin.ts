import type { Resolver } from 'awilix';
import type { CmsConfig } from './config.js';
import type { Logger } from './logger.js';
import type { PluginManifest } from './manifest.js';
import type { RouteDefinition } from './http/route-table.js';
import type { MigrationDefinition } from './db/migrations.js';
import type { PluginModel } from './db/models.js';
import type { Registries } from './registries/index.js';

/** A registry as a plugin sees it: what it adds is recorded as its own. */
export type BoundRegistry<R> = R extends { add(item: infer T, owner?: string): unknown }
  ? { add(item: T): T; get(key: string): T | undefined; has(key: string): boolean; list(): T[] }
  : never;
export type PluginRegistries = { [K in keyof Registries]: BoundRegistry<Registries[K]> };

export interface PluginRegisterContext {
  id: string;
  manifest: PluginManifest;
  config: CmsConfig;
  /** `plugins.options[<id>]` from config. */
  options: Record<string, unknown>;
  logger: Logger;
  container: { register(key: string, resolver: Resolver<unknown>): void };
  routes: { add(route: RouteDefinition): void };
  registries: PluginRegistries;
  migrations: { add(migration: MigrationDefinition): void };
  /** Sequelize model classes (plugins/<id>/models/); initialised now, associated after all plugins registered. */
  models: { add(model: PluginModel): void };
}

export interface PluginBootContext {
  id: string;
  manifest: PluginManifest;
  config: CmsConfig;
  options: Record<string, unknown>;
  logger: Logger;
  /** Resolve singletons registered by the kernel and by plugins this one requires. */
  container: { resolve<T = unknown>(key: string): T; cradle: Record<string, any> };
  /** Runs `fn` at shutdown (before close(), last added first): timers, sockets, anything boot started. */
  onClose(fn: () => Promise<void> | void): void;
}

export interface PluginDefinition<State = unknown> {
  /** Declarations only: services, models, routes, registry entries. No I/O. */
  register?(ctx: PluginRegisterContext): void;
  /** I/O allowed; runs in the manifest's phase, after the plugins it requires. What it returns is close()'s `state`. */
  boot?(ctx: PluginBootContext): Promise<State> | State;
  /** Runs at shutdown, in reverse boot order, with what boot() returned. */
  close?(ctx: PluginBootContext & { state: State | undefined }): Promise<void> | void;
}

/**
 * Identity with types: the entry module's default export. Either a definition, or a factory the
 * kernel calls once per kernel instance, so register, boot and close can share state in a closure
 * (never in module-level variables: tests run several kernels in one process).
 */
export function definePlugin<State = unknown>(definition: PluginDefinition<State> | (() => PluginDefinition<State>)): PluginDefinition<State> | (() => PluginDefinition<State>) {
  return definition;
}
