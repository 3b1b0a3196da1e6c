import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        purpose: column.string(16),
        user_id: column.uuid({ nullable: true }),
        tenant_id: column.tenantId(),
        challenge: column.string(128),
        expires_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_passkey_challenges'),
    );
  }
}
