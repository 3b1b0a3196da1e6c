import type { MigrationDefinition } from '../../kernel/sdk.js';

/**
 * The review stages' tables (frozen: each step's checksum is recorded). Times are epoch milliseconds.
 * - cms_workflows: one row per workflow of a tenant; `stages` is the JSON array of `{name, roles?}`.
 * - cms_workflow_collections: which workflow a collection of a tenant follows (the key keeps a collection in at most
 *   one workflow, also against two requests at once).
 * - cms_entry_stages: the stage of an entry; none (or a stage the workflow no longer has) is the first stage.
 */
export const WORKFLOW_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-workflows-stages',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('cms_workflows', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        stages: { type: DataTypes.TEXT, allowNull: false },
        publish_stage: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('cms_workflows', ['tenant_id'], { name: 'cms_workflows_tenant' });
      await queryInterface.createTable('cms_workflow_collections', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(64), primaryKey: true },
        workflow_id: { type: DataTypes.STRING(36), allowNull: false },
      });
      await queryInterface.addIndex('cms_workflow_collections', ['workflow_id'], { name: 'cms_workflow_collections_workflow' });
      await queryInterface.createTable('cms_entry_stages', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        collection: { type: DataTypes.STRING(64), primaryKey: true },
        entry_id: { type: DataTypes.STRING(64), primaryKey: true },
        stage: { type: DataTypes.STRING(64), allowNull: false },
        updated_by: { type: DataTypes.STRING(64), allowNull: true },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
    },
  },
];
