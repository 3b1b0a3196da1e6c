import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The agent sessions of the MCP server (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_mcp_sessions: one row per MCP session of an API key (`id` the Mcp-Session-Id the server handed out), with the
 *   key's id and name at the time, its counts, and when and by whom it was reverted.
 * - cms_mcp_changes: one row per entry (or media item) a session changed, written at its first change: `kind`
 *   `created` or `updated` (`prior`: the entry's values and its working draft before the session's first write); `version_after` is the entry's (or draft's) version after the session's last write.
 */
export const MCP_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-mcp-sessions',
    async up({ queryInterface, sequelize, DataTypes }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('long');
      await queryInterface.createTable('cms_mcp_sessions', {
        id: { type: DataTypes.STRING(64), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        key_id: { type: DataTypes.STRING(64), allowNull: false },
        key_name: { type: DataTypes.STRING(191), allowNull: false },
        started_at: { type: DataTypes.BIGINT, allowNull: false },
        last_at: { type: DataTypes.BIGINT, allowNull: false },
        changes: { type: DataTypes.INTEGER, allowNull: false },
        reverted_at: { type: DataTypes.BIGINT, allowNull: true },
        reverted_by: { type: DataTypes.STRING(64), allowNull: true },
      });
      await queryInterface.addIndex('cms_mcp_sessions', ['tenant_id', 'last_at'], { name: 'cms_mcp_sessions_tenant' });
      await queryInterface.createTable('cms_mcp_changes', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        session_id: { type: DataTypes.STRING(64), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        collection: { type: DataTypes.STRING(64), allowNull: false },
        entry_id: { type: DataTypes.STRING(64), allowNull: false },
        prior: { type: longText, allowNull: true },
        version_after: { type: DataTypes.INTEGER, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_mcp_changes', ['session_id', 'collection', 'entry_id'], {
        name: 'cms_mcp_changes_entry',
        unique: true,
      });
    },
  },
];
