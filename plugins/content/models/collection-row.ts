import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A collection's schema; its entries live in their own table (table_name). */
export class CollectionRow extends Model {
  declare name: string;
  declare uid: string;
  declare label: string;
  declare singular: string;
  declare fields: string;
  declare table_name: string;
  declare version: number;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        name: { type: DataTypes.STRING(48), primaryKey: true },
        uid: { type: DataTypes.STRING(36), allowNull: false },
        label: { type: DataTypes.STRING(191), allowNull: false },
        singular: { type: DataTypes.STRING(48), allowNull: false },
        fields: { type: DataTypes.TEXT, allowNull: false },
        table_name: { type: DataTypes.STRING(64), allowNull: false },
        version: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'content_collections', timestamps: false },
    );
  }
}
