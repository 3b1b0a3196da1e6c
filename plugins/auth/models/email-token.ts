import { DataTypes, Model, type Sequelize } from 'sequelize';

export type EmailTokenKind = 'reset' | 'magic' | 'invite' | '2fa-pending';

/** A single-use token sent by email: password reset, magic sign-in link, or invitation. Only its SHA-256 is stored. */
export class EmailToken extends Model {
  declare id: string;
  declare tenant_id: string;
  declare kind: EmailTokenKind;
  declare token_hash: string;
  declare email: string;
  declare user_id: string | null;
  declare role: string | null;
  declare created_by: string | null;
  declare expires_at: number;
  declare consumed_at: number | null;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        email: { type: DataTypes.STRING(191), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: true },
        role: { type: DataTypes.STRING(64), allowNull: true },
        created_by: { type: DataTypes.STRING(36), allowNull: true },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
        consumed_at: { type: DataTypes.BIGINT, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_tokens', timestamps: false },
    );
  }
}
