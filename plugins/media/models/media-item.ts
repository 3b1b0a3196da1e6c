import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

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
        id: column.id(),
        tenant_id: column.tenantId(),
        filename: column.string(191),
        original_name: column.string(255),
        mime_type: column.string(127),
        size: { type: DataTypes.BIGINT, allowNull: false },
        path: column.string(400, { unique: true }),
        checksum: column.string(64),
        width: column.integer({ nullable: true }),
        height: column.integer({ nullable: true }),
        folder_id: column.uuid({ nullable: true }),
        owner_id: column.string(64, { nullable: true }),
        private: column.flag(),
        metadata: { type: sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium'), allowNull: false },
        storage: column.string(64),
        created_month: column.string(7),
        created_at: column.epochMs(),
        updated_at: column.epochMs(),
        deleted_at: column.epochMs({ nullable: true }),
      },
      tableOf(sequelize, 'media_items'),
    );
  }
}
