import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        user_id: column.uuid(),
        name: column.string(191),
        key_hash: column.sha256(),
        permissions: column.text(),
        expires_at: column.epochMs({ nullable: true }),
        last_used_at: column.epochMs({ nullable: true }),
        created_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_api_keys'),
    );
  }
}
