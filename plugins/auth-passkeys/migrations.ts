import type { MigrationDefinition } from '../../kernel/sdk.js';

/** Frozen schema steps of the passkeys plugin (the models follow the latest schema). */
export const PASSKEY_MIGRATIONS: MigrationDefinition[] = [
  {
    name: '0001-passkeys-challenges',
    async up({ queryInterface, DataTypes }) {
      await queryInterface.createTable('auth_passkeys', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        // base64url; 512 characters (384 bytes) keeps the unique index within MariaDB's key limit in utf8mb4.
        credential_id: { type: DataTypes.STRING(512), allowNull: false, unique: true },
        public_key: { type: DataTypes.TEXT, allowNull: false },
        counter: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        transports: { type: DataTypes.TEXT, allowNull: false },
        device_type: { type: DataTypes.STRING(32), allowNull: false },
        backed_up: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_used_at: { type: DataTypes.BIGINT, allowNull: true },
      });
      await queryInterface.addIndex('auth_passkeys', ['user_id'], { name: 'auth_passkeys_user' });
      await queryInterface.createTable('auth_passkey_challenges', {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        purpose: { type: DataTypes.STRING(16), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        challenge: { type: DataTypes.STRING(128), allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
      });
      await queryInterface.addIndex('auth_passkey_challenges', ['challenge'], { name: 'auth_passkey_challenges_challenge' });
      await queryInterface.addIndex('auth_passkey_challenges', ['expires_at'], { name: 'auth_passkey_challenges_expires' });
    },
  },
];
