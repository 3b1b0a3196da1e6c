import type { MigrationDefinition } from '../../kernel/db/migrations.js';

/**
 * The content-packages tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_installation: one row, this installation's stable id (PackageManifest.source.installationId).
 * - cms_content_ledger: per peer installation, the checksum of each entry both sides last agreed on
 *   (written by imports from that peer and by a successful push to it); the base of conflict detection.
 * Further tables of the export and import sides are added by later steps in this list.
 */
export const CONTENT_PACKAGE_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-content-packages-installation-ledger',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_installation', {
        name: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.STRING(191), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.createTable('cms_content_ledger', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        peer: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(64), primaryKey: true },
        sync_id: { type: DataTypes.STRING(36), primaryKey: true },
        checksum: { type: DataTypes.STRING(64), allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
