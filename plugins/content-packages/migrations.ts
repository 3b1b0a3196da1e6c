import type { MigrationDefinition } from '../../kernel/sdk.js';

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
  {
    // Export side: one row per built package archive: its tenant, the plan that built it (download by planId, or
    // by the jobId whose payload names the plan; null for content-sync builds), size and SHA-256 of the archive.
    name: '0002-content-export-packages',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_content_exports', {
        package_id: { type: DataTypes.STRING(64), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        plan_id: { type: DataTypes.STRING(64), allowNull: true },
        peer: { type: DataTypes.STRING(64), allowNull: true },
        file_name: { type: DataTypes.STRING(191), allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: false },
        entries: { type: DataTypes.INTEGER, allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_content_exports', ['tenant_id', 'plan_id'], { name: 'cms_content_exports_plan' });
      await queryInterface.addIndex('cms_content_exports', ['created_at'], { name: 'cms_content_exports_created' });
    },
  },
  {
    // The import side: which target entry each source entry (source installation, collection, source id) went to (identity rule 2).
    name: '0003-content-import-sources',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_content_import_sources', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        source: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(64), primaryKey: true },
        source_id: { type: DataTypes.STRING(64), primaryKey: true },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
