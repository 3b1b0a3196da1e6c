import { DataTypes, Model, type Sequelize } from 'sequelize';

/** One uploaded file: where it lives (relative path and driver), what it is, who owns it, its share links. */
export class MediaItem extends Model {
  declare id: string;
  declare tenant_id: string;
  declare filename: string;
  declare original_name: string;
  declare mime_type: string;
  declare size: number;
  declare path: string;
  declare checksum: string;
  declare width: number | null;
  declare height: number | null;
  declare folder_id: string | null;
  declare owner_id: string | null;
  declare private: boolean;
  /** JSON text: {sharedLinks: [...], thumbnails: {name: {path, width, height, size}}}. */
  declare metadata: string;
  declare storage: string;
  declare created_month: string;
  declare created_at: number;
  declare updated_at: number;
  /** Set while the file is in the local driver's trash. */
  declare deleted_at: number | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: { type: DataTypes.STRING(64), allowNull: false },
        filename: { type: DataTypes.STRING(191), allowNull: false },
        original_name: { type: DataTypes.STRING(255), allowNull: false },
        mime_type: { type: DataTypes.STRING(127), allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        path: { type: DataTypes.STRING(400), allowNull: false, unique: true },
        checksum: { type: DataTypes.STRING(64), allowNull: false },
        width: { type: DataTypes.INTEGER, allowNull: true },
        height: { type: DataTypes.INTEGER, allowNull: true },
        folder_id: { type: DataTypes.STRING(36), allowNull: true },
        owner_id: { type: DataTypes.STRING(64), allowNull: true },
        private: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        metadata: { type: sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium'), allowNull: false },
        storage: { type: DataTypes.STRING(64), allowNull: false },
        created_month: { type: DataTypes.STRING(7), allowNull: false },
        created_at: { type: DataTypes.BIGINT, allowNull: false },
        updated_at: { type: DataTypes.BIGINT, allowNull: false },
        deleted_at: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'media_items', timestamps: false },
    );
  }
}
