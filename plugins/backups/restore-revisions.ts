/**
 * Revisions after a restore: the content plugin keeps one revision per write of an entry (content_revisions, unique on
 * collection, entry and version), numbered by the entry's version. A restore puts the entries back at the versions
 * they had when the backup was made, so the revisions written since describe a state that is gone and would take the
 * version numbers of the next writes (the next edit of such an entry failed on the unique index). The restore deletes,
 * for each collection it replaces, the revisions newer than their entry's restored version and those of entries the
 * restore leaves out; the history up to the backup stays (docs/operations/backups.md).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { DataOperation } from '../data-ops/public.js';
import type { BackupManifest } from './format.js';
import type { Payload } from './restore-types.js';
import { quote, tableExists } from './tables.js';

const REVISIONS = 'content_revisions';

/** The plan's operation: the revisions of the collection written after the backup was made (their count, at plan time). */
export async function planLaterRevisions(
  sequelize: Sequelize,
  m: BackupManifest,
  collection: string,
  table: string,
  operations: DataOperation[],
): Promise<void> {
  if (!(await tableExists(sequelize, REVISIONS))) return;
  const [row] = await sequelize.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${quote(sequelize, REVISIONS)} WHERE ${quote(sequelize, 'collection')} = :collection AND ${quote(sequelize, 'created_at')} >= :since`,
    { type: QueryTypes.SELECT, replacements: { collection, since: Date.parse(m.createdAt) || 0 } },
  );
  const count = Number(row?.n ?? 0);
  if (count > 0)
    operations.push({
      action: 'delete',
      type: 'revision',
      target: `${collection}: revisions written after the backup`,
      count,
      payload: { kind: 'later-revisions', table, collection } satisfies Payload,
    });
}

/** Deletes the collection's revisions that no restored entry reaches (after its rows are back, in the transaction). */
export async function dropLaterRevisions(
  sequelize: Sequelize,
  p: Extract<Payload, { kind: 'later-revisions' }>,
  transaction?: Transaction,
): Promise<void> {
  const r = quote(sequelize, REVISIONS);
  const q = (c: string) => quote(sequelize, c);
  await sequelize.query(
    `DELETE FROM ${r} WHERE ${q('collection')} = :collection AND NOT EXISTS (SELECT 1 FROM ${quote(sequelize, p.table)} e ` +
      `WHERE e.${q('id')} = ${r}.${q('entry_id')} AND e.${q('tenant_id')} = ${r}.${q('tenant_id')} AND e.${q('version')} >= ${r}.${q('version')})`,
    { replacements: { collection: p.collection }, transaction },
  );
}
