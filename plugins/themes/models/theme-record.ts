import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A named theme of a tenant: at most one active and one default per tenant; config is JSON (ThemeConfig). */
export class ThemeRecord extends Model {
  declare id: string;
  declare tenant_id: string;
  declare name: string;
  declare is_active: boolean;
  declare is_default: boolean;
  declare config: string;
  declare preset_source: string | null;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(100), allowNull: false },
        is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        is_default: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        config: { type: DataTypes.TEXT, allowNull: false },
        preset_source: { type: DataTypes.STRING(191), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'themes', timestamps: false },
    );
  }
}
