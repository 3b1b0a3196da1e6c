import type { MigrationDefinition } from '../../kernel/sdk.js';

/** Frozen schema steps of the update-check plugin: one row shared by every instance on the database. */
export const UPDATE_CHECK_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-update-check-state',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('update_check_state', {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        installation_id: { type: DataTypes.STRING(64), allowNull: true },
        secret: { type: DataTypes.TEXT, allowNull: true },
        last_attempt_at: { type: DataTypes.BIGINT, allowNull: true },
        claimed_by: { type: DataTypes.STRING(64), allowNull: true },
        checked_at: { type: DataTypes.BIGINT, allowNull: true },
        current_version: { type: DataTypes.STRING(64), allowNull: true },
        latest_version: { type: DataTypes.STRING(64), allowNull: true },
        update_available: { type: DataTypes.BOOLEAN, allowNull: true },
        advisories: { type: DataTypes.TEXT, allowNull: true },
        last_error: { type: DataTypes.STRING(500), allowNull: true },
        announced: { type: DataTypes.STRING(191), allowNull: true },
      });
    },
  },
];
