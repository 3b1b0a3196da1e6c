import { DataTypes, Model, type Sequelize } from 'sequelize';

/** A website token (personal access token): bearer, bound to its creator's tenant and current permissions. */
export class WebsiteToken extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string;
  declare name: string;
  declare token_hash: string;
  declare expires_at: number | null;
  /** JSON array narrowing the creator's permissions; null: all of them. */
  declare permissions: string | null;
  declare last_used_at: number | null;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        name: { type: DataTypes.STRING(191), allowNull: false },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        expires_at: { type: DataTypes.BIGINT, allowNull: true },
        permissions: { type: DataTypes.TEXT, allowNull: true },
        last_used_at: { type: DataTypes.BIGINT, allowNull: true },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
      },
      { sequelize, tableName: 'auth_website_tokens', timestamps: false },
    );
  }
}
