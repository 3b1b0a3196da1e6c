import { DataTypes, Model, type Sequelize } from 'sequelize';
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

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        collection: { type: DataTypes.STRING(48), allowNull: false },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        version: { type: DataTypes.INTEGER, allowNull: false },
        data: { type: longText(sequelize.getDialect()), allowNull: false },
        action: { type: DataTypes.STRING(16), allowNull: false },
        created_by: { type: DataTypes.STRING(36), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'content_revisions', timestamps: false },
    );
  }
}
