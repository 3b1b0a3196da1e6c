import type { Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';
import { BearerCredential, bearerColumns } from './bearer-credential.js';

/** A website token (personal access token): bearer, bound to its creator's tenant and current permissions. */
export class WebsiteToken extends BearerCredential {
  declare token_hash: string;
  /** JSON array narrowing the creator's permissions; null: all of them. */
  declare permissions: string | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      bearerColumns({
        token_hash: column.sha256(),
        expires_at: column.epochMs({ nullable: true }),
        permissions: column.text({ nullable: true }),
      }),
      tableOf(sequelize, 'auth_website_tokens'),
    );
  }
}
