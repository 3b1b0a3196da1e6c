import { DataTypes, Model, type Sequelize } from 'sequelize';

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
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        migration_id: { type: DataTypes.STRING(128), allowNull: false },
        plan_id: { type: DataTypes.STRING(64), allowNull: false },
        plan_hash: { type: DataTypes.STRING(128), allowNull: false },
        checksum: { type: DataTypes.CHAR(64), allowNull: false },
        source: { type: DataTypes.STRING(255), allowNull: false },
        actor: { type: DataTypes.STRING(64), allowNull: true },
        counts: { type: DataTypes.TEXT, allowNull: false },
        applied_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'cms_data_migrations_ledger', timestamps: false },
    );
  }
}
