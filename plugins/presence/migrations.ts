import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The presence table (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_presence: one row per browser tab that has an entry open (`tab` is the tab's random id); `taken_at` is set
 *   when that tab took over editing, `left_at` when it left (0002). Rows whose `last_seen` is older than the time
 *   to live are gone (swept).
 */
export const PRESENCE_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-presence',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_presence', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(64), primaryKey: true },
        entry_id: { type: DataTypes.STRING(36), primaryKey: true },
        tab: { type: DataTypes.STRING(64), primaryKey: true },
        user_id: { type: DataTypes.STRING(64), allowNull: true },
        name: { type: DataTypes.STRING(191), allowNull: false },
        can_edit: { type: DataTypes.INTEGER, allowNull: false },
        since: { type: DataTypes.BIGINT, allowNull: false },
        last_seen: { type: DataTypes.BIGINT, allowNull: false },
        taken_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.addIndex('cms_presence', ['last_seen'], { name: 'cms_presence_last_seen' });
    },
  },
  {
    // A tab that left keeps its row (left_at set) for the time to live: a heartbeat of it still on its way
    // arrives after the leave and must not open the entry again. Views count only rows without left_at.
    name: '0002-presence-left',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('cms_presence', 'left_at', { type: DataTypes.BIGINT, allowNull: true });
    },
  },
];
