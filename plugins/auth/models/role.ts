import { randomUUID } from 'node:crypto';
import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A role: a named set of permissions, per tenant. */
export class Role extends Model {
  /** The role's stable id (`_id` of /api/roles); null only on rows written before 0009 or by raw SQL (filled on first listing). */
  declare id: string | null;
  declare tenant_id: string;
  declare name: string;
  declare description: string;
  declare permissions: string;
  /** The role's rules as JSON text of a list (kernel/access-rules.ts); null: none. */
  declare rules: string | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), allowNull: true, defaultValue: () => randomUUID() },
        tenant_id: column.key(64),
        name: column.key(64),
        description: column.string(255),
        permissions: column.text(),
        rules: { type: DataTypes.TEXT, allowNull: true },
      },
      tableOf(sequelize, 'auth_roles'),
    );
  }
}
