import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        email: column.string(191),
        username: column.string(191),
        password_hash: column.string(100),
        role: column.string(64),
        blocked: column.flag(),
        failed_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lockout_until: column.epochMs({ nullable: true }),
        preferences: { type: DataTypes.TEXT, allowNull: false, defaultValue: '{}' },
        two_factor_enabled: column.flag(),
        totp_secret: column.text({ nullable: true }),
        backup_codes: column.text({ nullable: true }),
        last_2fa_verification: column.epochMs({ nullable: true }),
        last_totp_step: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'auth_users', underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
  }
}
