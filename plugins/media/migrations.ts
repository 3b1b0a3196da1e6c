import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The media plugin's schema steps (frozen: the checksum of each is recorded; the models follow the
 * latest schema). Times are epoch milliseconds; created_month (UTC 'YYYY-MM') lets analytics group
 * by month in SQL on both databases.
 */
export const MEDIA_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-items-folders',
    async up({ queryInterface, DataTypes, sequelize }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium');
      await queryInterface.createTable('media_items', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        filename: { type: DataTypes.STRING(191), allowNull: false },
        original_name: { type: DataTypes.STRING(255), allowNull: false },
        mime_type: { type: DataTypes.STRING(127), allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        path: { type: DataTypes.STRING(400), allowNull: false, unique: true },
        checksum: { type: DataTypes.STRING(64), allowNull: false },
        width: { type: DataTypes.INTEGER, allowNull: true },
        height: { type: DataTypes.INTEGER, allowNull: true },
        folder_id: { type: DataTypes.STRING(36), allowNull: true },
        owner_id: { type: DataTypes.STRING(64), allowNull: true },
        private: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        metadata: { type: longText, allowNull: false },
        storage: { type: DataTypes.STRING(64), allowNull: false },
        created_month: { type: DataTypes.STRING(7), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
        deleted_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.addIndex('media_items', ['tenant_id', 'deleted_at', 'created_at'], { name: 'media_items_tenant_created' });
      await queryInterface.addIndex('media_items', ['tenant_id', 'folder_id'], { name: 'media_items_tenant_folder' });
      await queryInterface.createTable('media_folders', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        parent_id: { type: DataTypes.STRING(36), allowNull: true },
        parent_key: { type: DataTypes.STRING(36), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('media_folders', ['tenant_id', 'parent_key', 'name'], { unique: true, name: 'media_folders_sibling_name' });
    },
  },
];
