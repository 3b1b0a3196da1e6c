import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The importers' tables (frozen: each step's checksum is recorded). Times are epoch milliseconds;
 * JSON documents are text. import_links is the delta ledger: one row per imported source record.
 */
export const IMPORTER_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-importers',
    async up({ queryInterface, DataTypes, sequelize }) {
      const longText = sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium');
      await queryInterface.createTable('import_uploads', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(64), allowNull: true },
        filename: { type: DataTypes.STRING(255), allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        valid: { type: DataTypes.BOOLEAN, allowNull: false },
        format: { type: DataTypes.STRING(64), allowNull: true },
        confidence: { type: DataTypes.DOUBLE, allowNull: false },
        summary: { type: longText, allowNull: false },
        work_dir: { type: DataTypes.STRING(500), allowNull: false },
        file_path: { type: DataTypes.STRING(500), allowNull: false },
        spool_path: { type: DataTypes.STRING(500), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('import_uploads', ['tenant_id', 'user_id', 'created_at'], { name: 'import_uploads_owner' });
      await queryInterface.createTable('import_plans', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        upload_id: { type: DataTypes.STRING(36), allowNull: false },
        plan: { type: longText, allowNull: false },
        job_id: { type: DataTypes.STRING(36), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.createTable('import_jobs', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        plan_id: { type: DataTypes.STRING(36), allowNull: false },
        format: { type: DataTypes.STRING(64), allowNull: false },
        status: { type: DataTypes.STRING(20), allowNull: false },
        processed: { type: DataTypes.INTEGER, allowNull: false },
        total: { type: DataTypes.INTEGER, allowNull: false },
        results: { type: longText, allowNull: false },
        warnings: { type: longText, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        started_at: { type: DataTypes.BIGINT, allowNull: false },
        completed_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.createTable('import_links', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        format: { type: DataTypes.STRING(64), allowNull: false },
        entity: { type: DataTypes.STRING(64), allowNull: false },
        external_id: { type: DataTypes.STRING(191), allowNull: false },
        collection: { type: DataTypes.STRING(64), allowNull: false },
        entry_id: { type: DataTypes.STRING(36), allowNull: false },
        checksum: { type: DataTypes.STRING(64), allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('import_links', ['tenant_id', 'format', 'entity', 'external_id'], { unique: true, name: 'import_links_source' });
    },
  },
  {
    // The ledger is per target collection: a source record is "imported before" only into the collection it went to, so
    // unrelated files imported into other collections never match (rows without ids also get content-derived ids).
    name: '0002-import-links-per-collection',
    async up({ queryInterface }) {
      await queryInterface.removeIndex('import_links', 'import_links_source');
      await queryInterface.addIndex('import_links', ['tenant_id', 'collection', 'format', 'entity', 'external_id'], { unique: true, name: 'import_links_target' });
    },
  },
  {
    // The data-operation lifecycle: when the engine's apply began running the job (a resumed run keeps its plan's
    // target hash), and the engine's background job that runs it (the jobs list, a job that never got the lock).
    name: '0003-import-jobs-lifecycle',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('import_jobs', 'begun_at', { type: DataTypes.BIGINT, allowNull: true });
      await queryInterface.addColumn('import_jobs', 'data_job_id', { type: DataTypes.STRING(64), allowNull: true });
    },
  },
  {
    // Past runs: the ledger row remembers the run that last wrote it (the items of GET /api/importers/runs/:jobId).
    name: '0004-import-links-job',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('import_links', 'job_id', { type: DataTypes.STRING(36), allowNull: true });
      await queryInterface.addIndex('import_links', ['tenant_id', 'job_id'], { name: 'import_links_job' });
    },
  },
  {
    // Languages (issue 36): one ledger row per source record and locale. A source entity in several languages is one
    // entry; each language's record has its own row (the installation locale it was written to; '' for records
    // without a language and imports from before), so a re-import of one language skips or updates only that one.
    name: '0005-import-links-locale',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('import_links', 'locale', { type: DataTypes.STRING(35), allowNull: false, defaultValue: '' });
      await queryInterface.removeIndex('import_links', 'import_links_target');
      await queryInterface.addIndex('import_links', ['tenant_id', 'collection', 'format', 'entity', 'external_id', 'locale'], {
        unique: true,
        name: 'import_links_target',
      });
    },
  },
];
