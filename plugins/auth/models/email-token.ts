import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        kind: column.string(16),
        token_hash: column.sha256(),
        email: column.string(191),
        user_id: column.uuid({ nullable: true }),
        role: column.string(64, { nullable: true }),
        created_by: column.uuid({ nullable: true }),
        expires_at: column.epochMs(),
        consumed_at: column.epochMs({ nullable: true }),
        created_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_tokens'),
    );
  }
}
