import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { MigrationDefinition } from '../../kernel/sdk.js';
import { BUILT_IN_ROLES } from './roles.js';

/**
 * The auth plugin's schema steps. Columns are written out here instead of being taken from the models:
 * a migration is a frozen step whose checksum is recorded, while the models follow the latest schema.
 */
export const AUTH_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-users-roles-sessions',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_users', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        email: { type: DataTypes.STRING(191), allowNull: false },
        username: { type: DataTypes.STRING(191), allowNull: false },
        password_hash: { type: DataTypes.STRING(100), allowNull: false },
        role: { type: DataTypes.STRING(64), allowNull: false },
        blocked: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        failed_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lockout_until: { type: DataTypes.BIGINT, allowNull: true },
        preferences: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      });
      await queryInterface.addIndex('auth_users', ['tenant_id', 'email'], { unique: true, name: 'auth_users_tenant_email' });
      await queryInterface.createTable('auth_roles', {
        tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
        name: { type: DataTypes.STRING(64), primaryKey: true },
        description: { type: DataTypes.STRING(255), allowNull: false },
        permissions: { type: DataTypes.TEXT, allowNull: false },
      });
      await queryInterface.bulkInsert(
        'auth_roles',
        Object.entries(BUILT_IN_ROLES).map(([name, r]) => ({ tenant_id: 'default', name, description: r.description, permissions: JSON.stringify(r.permissions) })),
      );
      await queryInterface.createTable('auth_sessions', {
        id_hash: { type: DataTypes.STRING(64), primaryKey: true },
        public_id: { type: DataTypes.STRING(36), allowNull: false, unique: true },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_agent: { type: DataTypes.STRING(512), allowNull: false },
        ip: { type: DataTypes.STRING(64), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_active_at: { type: DataTypes.BIGINT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_sessions', ['user_id'], { name: 'auth_sessions_user' });
      await queryInterface.addIndex('auth_sessions', ['expires_at'], { name: 'auth_sessions_expires' });
    },
  },
  {
    name: '0002-api-keys-website-tokens-secret',
    async up({ queryInterface, DataTypes }) {
      const tokenTable = (hashColumn: string) => ({
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        [hashColumn]: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        expires_at: { type: DataTypes.BIGINT, allowNull: true },
        last_used_at: { type: DataTypes.BIGINT, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.createTable('auth_api_keys', { ...tokenTable('key_hash'), permissions: { type: DataTypes.TEXT, allowNull: false } });
      await queryInterface.createTable('auth_website_tokens', tokenTable('token_hash'));
      // The signing secret of re-authentication proofs, shared by every instance on this database.
      await queryInterface.createTable('auth_secrets', {
        name: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.STRING(128), allowNull: false },
      });
      const { randomBytes } = await import('node:crypto');
      await queryInterface.bulkInsert('auth_secrets', [{ name: 'reauth', value: randomBytes(32).toString('hex') }]);
    },
  },
  {
    name: '0003-two-factor',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('auth_users', 'two_factor_enabled', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
      await queryInterface.addColumn('auth_users', 'totp_secret', { type: DataTypes.TEXT, allowNull: true });
      await queryInterface.addColumn('auth_users', 'backup_codes', { type: DataTypes.TEXT, allowNull: true });
      await queryInterface.addColumn('auth_users', 'last_2fa_verification', { type: DataTypes.BIGINT, allowNull: true });
      await queryInterface.addColumn('auth_users', 'last_totp_step', { type: DataTypes.BIGINT, allowNull: true });
      await queryInterface.createTable('auth_2fa_pending', {
        user_id: { type: DataTypes.STRING(36), primaryKey: true },
        payload: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      // Encrypts TOTP secrets when ENCRYPTION_KEY is not set (setup writes ENCRYPTION_KEY to the private config).
      const { randomBytes } = await import('node:crypto');
      await queryInterface.bulkInsert('auth_secrets', [{ name: 'encryption', value: randomBytes(32).toString('hex') }]);
    },
  },
  {
    name: '0004-email-tokens',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_tokens', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        email: { type: DataTypes.STRING(191), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: true },
        role: { type: DataTypes.STRING(64), allowNull: true },
        created_by: { type: DataTypes.STRING(36), allowNull: true },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
        consumed_at: { type: DataTypes.BIGINT, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_tokens', ['tenant_id', 'kind'], { name: 'auth_tokens_tenant_kind' });
    },
  },
  {
    name: '0005-tenants',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_tenants', {
        id: { type: DataTypes.STRING(64), primaryKey: true },
        name: { type: DataTypes.STRING(191), allowNull: false },
        hostnames: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.bulkInsert('auth_tenants', [{ id: 'default', name: 'Default', hostnames: '[]', created_at: Date.now() }]);
    },
  },
  {
    // What is left of a revoked API key or website token (its SHA-256, never the value), so a later use
    // of it is told apart from a made-up value and recorded in the audit trail. Purged after 90 days.
    name: '0006-revoked-bearers',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_revoked_bearers', {
        token_hash: { type: DataTypes.STRING(64), primaryKey: true },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        token_id: { type: DataTypes.STRING(36), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        reason: { type: DataTypes.STRING(32), allowNull: false },
        revoked_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_revoked_bearers', ['revoked_at'], { name: 'auth_revoked_bearers_revoked_at' });
    },
  },
  {
    // The per-client lockout: consecutive failed sign-ins of one account from one client (the signed
    // rl_client cookie, else the IP), the client stored only as a keyed hash (lockout.ts). The
    // account-wide count stays in auth_users.failed_attempts / lockout_until. Rows without a failure
    // for 24 hours and no lock running are pruned with the other purges.
    name: '0007-login-failures',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_login_failures', {
        user_id: { type: DataTypes.STRING(36), primaryKey: true },
        client_hash: { type: DataTypes.STRING(64), primaryKey: true },
        failures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lockout_until: { type: DataTypes.BIGINT, allowNull: true },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_login_failures', ['updated_at'], { name: 'auth_login_failures_updated_at' });
    },
  },
  {
    // Sudo mode (README "Re-authentication"): when the session last proved the password (sign-in with
    // the password, and the second factor when on; null: never, e.g. a magic link, passkey or identity
    // provider), and a website token's own permissions (null: all of its creator's).
    name: '0008-sudo-mode',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('auth_sessions', 'password_at', { type: DataTypes.BIGINT, allowNull: true });
      await queryInterface.addColumn('auth_website_tokens', 'permissions', { type: DataTypes.TEXT, allowNull: true });
    },
  },
  {
    // Roles administration (/api/roles): a stable id per role, so a custom role keeps its address when
    // renamed. Existing rows get one here; a row written later without one (raw SQL, an old backup) gets
    // one when the roles are listed.
    name: '0009-role-ids',
    async up({ sequelize, queryInterface, DataTypes }) {
      await queryInterface.addColumn('auth_roles', 'id', { type: DataTypes.STRING(36), allowNull: true });
      const rows = await sequelize.query<{ tenant_id: string; name: string }>('SELECT tenant_id, name FROM auth_roles', {
        type: QueryTypes.SELECT,
      });
      for (const row of rows) {
        await sequelize.query('UPDATE auth_roles SET id = ? WHERE tenant_id = ? AND name = ?', {
          replacements: [randomUUID(), row.tenant_id, row.name],
        });
      }
      await queryInterface.addIndex('auth_roles', ['id'], { unique: true, name: 'auth_roles_id' });
    },
  },
  {
    // The rules of a role (JSON text of a list, kernel/access-rules.ts); null: none.
    name: '0010-role-rules',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('auth_roles', 'rules', { type: DataTypes.TEXT, allowNull: true });
    },
  },
  {
    // An API key's scope (JSON text of [{collection, actions}], kernel/access-rules.ts KeyScope); null: none.
    name: '0011-api-key-scopes',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.addColumn('auth_api_keys', 'scope', { type: DataTypes.TEXT, allowNull: true });
    },
  },
];
