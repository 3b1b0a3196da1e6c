import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The webhooks tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_webhooks: one row per webhook of a tenant; `events` and `collections` are JSON arrays of names
 *   (`collections` null: every collection); `secret` is the AES-256-GCM ciphertext of the signing secret
 *   (webhook-secrets.ts), never the secret itself.
 * - cms_webhook_deliveries: one row per event and webhook; `body` is the JSON text sent (the same text at
 *   every attempt); `lease_until`/`lease_owner` mark the instance sending it (dispatcher.ts).
 * - cms_webhook_keys: the generated encryption key when `secrets.encryptionKey` is not configured.
 */
export const WEBHOOK_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-webhooks-deliveries',
    async up({ queryInterface, sequelize, DataTypes }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('long');
      await queryInterface.createTable('cms_webhooks', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        events: { type: DataTypes.TEXT, allowNull: false },
        collections: { type: DataTypes.TEXT, allowNull: true },
        enabled: { type: DataTypes.INTEGER, allowNull: false },
        secret: { type: DataTypes.TEXT, allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_webhooks', ['tenant_id'], { name: 'cms_webhooks_tenant' });
      await queryInterface.createTable('cms_webhook_deliveries', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        webhook_id: { type: DataTypes.STRING(36), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        event: { type: DataTypes.STRING(64), allowNull: false },
        body: { type: longText, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        duration_ms: { type: DataTypes.INTEGER, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        next_attempt_at: { type: DataTypes.BIGINT, allowNull: true },
        lease_until: { type: DataTypes.BIGINT, allowNull: true },
        lease_owner: { type: DataTypes.STRING(64), allowNull: true },
      });
      await queryInterface.addIndex('cms_webhook_deliveries', ['webhook_id', 'created_at'], { name: 'cms_webhook_deliveries_webhook' });
      await queryInterface.addIndex('cms_webhook_deliveries', ['status', 'next_attempt_at'], { name: 'cms_webhook_deliveries_due' });
      await queryInterface.createTable('cms_webhook_keys', {
        name: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.STRING(191), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
