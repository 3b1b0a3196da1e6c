import type { MigrationDefinition } from '../../kernel/db/migrations.js';

/** Frozen schema steps of the dashboard plugin. */
export const DASHBOARD_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-dashboard-installation',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('dashboard_installation', {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        installed_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
