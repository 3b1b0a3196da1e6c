import { QueryTypes, type Sequelize } from 'sequelize';
import { SERIES_BY_NAME, type MetricPoint, type Resolution } from './time-series.js';

const TABLE = 'dashboard_metric_points';
/** Rows per INSERT statement. */
const CHUNK = 200;

/**
 * The table dashboard_metric_points (migration 0002): one row per series, tenant, bucket size and
 * bucket. Counters are written with an upsert that ADDS to the row, so several instances flushing
 * their own counts into one MariaDB sum up; gauges with an upsert that replaces (every instance
 * measures the same storage). SQLite (ON CONFLICT ... DO UPDATE) and MariaDB (ON DUPLICATE KEY UPDATE).
 */
export class MetricPointStore {
  private readonly mariadb: boolean;

  constructor(private readonly sequelize: Sequelize) {
    this.mariadb = sequelize.getDialect() !== 'sqlite';
  }

  private upsert(rows: number, add: boolean): string {
    const insert = `INSERT INTO ${TABLE} (series, tenant_id, resolution, bucket_start, amount) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;
    if (this.mariadb) return `${insert} ON DUPLICATE KEY UPDATE amount = ${add ? 'amount + VALUES(amount)' : 'VALUES(amount)'}`;
    return `${insert} ON CONFLICT (series, tenant_id, resolution, bucket_start) DO UPDATE SET amount = ${add ? `${TABLE}.amount + excluded.amount` : 'excluded.amount'}`;
  }

  /** Writes points in one transaction (all or none, so a failed flush can be retried without counting twice). */
  async write(points: MetricPoint[]): Promise<void> {
    if (!points.length) return;
    const counters = points.filter((p) => SERIES_BY_NAME.get(p.series)?.kind === 'counter');
    const gauges = points.filter((p) => SERIES_BY_NAME.get(p.series)?.kind === 'gauge');
    await this.sequelize.transaction(async (transaction) => {
      for (const [list, add] of [
        [counters, true],
        [gauges, false],
      ] as const) {
        for (let i = 0; i < list.length; i += CHUNK) {
          const chunk = list.slice(i, i + CHUNK);
          await this.sequelize.query(this.upsert(chunk.length, add), {
            replacements: chunk.flatMap((p) => [p.series, p.tenantId, p.resolution, p.bucketStart, Math.round(p.value)]),
            transaction,
          });
        }
      }
    });
  }

  /** Stored points of some series and tenants at one bucket size, from a bucket start on. */
  async read(series: string[], tenantIds: string[], resolution: Resolution, fromBucket: number): Promise<MetricPoint[]> {
    if (!series.length || !tenantIds.length) return [];
    const rows = await this.sequelize.query<{ series: string; tenant_id: string; bucket_start: number | string; amount: number | string }>(
      `SELECT series, tenant_id, bucket_start, amount FROM ${TABLE}
       WHERE resolution = ? AND series IN (?) AND tenant_id IN (?) AND bucket_start >= ?`,
      { replacements: [resolution, series, tenantIds, fromBucket], type: QueryTypes.SELECT },
    );
    return rows.map((r) => ({
      series: r.series,
      tenantId: r.tenant_id,
      resolution,
      bucketStart: Number(r.bucket_start),
      value: Number(r.amount),
    }));
  }

  /** Deletes buckets past their retention. */
  async prune(cutoffs: Array<{ resolution: Resolution; before: number }>): Promise<void> {
    for (const c of cutoffs)
      await this.sequelize.query(`DELETE FROM ${TABLE} WHERE resolution = ? AND bucket_start < ?`, {
        replacements: [c.resolution, c.before],
      });
  }
}
