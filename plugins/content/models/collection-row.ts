import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A collection's schema; its entries live in their own table (table_name). */
export class CollectionRow extends Model {
  declare name: string;
  declare uid: string;
  declare label: string;
  declare singular: string;
  declare fields: string;
  declare table_name: string;
  declare version: number;
  /** JSON of the collection's options (CollectionOptions), null when none is set. */
  declare options: string | null;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        name: column.key(48),
        uid: column.uuid(),
        label: column.string(191),
        singular: column.string(48),
        fields: column.text(),
        table_name: column.string(64),
        version: column.integer(),
        options: column.text({ nullable: true }),
        created_at: column.epochMs(),
        updated_at: column.epochMs(),
      },
      tableOf(sequelize, 'content_collections'),
    );
  }
}
