import type { MigrationDefinition } from '../../kernel/sdk.js';

/** Setup's state (one row) and the settings store. Columns are spelled out: migrations are frozen steps. */
export const SETUP_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-state-and-settings',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('setup_state', {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        state: { type: DataTypes.STRING(16), allowNull: false },
        db_validated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        seeded: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        progress: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        error: { type: DataTypes.TEXT, allowNull: true },
        completed_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.bulkInsert('setup_state', [{ id: 1, state: 'incomplete', db_validated: false, seeded: false, progress: 0 }]);
      await queryInterface.createTable('cms_settings', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        key: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.TEXT, allowNull: false },
        is_private: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
