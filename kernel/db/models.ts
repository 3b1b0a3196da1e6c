import type { ModelStatic, Model, Sequelize } from 'sequelize';
import { BootError } from '../errors.js';

/**
 * A plugin's Sequelize model: one class per file, with a static initModel(sequelize) that calls
 * Model.init (no I/O) and an optional static associate(models) run once every plugin has registered.
 */
export type PluginModel = ModelStatic<Model> & {
  initModel(sequelize: Sequelize): void;
  associate?(models: Record<string, ModelStatic<Model>>): void;
};

/** The models of every plugin, by class name; registered in the container as `models`. */
export class ModelRegistry {
  readonly models: Record<string, ModelStatic<Model>> = {};
  private readonly owners = new Map<string, string>();
  private readonly pending: PluginModel[] = [];

  constructor(private readonly sequelize: Sequelize) {}

  add(model: PluginModel, owner: string): void {
    if (typeof model?.initModel !== 'function')
      throw new BootError(`Plugin '${owner}' added a model without a static initModel(sequelize)`);
    const first = this.owners.get(model.name);
    if (first) throw new BootError(`Model '${model.name}' added by plugin '${owner}' is already added by plugin '${first}'`);
    model.initModel(this.sequelize);
    this.owners.set(model.name, owner);
    this.models[model.name] = model;
    this.pending.push(model);
  }

  /** Runs associate() of every model added so far, once. */
  associateAll(): void {
    for (const model of this.pending.splice(0)) model.associate?.(this.models);
  }
}
