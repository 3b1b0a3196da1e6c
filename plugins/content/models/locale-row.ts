import { Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** A content locale (API decisions, "Locales"): configuration of the installation, shared by every tenant. */
export class LocaleRow extends Model {
  declare code: string;
  declare name: string;
  declare is_default: boolean;
  declare fallback: string | null;
  declare created_at: number;
  declare updated_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        code: column.key(35),
        name: column.string(191),
        is_default: column.flag(),
        fallback: column.string(35, { nullable: true }),
        created_at: column.epochMs(),
        updated_at: column.epochMs(),
      },
      tableOf(sequelize, 'content_locales'),
    );
  }
}
