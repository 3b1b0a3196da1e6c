import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The content-sync tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_content_sync_channels: one row per channel; `api_key` is the AES-256-GCM ciphertext of the key
 *   (channel-secrets.ts), never the key itself.
 * - cms_content_sync_secrets: the generated encryption key when `secrets.encryptionKey` is not configured.
 * - cms_content_sync_transfers: uploads received from a peer (`kind` upload) and packages built for a
 *   peer to download (`kind` package), with their file under `<dataPath>/content-sync/`.
 */
export const CONTENT_SYNC_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-content-sync-channels-transfers',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_content_sync_channels', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        api_key: { type: DataTypes.TEXT, allowNull: false },
        remote_installation_id: { type: DataTypes.STRING(64), allowNull: true },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_content_sync_channels', ['tenant_id', 'name'], {
        name: 'cms_content_sync_channels_tenant_name',
        unique: true,
      });
      await queryInterface.createTable('cms_content_sync_secrets', {
        name: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.STRING(191), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.createTable('cms_content_sync_transfers', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        file: { type: DataTypes.STRING(255), allowNull: false },
        total: { type: DataTypes.BIGINT, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_content_sync_transfers', ['tenant_id', 'kind'], { name: 'cms_content_sync_transfers_tenant' });
      await queryInterface.addIndex('cms_content_sync_transfers', ['expires_at'], { name: 'cms_content_sync_transfers_expiry' });
    },
  },
];
