import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A reusable component (a named field list that collections and other components use); shared by every tenant. */
export class ComponentRow extends Model {
  declare name: string;
  declare label: string;
  declare fields: string;
  declare version: number;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        name: column.key(48),
        label: column.string(191),
        fields: column.text(),
        version: column.integer(),
        created_at: column.epochMs(),
        updated_at: column.epochMs(),
      },
      tableOf(sequelize, 'content_components'),
    );
  }
}
