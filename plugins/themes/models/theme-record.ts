import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A named theme of a tenant: at most one active and one default per tenant; config is JSON (ThemeConfig). */
export class ThemeRecord extends Model {
  declare id: string;
  declare tenant_id: string;
  declare name: string;
  declare is_active: boolean;
  declare is_default: boolean;
  declare config: string;
  declare preset_source: string | null;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: column.id(),
        tenant_id: column.tenantId(),
        name: column.string(100),
        is_active: column.flag(),
        is_default: column.flag(),
        config: column.text(),
        preset_source: column.string(191, { nullable: true }),
        created_at: column.epochMs(),
        updated_at: column.epochMs(),
      },
      tableOf(sequelize, 'themes'),
    );
  }
}
