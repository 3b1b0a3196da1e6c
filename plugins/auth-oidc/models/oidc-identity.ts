import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A provider identity (provider + subject) linked to a user of a tenant. No provider tokens are stored. */
export class OidcIdentity extends Model {
  declare id: string;
  declare tenant_id: string;
  declare provider: string;
  declare subject: string;
  declare user_id: string;
  declare email: string | null;
  declare created_at: number;
  declare last_login_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        provider: { type: DataTypes.STRING(64), allowNull: false },
        subject: { type: DataTypes.STRING(255), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        email: { type: DataTypes.STRING(191), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_login_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_oidc_identities', timestamps: false },
    );
  }
}
