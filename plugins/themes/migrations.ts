import type { MigrationDefinition } from '../../kernel/sdk.js';

/** The themes plugin's schema steps (frozen). Times are epoch milliseconds; config is JSON text. */
export const THEME_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-themes',
    async up({ queryInterface, DataTypes, sequelize }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium');
      await queryInterface.createTable('themes', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(100), allowNull: false },
        is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        is_default: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        config: { type: longText, allowNull: false },
        preset_source: { type: DataTypes.STRING(191), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('themes', ['tenant_id', 'name'], { unique: true, name: 'themes_tenant_name' });
    },
  },
];
