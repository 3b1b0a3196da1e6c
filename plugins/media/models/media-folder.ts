import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A virtual folder of the media library (names unique per parent and tenant; parent_key is '' at the root). */
export class MediaFolder extends Model {
  declare id: string;
  declare tenant_id: string;
  declare name: string;
  declare parent_id: string | null;
  declare parent_key: string;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        parent_id: { type: DataTypes.STRING(36), allowNull: true },
        parent_key: { type: DataTypes.STRING(36), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'media_folders', timestamps: false },
    );
  }
}
