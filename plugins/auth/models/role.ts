import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A role: a named set of permissions, per tenant. */
export class Role extends Model {
  declare tenant_id: string;
  declare name: string;
  declare description: string;
  declare permissions: string;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        name: { type: DataTypes.STRING(64), primaryKey: true },
        description: { type: DataTypes.STRING(255), allowNull: false },
        permissions: { type: DataTypes.TEXT, allowNull: false },
      },
      { sequelize, tableName: 'auth_roles', timestamps: false },
    );
  }
}
