import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        user_id: column.uuid(),
        credential_id: column.string(512, { unique: true }),
        public_key: column.text(),
        counter: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        transports: column.text(),
        device_type: column.string(32),
        backed_up: column.flag(),
        name: column.string(191),
        created_at: column.epochMs(),
        last_used_at: column.epochMs({ nullable: true }),
      },
      tableOf(sequelize, 'auth_passkeys'),
    );
  }
}
