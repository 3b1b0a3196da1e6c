import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';
import { longText } from '../field-types.js';

/** The state of an entry after each write. */
export class Revision extends Model {
  declare id: number;
  declare tenant_id: string;
  declare collection: string;
  declare entry_id: string;
  declare version: number;
  declare data: string;
  declare action: string;
  declare created_by: string | null;
  declare created_at: number;
  /** The locale of a write of an entry's version in a non-default locale; null: the entry's row (the default's). */
  declare locale: string | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.serialId(),
        tenant_id: column.tenantId(),
        collection: column.string(48),
        entry_id: column.uuid(),
        version: column.integer(),
        data: { type: longText(sequelize.getDialect()), allowNull: false },
        action: column.string(16),
        created_by: column.uuid({ nullable: true }),
        created_at: column.epochMs(),
        locale: column.string(35, { nullable: true }),
      },
      tableOf(sequelize, 'content_revisions'),
    );
  }
}
