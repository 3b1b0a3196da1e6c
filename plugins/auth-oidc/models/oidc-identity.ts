import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        provider: column.string(64),
        subject: column.string(255),
        user_id: column.uuid(),
        email: column.string(191, { nullable: true }),
        created_at: column.epochMs(),
        last_login_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_oidc_identities'),
    );
  }
}
