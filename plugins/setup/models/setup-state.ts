import { DataTypes, Model, type Sequelize } from 'sequelize';
import { tableOf } from '../../../kernel/sdk.js';

/** The one row of setup state. */
export class SetupStateRow extends Model {
  declare id: number;
  declare state: 'incomplete' | 'seeded' | 'completing' | 'ready';
  declare db_validated: boolean;
  declare seeded: boolean;
  declare progress: number;
  declare error: string | null;
  declare completed_at: number | null;

  static initModel(sequelize: Sequelize): void {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        state: DataTypes.STRING(16),
        db_validated: DataTypes.BOOLEAN,
        seeded: DataTypes.BOOLEAN,
        progress: DataTypes.INTEGER,
        error: DataTypes.TEXT,
        completed_at: DataTypes.BIGINT,
      },
      tableOf(sequelize, 'setup_state'),
    );
  }
}
