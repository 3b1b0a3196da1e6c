import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A sign-in session. The cookie holds a random id; only its SHA-256 is stored. */
export class Session extends Model {
  declare id_hash: string;
  declare public_id: string;
  declare user_id: string;
  declare tenant_id: string;
  declare user_agent: string;
  declare ip: string;
  declare created_at: number;
  declare last_active_at: number;
  declare expires_at: number;
  /** When this session last proved the password (sign-in with it, plus the second factor when on); null: never. */
  declare password_at: number | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id_hash: { type: DataTypes.STRING(64), primaryKey: true },
        public_id: { type: DataTypes.STRING(36), allowNull: false, unique: true },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_agent: { type: DataTypes.STRING(512), allowNull: false },
        ip: { type: DataTypes.STRING(64), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        last_active_at: { type: DataTypes.BIGINT, allowNull: false },
        expires_at: { type: DataTypes.BIGINT, allowNull: false },
        password_at: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'auth_sessions', timestamps: false },
    );
  }
}
