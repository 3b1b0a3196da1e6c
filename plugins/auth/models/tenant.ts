import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A tenant (MULTI_TENANT on): its users, roles, sessions, tokens and keys are its own. */
export class Tenant extends Model {
  declare id: string;
  declare name: string;
  declare hostnames: string;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(64), primaryKey: true },
        name: { type: DataTypes.STRING(191), allowNull: false },
        hostnames: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_tenants', timestamps: false },
    );
  }
}
