import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** One applied data migration of one tenant (table cms_data_migrations_ledger). */
export class DataMigrationLedgerRow extends Model {
  declare id: number;
  declare tenant_id: string;
  declare migration_id: string;
  declare plan_id: string;
  declare plan_hash: string;
  declare checksum: string;
  declare source: string;
  declare actor: string | null;
  /** JSON: {updated, moved}. */
  declare counts: string;
  declare applied_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.serialId(),
        tenant_id: column.tenantId(),
        migration_id: column.string(128),
        plan_id: column.string(64),
        plan_hash: column.string(128),
        checksum: { type: DataTypes.CHAR(64), allowNull: false },
        source: column.string(255),
        actor: column.string(64, { nullable: true }),
        counts: column.text(),
        applied_at: column.epochMs(),
      },
      tableOf(sequelize, 'cms_data_migrations_ledger'),
    );
  }
}
