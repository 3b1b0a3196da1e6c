import type { MigrationDefinition } from '../../kernel/sdk.js';

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
  {
    name: '0002-dashboard-metric-points',
    async up({ queryInterface, DataTypes }) {
      // Figures over time (time-series.ts): one row per series, tenant ('' = instance-wide), bucket size in seconds and bucket start (epoch seconds).
      await queryInterface.createTable('dashboard_metric_points', {
        resolution: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
        series: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
        bucket_start: { type: DataTypes.BIGINT, allowNull: false, primaryKey: true },
        amount: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      });
    },
  },
];
