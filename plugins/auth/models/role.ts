import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A role: a named set of permissions, per tenant. */
export class Role extends Model {
  declare tenant_id: string;
  declare name: string;
  declare description: string;
  declare permissions: string;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        tenant_id: column.key(64),
        name: column.key(64),
        description: column.string(255),
        permissions: column.text(),
      },
      tableOf(sequelize, 'auth_roles'),
    );
  }
}
