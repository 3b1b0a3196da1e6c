import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A sign-in session. The cookie holds a random id; only its SHA-256 is stored. */
export class Session extends Model {
  declare id_hash: string;
  declare public_id: string;
  declare user_id: string;
  declare tenant_id: string;
  declare user_agent: string;
  declare ip: string;
  declare created_at: number;
  declare last_active_at: number;
  declare expires_at: number;
  /** When this session last proved the password (sign-in with it, plus the second factor when on); null: never. */
  declare password_at: number | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id_hash: column.key(64),
        public_id: column.string(36, { unique: true }),
        user_id: column.uuid(),
        tenant_id: column.tenantId(),
        user_agent: column.string(512),
        ip: column.string(64),
        created_at: column.epochMs(),
        last_active_at: column.epochMs(),
        expires_at: column.epochMs(),
        password_at: column.epochMs({ nullable: true }),
      },
      tableOf(sequelize, 'auth_sessions'),
    );
  }
}
