import type { MigrationDefinition } from '../../kernel/sdk.js';

/** Frozen schema steps of the auth-oidc plugin (columns written out; the model follows the latest schema). */
export const OIDC_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-identities',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_oidc_identities', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        provider: { type: DataTypes.STRING(64), allowNull: false },
        subject: { type: DataTypes.STRING(255), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        email: { type: DataTypes.STRING(191), allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_login_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_oidc_identities', ['tenant_id', 'provider', 'subject'], { unique: true, name: 'auth_oidc_identities_subject' });
      await queryInterface.addIndex('auth_oidc_identities', ['user_id'], { name: 'auth_oidc_identities_user' });
    },
  },
];
