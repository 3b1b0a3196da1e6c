import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A virtual folder of the media library (names unique per parent and tenant; parent_key is '' at the root). */
export class MediaFolder extends Model {
  declare id: string;
  declare tenant_id: string;
  declare name: string;
  declare parent_id: string | null;
  declare parent_key: string;
  declare created_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.id(),
        tenant_id: column.tenantId(),
        name: column.string(191),
        parent_id: column.uuid({ nullable: true }),
        parent_key: column.uuid(),
        created_at: column.epochMs(),
      },
      tableOf(sequelize, 'media_folders'),
    );
  }
}
