import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A machine API key (`sck_…`): only its SHA-256 is stored; permissions are a subset of its creator's. */
export class ApiKey extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string;
  declare name: string;
  declare key_hash: string;
  declare permissions: string;
  declare expires_at: number | null;
  declare last_used_at: number | null;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        permissions: { type: DataTypes.TEXT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: true },
        last_used_at: { type: DataTypes.BIGINT, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_api_keys', timestamps: false },
    );
  }
}
