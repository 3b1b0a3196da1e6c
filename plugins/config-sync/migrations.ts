import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The config-sync tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_config_sync_links: the identity of a database resource across environments, one row per
 *   resource that was promoted or exported: `local_id` is the resource's own id in this database (theme
 *   id, collection uid, role name, setting key, `default-layout`), `sync_id` the syncId (a file's
 *   `uuid`) it carries, `external_id` the id it has in the source system it was promoted from.
 * - cms_config_sync_uploads: uploaded bundles, kept until `expires_at` for planning.
 */
export const CONFIG_SYNC_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-config-sync-links',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_config_sync_links', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        type: { type: DataTypes.STRING(32), primaryKey: true },
        local_id: { type: DataTypes.STRING(191), primaryKey: true },
        sync_id: { type: DataTypes.STRING(64), allowNull: false },
        external_id: { type: DataTypes.STRING(191), allowNull: true },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_config_sync_links', ['tenant_id', 'type', 'sync_id'], { name: 'cms_config_sync_links_sync' });
    },
  },
  {
    name: '0002-config-sync-uploads',
    async up({ queryInterface, DataTypes, sequelize }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('long');
      await queryInterface.createTable('cms_config_sync_uploads', {
        upload_id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(64), allowNull: true },
        bundle: { type: longText, allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_config_sync_uploads', ['expires_at'], { name: 'cms_config_sync_uploads_expiry' });
    },
  },
];
