import { DataTypes, Model, type Sequelize } from 'sequelize';

export type ChallengePurpose = 'register' | 'login';

/** A WebAuthn challenge handed out by an options endpoint; claimed once by the matching verify. */
export class PasskeyChallenge extends Model {
  declare id: string;
  declare purpose: ChallengePurpose;
  /** The user registering, or the user named by email at sign-in; null for a discoverable sign-in. */
  declare user_id: string | null;
  declare tenant_id: string;
  declare challenge: string;
  declare expires_at: number | string;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        purpose: { type: DataTypes.STRING(16), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        challenge: { type: DataTypes.STRING(128), allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_passkey_challenges', timestamps: false },
    );
  }
}
