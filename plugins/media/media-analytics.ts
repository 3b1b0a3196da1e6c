import { QueryTypes, type Sequelize } from 'sequelize';

export interface MediaAnalytics {
  total: { count: number; bytes: number };
  byType: Array<{ type: string; count: number; bytes: number }>;
  byMonth: Array<{ month: string; count: number; bytes: number }>;
  byFolder: Array<{ folderId: string | null; name: string | null; count: number; bytes: number }>;
}

type Row = { count: number | string; bytes: number | string | null };
const figures = (r: Row) => ({ count: Number(r.count), bytes: Number(r.bytes ?? 0) });

/**
 * Counts and bytes of a tenant's media (trash excluded), grouped in SQL: by detected type, by upload
 * month (UTC, YYYY-MM) and by virtual folder (folderId null = the root; name null for it).
 */
export async function mediaAnalytics(sequelize: Sequelize, tenantId: string): Promise<MediaAnalytics> {
  const q = <T extends object>(sql: string) => sequelize.query<T & Row>(sql, { replacements: [tenantId], type: QueryTypes.SELECT });
  const live = 'm.tenant_id = ? AND m.deleted_at IS NULL';
  const [total] = await q<object>(`SELECT COUNT(*) AS count, SUM(m.size) AS bytes FROM media_items m WHERE ${live}`);
  const byType = await q<{ type: string }>(
    `SELECT m.mime_type AS type, COUNT(*) AS count, SUM(m.size) AS bytes FROM media_items m WHERE ${live} GROUP BY m.mime_type ORDER BY bytes DESC, type`,
  );
  const byMonth = await q<{ month: string }>(
    `SELECT m.created_month AS month, COUNT(*) AS count, SUM(m.size) AS bytes FROM media_items m WHERE ${live} GROUP BY m.created_month ORDER BY month`,
  );
  const byFolder = await q<{ folderId: string | null; name: string | null }>(
    `SELECT m.folder_id AS folderId, f.name AS name, COUNT(*) AS count, SUM(m.size) AS bytes FROM media_items m
     LEFT JOIN media_folders f ON f.id = m.folder_id AND f.tenant_id = m.tenant_id
     WHERE ${live} GROUP BY m.folder_id, f.name ORDER BY bytes DESC, name`,
  );
  return {
    total: total ? figures(total) : { count: 0, bytes: 0 },
    byType: byType.map((r) => ({ type: r.type, ...figures(r) })),
    byMonth: byMonth.map((r) => ({ month: r.month, ...figures(r) })),
    byFolder: byFolder.map((r) => ({ folderId: r.folderId ?? null, name: r.name ?? null, ...figures(r) })),
  };
}
