import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A tenant (MULTI_TENANT on): its users, roles, sessions, tokens and keys are its own. */
export class Tenant extends Model {
  declare id: string;
  declare name: string;
  declare hostnames: string;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.key(64),
        name: column.string(191),
        hostnames: column.text(),
        created_at: column.epochMs(),
      },
      tableOf(sequelize, 'auth_tenants'),
    );
  }
}
