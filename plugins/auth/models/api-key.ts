import type { Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';
import { BearerCredential, bearerColumns } from './bearer-credential.js';

/** A machine API key (`sck_…`): only its SHA-256 is stored; permissions are a subset of its creator's. */
export class ApiKey extends BearerCredential {
  declare key_hash: string;
  declare permissions: string;
  /** JSON text of the key's scope ([{collection, actions}]); null: every collection its permissions allow. */
  declare scope: string | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      bearerColumns({
        key_hash: column.sha256(),
        permissions: column.text(),
        scope: column.text({ nullable: true }),
        expires_at: column.epochMs({ nullable: true }),
      }),
      tableOf(sequelize, 'auth_api_keys'),
    );
  }
}
