import { asFunction, type Resolver } from 'awilix';
import { ServiceUnavailableError } from './errors.js';
import type { CmsConfig } from './config.js';
import type { Logger } from './logger.js';
import type { PluginManifest } from './manifest.js';
import type { ContainerServices, RouteDefinition } from './http/route-table.js';
import type { MigrationDefinition } from './db/migrations.js';
import type { PluginModel } from './db/models.js';
import type { Registries } from './registries/index.js';
import type { EveryOptions, Recurring } from './every.js';
import type { FollowEachOptions, FollowOptions, Followed, FollowedEach } from './follow.js';
import type { PluginConfig } from './plugin-config.js';
import type { z } from 'zod';

/** A registry as a plugin sees it: what it adds is recorded as its own. */
export type BoundRegistry<R> = R extends { add(item: infer T, owner?: string): unknown }
  ? { add(item: T): T; get(key: string): T | undefined; has(key: string): boolean; list(): T[] }
  : never;
export type PluginRegistries = { [K in keyof Registries]: BoundRegistry<Registries[K]> };

/** The options a plugin without an `options` schema receives: `plugins.options[<id>]` as written. */
export type RawOptions = Record<string, unknown>;

export interface PluginRegisterContext<O = RawOptions> {
  id: string;
  manifest: PluginManifest;
  config: CmsConfig;
  /**
   * With an `options` schema on the definition: the merged, validated options (defaults < System Settings <
   * plugins.options < environment; no settings yet at register, which does no I/O). Without one:
   * `plugins.options[<id>]` from config as written.
   */
  options: O;
  /** The configuration's view at register: `current()` and the source of each option path (settings come at boot). */
  pluginConfig: Pick<PluginConfig<O>, 'current' | 'sourceOf'>;
  /**
   * The environment variables the manifest's `env` field declares, read once when the kernel started,
   * converted to their type and nested by option path. The plugin combines them with `options` in the
   * order the README states for each variable.
   */
  envOptions: Record<string, any>;
  /** Option path -> the environment variable it came from (for messages; never the value). */
  envSources: Record<string, string>;
  logger: Logger;
  container: { register(key: string, resolver: Resolver<unknown>): void };
  routes: { add(route: RouteDefinition): void };
  registries: PluginRegistries;
  migrations: { add(migration: MigrationDefinition): void };
  /**
   * Sequelize model classes (plugins/<id>/models/): a subclass bound to this kernel's database is
   * initialised now (and returned), associated after all plugins registered; services reach it
   * through the container's `models` (modelOf(models, Class)).
   */
  models: { add<M extends PluginModel>(model: M): M };
}

export interface PluginBootContext<O = RawOptions> {
  id: string;
  manifest: PluginManifest;
  config: CmsConfig;
  /** As in register; with a schema, now with the System Settings the manifest maps (read just before boot). */
  options: O;
  /**
   * With an `options` schema: the live configuration (kernel/plugin-config.ts): `current()`, the source of
   * each option path for messages, and `watch()` for changes of the mapped System Settings on any instance.
   * Without a schema: a fixed view of the raw options.
   */
  pluginConfig: PluginConfig<O>;
  envOptions: Record<string, any>;
  envSources: Record<string, string>;
  logger: Logger;
  /** Resolve singletons registered by the kernel and by plugins this one requires. */
  container: {
    resolve<K extends keyof ContainerServices>(key: K): ContainerServices[K];
    resolve<T = unknown>(key: string): T;
    cradle: ContainerServices & Record<string, any>;
  };
  /** Runs `fn` at shutdown (before close(), last added first): timers, sockets, anything boot started. */
  onClose(fn: () => Promise<void> | void): void;
  /**
   * An in-memory copy kept in step across instances (kernel/follow.ts): first read now, updated by the
   * events in `on`, re-read after a bus loss and every `refreshMs`; closed with the plugin.
   */
  follow<T>(options: FollowOptions<T>): Followed<T>;
  /** Copies per key, read on first use (kernel/follow.ts `followEach`); closed with the plugin. */
  followEach<K, V>(options: FollowEachOptions<K, V>): FollowedEach<K, V>;
  /**
   * Recurring work (kernel/every.ts): every `everyMs`, never overlapping, unref'd, failures logged by name,
   * stopped with the plugin; with `job`, also a system job that runs it on demand.
   */
  every<R extends object | void>(options: EveryOptions<R>): Recurring;
}

export interface PluginDefinition<State = unknown, O = RawOptions> {
  /**
   * The options schema (zod). With it the kernel merges the plugin's configuration in one order, validates
   * it with one error format naming each value's source, and hands the result to register and boot as
   * `options` (see docs/configuration.md, "One configuration path").
   */
  options?: z.ZodType<O>;
  /**
   * The plugin's own reading of its environment variables, before the kernel's merge: receives the values
   * the manifest's `env` mapped (nested by option path) and the variable behind each path, returns the values
   * to merge. For rules of a plugin's own (an unusable value left out, numbers floored, a message of its
   * own); a path it leaves out no longer counts as coming from the environment. Without it: the values as mapped.
   */
  readEnv?(values: Record<string, any>, sources: Record<string, string>): Record<string, any>;
  /** Declarations only: services, models, routes, registry entries. No I/O. */
  register?(ctx: PluginRegisterContext<O>): void;
  /** I/O allowed; runs in the manifest's phase, after the plugins it requires. What it returns is close()'s `state`. */
  boot?(ctx: PluginBootContext<O>): Promise<State> | State;
  /** Runs at shutdown, in reverse boot order, with what boot() returned. */
  close?(ctx: PluginBootContext<O> & { state: State | undefined }): Promise<void> | void;
}

/**
 * Identity with types: the entry module's default export. Either a definition, or a factory the
 * kernel calls once per kernel instance, so register, boot and close can share state in a closure
 * (never in module-level variables: tests run several kernels in one process).
 */
export function definePlugin<State = unknown, O = RawOptions>(
  definition: PluginDefinition<State, O> | (() => PluginDefinition<State, O>),
): PluginDefinition<State, O> | (() => PluginDefinition<State, O>) {
  return definition;
}

/**
 * A container key another plugin may offer: its service, or undefined when that plugin is absent or
 * disabled, or when the kernel service is not open yet (`cache` and `pool` before the SETUP phase).
 * Works on a route's `scope` and on boot's `container.cradle`. Any other error thrown while the
 * service is built is not swallowed.
 */
export function optional<K extends keyof ContainerServices & string>(scope: object, key: K): ContainerServices[K] | undefined {
  if (!Object.prototype.hasOwnProperty.call(scope, key)) return undefined;
  try {
    return (scope as ContainerServices)[key];
  } catch (err) {
    if (err instanceof ServiceUnavailableError) return undefined;
    throw err;
  }
}

/**
 * A request-scoped service: built once per request from that request's scope, so it reads
 * `currentUser`, `tenantId` and `requestId` instead of having the identity passed through every
 * call. Resolve it only from a request (a route's `scope`); a singleton must not depend on it.
 *
 *   container.register('myNotes', requestScoped(({ notes, currentUser }) => new MyNotes(notes, currentUser)));
 */
export function requestScoped<T>(factory: (scope: ContainerServices) => T): Resolver<T> {
  return asFunction(factory).scoped();
}
