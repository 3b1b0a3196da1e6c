import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A user. Credential columns never leave the users service (see toPublicUser). */
export class User extends Model {
  declare id: string;
  declare tenant_id: string;
  declare email: string;
  declare username: string;
  declare password_hash: string;
  declare role: string;
  declare blocked: boolean;
  declare failed_attempts: number;
  declare lockout_until: number | null;
  declare preferences: string;
  declare two_factor_enabled: boolean;
  declare totp_secret: string | null;
  declare backup_codes: string | null;
  declare last_2fa_verification: number | null;
  declare last_totp_step: number | null;
  declare created_at: Date;
  declare updated_at: Date;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        email: { type: DataTypes.STRING(191), allowNull: false },
        username: { type: DataTypes.STRING(191), allowNull: false },
        password_hash: { type: DataTypes.STRING(100), allowNull: false },
        role: { type: DataTypes.STRING(64), allowNull: false },
        blocked: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        failed_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lockout_until: { type: DataTypes.BIGINT, allowNull: true },
        preferences: { type: DataTypes.TEXT, allowNull: false, defaultValue: '{}' },
        two_factor_enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        totp_secret: { type: DataTypes.TEXT, allowNull: true },
        backup_codes: { type: DataTypes.TEXT, allowNull: true },
        last_2fa_verification: { type: DataTypes.BIGINT, allowNull: true },
        last_totp_step: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'auth_users', underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
  }
}
