import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A registered passkey: the credential id and public key (COSE), both base64url; never a secret. */
export class Passkey extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string;
  declare credential_id: string;
  declare public_key: string;
  declare counter: number | string;
  /** JSON array of transport hints ("internal", "hybrid", "usb"...). */
  declare transports: string;
  declare device_type: string;
  declare backed_up: boolean;
  declare name: string;
  declare created_at: number | string;
  declare last_used_at: number | string | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        credential_id: { type: DataTypes.STRING(512), allowNull: false, unique: true },
        public_key: { type: DataTypes.TEXT, allowNull: false },
        counter: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        transports: { type: DataTypes.TEXT, allowNull: false },
        device_type: { type: DataTypes.STRING(32), allowNull: false },
        backed_up: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_used_at: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'auth_passkeys', timestamps: false },
    );
  }
}
