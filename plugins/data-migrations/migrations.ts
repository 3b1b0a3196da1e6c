import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The ledger of applied data migrations (frozen: each step's checksum is recorded). One row per
 * migration and tenant; the unique key is what makes a migration run once even if two instances
 * got past the engine's lock. Times are epoch milliseconds.
 */
export const DATA_MIGRATION_TABLES: MigrationDefinition[] = [
  {
    name: 'data-migrations/0001-ledger',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_data_migrations_ledger', {
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
      });
      await queryInterface.addIndex('cms_data_migrations_ledger', ['tenant_id', 'migration_id'], { unique: true, name: 'cms_data_migrations_ledger_once' });
    },
  },
];
