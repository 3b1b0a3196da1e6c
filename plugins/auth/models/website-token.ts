import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A website token (personal access token): bearer, bound to its creator's tenant and current permissions. */
export class WebsiteToken extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string;
  declare name: string;
  declare token_hash: string;
  declare expires_at: number | null;
  /** JSON array narrowing the creator's permissions; null: all of them. */
  declare permissions: string | null;
  declare last_used_at: number | null;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.id(),
        tenant_id: column.tenantId(),
        user_id: column.uuid(),
        name: column.string(191),
        token_hash: column.sha256(),
        expires_at: column.epochMs({ nullable: true }),
        permissions: column.text({ nullable: true }),
        last_used_at: column.epochMs({ nullable: true }),
        created_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_website_tokens'),
    );
  }
}
