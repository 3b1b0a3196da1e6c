import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The stored plans (frozen: each step's checksum is recorded). Times are epoch milliseconds; JSON
 * documents are text. `operations` holds the full operations (payloads included: what apply needs).
 */
export const DATA_OPS_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-data-plans',
    async up({ queryInterface, DataTypes, sequelize }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('long');
      await queryInterface.createTable('cms_data_plans', {
        plan_id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        actor: { type: DataTypes.TEXT, allowNull: false },
        domain: { type: DataTypes.STRING(64), allowNull: false },
        mode: { type: DataTypes.STRING(16), allowNull: false },
        risk: { type: DataTypes.STRING(16), allowNull: false },
        requires_confirmation: { type: DataTypes.BOOLEAN, allowNull: false },
        plan_hash: { type: DataTypes.STRING(64), allowNull: false },
        summary: { type: DataTypes.TEXT, allowNull: false },
        operations: { type: longText, allowNull: false },
        warnings: { type: longText, allowNull: false },
        blocked_reasons: { type: longText, allowNull: false },
        input: { type: longText, allowNull: false },
        target_hash: { type: DataTypes.STRING(191), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        job_id: { type: DataTypes.STRING(36), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
        applied_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.addIndex('cms_data_plans', ['tenant_id', 'domain', 'created_at'], { name: 'cms_data_plans_tenant_domain' });
      await queryInterface.addIndex('cms_data_plans', ['expires_at'], { name: 'cms_data_plans_expiry' });
    },
  },
];
