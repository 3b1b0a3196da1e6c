import type { ModelStatic, Model, Sequelize } from 'sequelize';
import { BootError } from '../errors.js';

/**
 * A plugin's Sequelize model: one class per file, with a static initModel(sequelize) that calls
 * `this.init(...)` (no I/O; never `ClassName.init`, see ModelRegistry) and an optional static
 * associate(models) run once every plugin has registered, which must associate the classes it is
 * handed, never the imported ones.
 */
export type PluginModel = ModelStatic<Model> & {
  initModel(sequelize: Sequelize): void;
  associate?(models: ModelMap): void;
};

/** The models of one kernel by class name: the container's `models`. */
export type ModelMap = Record<string, ModelStatic<Model>>;

/**
 * The models of every plugin, by class name; `models` is registered in the container as `models`.
 *
 * Sequelize keeps a model's table, connection and hooks on the class. Two kernels in one process
 * (tests, a restore check, a worker running beside the server) would share one class and the last
 * one booted would own it, so each kernel binds its own subclass of every plugin model to its own
 * Sequelize. A plugin imports its model class for the types and reaches the bound class through the
 * container (`models`, or modelOf(models, User)); a static call on the imported class fails loudly,
 * since that class is never initialised.
 */
export class ModelRegistry {
  readonly models: ModelMap = {};
  private readonly owners = new Map<string, string>();
  private readonly pending: PluginModel[] = [];

  constructor(private readonly sequelize: Sequelize) {}

  /** Binds a subclass of `model` to this kernel's Sequelize and returns it. */
  add<M extends PluginModel>(model: M, owner: string): M {
    if (typeof model?.initModel !== 'function')
      throw new BootError(`Plugin '${owner}' added a model without a static initModel(sequelize)`);
    const first = this.owners.get(model.name);
    if (first) throw new BootError(`Model '${model.name}' added by plugin '${owner}' is already added by plugin '${first}'`);
    const bound = bindModel(model);
    bound.initModel(this.sequelize);
    this.owners.set(model.name, owner);
    this.models[model.name] = bound;
    this.pending.push(bound);
    return bound;
  }

  /** Runs associate() of every model added so far, once, with this kernel's bound classes. */
  associateAll(): void {
    for (const model of this.pending.splice(0)) model.associate?.(this.models);
  }
}

/** A subclass of `model` with the same name (Sequelize's default model name and error messages). */
function bindModel<M extends PluginModel>(model: M): M {
  const bound = class extends (model as unknown as new (...args: never[]) => Model) {};
  Object.defineProperty(bound, 'name', { value: model.name });
  return bound as unknown as M;
}

/**
 * The class bound to this kernel for a plugin's model class: `modelOf(models, User).findByPk(id)`.
 * `models` is the container's `models` or a cradle/scope holding it.
 */
export function modelOf<M extends PluginModel>(models: ModelMap | { models: ModelMap }, model: M): M {
  const map = (isModelMap(models) ? models : models.models) as ModelMap;
  const bound = map[model.name];
  if (!bound) throw new Error(`Model '${model.name}' is not registered in this kernel (is its plugin enabled?)`);
  return bound as M;
}

function isModelMap(value: ModelMap | { models: ModelMap }): value is ModelMap {
  const candidate = (value as { models?: unknown }).models;
  return typeof candidate !== 'object' || candidate === null || typeof candidate === 'function';
}

/** The bound classes of several plugin models at once: `const { User, Role } = modelsOf(models, { User, Role })`. */
export function modelsOf<T extends Record<string, PluginModel>>(models: ModelMap | { models: ModelMap }, classes: T): T {
  const out = {} as Record<string, PluginModel>;
  for (const [key, model] of Object.entries(classes)) out[key] = modelOf(models, model);
  return out as T;
}

/**
 * The base of a plugin service over its own models: `class Tokens extends ModelService({ ApiKey })<Deps> {}`.
 * `new Tokens(models, deps)` binds the classes to this kernel (`this.models.ApiKey`, as modelsOf) and keeps
 * what else the service needs as `this.deps`.
 */
export function ModelService<T extends Record<string, PluginModel>>(classes: T) {
  return class<D = undefined> {
    protected readonly models: T;

    constructor(
      models: ModelMap | { models: ModelMap },
      protected readonly deps: D,
    ) {
      this.models = modelsOf(models, classes);
    }
  };
}
