import { DataTypes, Model, type Sequelize } from 'sequelize';
import { column, tableOf } from '../../../kernel/sdk.js';

/** One row: when this installation was first seen set up (start of the trial of paid widgets). */
export class DashboardInstallation extends Model {
  declare id: number;
  declare installed_at: number;

  static initModel(sequelize: Sequelize): void {
    this.init(
      { id: { type: DataTypes.INTEGER, primaryKey: true }, installed_at: column.epochMs() },
      tableOf(sequelize, 'dashboard_installation'),
    );
  }
}
