import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The update server's tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * No raw client IP is ever stored: `ip_hash` is a salted SHA-256 truncated to 16 hex characters, and
 * no installation secret either: `secret_nonce` only (the secret is derived from it with the server key).
 */
export const UPDATE_SERVER_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-update-server',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('update_server_installations', {
        id: { type: DataTypes.STRING(64), primaryKey: true },
        secret_nonce: { type: DataTypes.STRING(64), allowNull: false },
        registered_at: { type: DataTypes.BIGINT, allowNull: false },
        secret_rotated_at: { type: DataTypes.BIGINT, allowNull: false },
        first_seen: { type: DataTypes.BIGINT, allowNull: true },
        last_seen: { type: DataTypes.BIGINT, allowNull: true },
        last_check_ts: { type: DataTypes.BIGINT, allowNull: true },
        current_version: { type: DataTypes.STRING(64), allowNull: true },
        db_type: { type: DataTypes.STRING(32), allowNull: true },
        country: { type: DataTypes.STRING(8), allowNull: true },
        environment: { type: DataTypes.STRING(32), allowNull: true },
        is_ephemeral: { type: DataTypes.BOOLEAN, allowNull: true },
      });
      await queryInterface.addIndex('update_server_installations', ['last_seen'], { name: 'update_server_installations_seen' });
      await queryInterface.createTable('update_server_checks', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        installation_id: { type: DataTypes.STRING(64), allowNull: false },
        at: { type: DataTypes.BIGINT, allowNull: false },
        version: { type: DataTypes.STRING(64), allowNull: false },
        ip_hash: { type: DataTypes.STRING(16), allowNull: false },
      });
      await queryInterface.addIndex('update_server_checks', ['at'], { name: 'update_server_checks_at' });
      await queryInterface.addIndex('update_server_checks', ['installation_id'], { name: 'update_server_checks_installation' });
      await queryInterface.createTable('update_server_rate', {
        ip_hash: { type: DataTypes.STRING(16), primaryKey: true },
        next_allowed_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
    async down({ queryInterface }) {
      await queryInterface.dropTable('update_server_rate');
      await queryInterface.dropTable('update_server_checks');
      await queryInterface.dropTable('update_server_installations');
    },
  },
];
