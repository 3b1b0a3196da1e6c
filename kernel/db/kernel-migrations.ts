import type { MigrationDefinition } from './migrations.js';

/** The kernel's own tables. Plugin migrations run after these, in plugin order. */
export const KERNEL_MIGRATIONS: MigrationDefinition[] = [
  {
    name: 'kernel/0001-jobs',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_jobs', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        type: { type: DataTypes.STRING(100), allowNull: false },
        status: { type: DataTypes.STRING(20), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: 'default' },
        payload: { type: DataTypes.TEXT, allowNull: true },
        progress: { type: DataTypes.TEXT, allowNull: true },
        result: { type: DataTypes.TEXT, allowNull: true },
        error: { type: DataTypes.TEXT, allowNull: true },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        max_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 3 },
        run_after: { type: DataTypes.BIGINT, allowNull: false },
        lease_until: { type: DataTypes.BIGINT, allowNull: true },
        claimed_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
        completed_at: { type: DataTypes.DATE, allowNull: true },
      });
      await queryInterface.addIndex('cms_jobs', ['status', 'run_after'], { name: 'cms_jobs_status_run_after' });
    },
    async down({ queryInterface }) {
      await queryInterface.dropTable('cms_jobs');
    },
  },
  {
    name: 'kernel/0002-audit-log',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_audit_log', {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        timestamp: { type: DataTypes.STRING(32), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: 'default' },
        domain: { type: DataTypes.STRING(64), allowNull: false },
        operation: { type: DataTypes.STRING(64), allowNull: false },
        plan_id: { type: DataTypes.STRING(64), allowNull: true },
        mode: { type: DataTypes.STRING(16), allowNull: true },
        actor: { type: DataTypes.TEXT, allowNull: false },
        outcome: { type: DataTypes.STRING(16), allowNull: false },
        summary: { type: DataTypes.TEXT, allowNull: false },
        duration_ms: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        level: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'low' },
        action: { type: DataTypes.STRING(191), allowNull: false },
        message: { type: DataTypes.TEXT, allowNull: false },
        details: { type: DataTypes.TEXT, allowNull: true },
        previous_hash: { type: DataTypes.STRING(64), allowNull: false },
        current_hash: { type: DataTypes.STRING(64), allowNull: false },
      });
      await queryInterface.addIndex('cms_audit_log', ['timestamp'], { name: 'cms_audit_log_timestamp' });
    },
    async down({ queryInterface }) {
      await queryInterface.dropTable('cms_audit_log');
    },
  },
  {
    // Jobs are listed newest first, and beside the audit entries of inline applies (ms precision):
    // MariaDB's DATETIME kept whole seconds, so a job could sort behind an apply made before it.
    // SQLite stores the milliseconds already.
    name: 'kernel/0003-jobs-milliseconds',
    async up({ sequelize, queryInterface, DataTypes }) {
      if (sequelize.getDialect() === 'sqlite') return;
      await queryInterface.changeColumn('cms_jobs', 'created_at', { type: DataTypes.DATE(3), allowNull: false });
      await queryInterface.changeColumn('cms_jobs', 'updated_at', { type: DataTypes.DATE(3), allowNull: false });
      await queryInterface.changeColumn('cms_jobs', 'completed_at', { type: DataTypes.DATE(3), allowNull: true });
    },
  },
  {
    // The settings store moved from the setup plugin into the kernel (issue 34): the table is created
    // here unless the setup plugin's first migration already made it (every installation before the move).
    // That frozen step still runs after this one on a new database; its CREATE TABLE IF NOT EXISTS is then a no-op.
    name: 'kernel/0004-settings',
    async up({ queryInterface, DataTypes }) {
      if (await queryInterface.tableExists('cms_settings')) return;
      await queryInterface.createTable('cms_settings', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        key: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.TEXT, allowNull: false },
        is_private: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
