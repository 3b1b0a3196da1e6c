/**
 * When each locale's values of an entry last changed, in a backup (issue 36, the admin UI's "out of date"): the rows
 * of content_entry_locale_times of the backed-up collections (the default locale's time per entry; the other locales'
 * are in their versions' rows, entry-locales.ts) go into `content-locales/times.ndjson`, written, checksummed,
 * restored and verified as the versions are (entry-locales.ts, whose page reader, count, clear and checksum take the
 * table; the key is the same four columns). The manifest names it in `entryLocaleTimes`.
 *
 * A restore deletes the times of the backup's collections here whatever the backup holds (they belong to the values
 * being replaced), then inserts the backup's. A backup made before the times were carried leaves none, so the
 * restored entries' default locale answers their createdAt again, as before.
 */
import type { Sequelize } from 'sequelize';
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import { countEntryLocales } from './entry-locales.js';
import type { BackupManifest, TableInfo } from './format.js';
import type { Payload } from './restore-types.js';
import { tableExists } from './tables.js';

export const ENTRY_LOCALE_TIMES_TABLE = 'content_entry_locale_times';
export const ENTRY_LOCALE_TIMES_FILE = 'content-locales/times.ndjson';

/** The manifest's record of the file, when the backup carries one. */
export function entryLocaleTimesOf(m: BackupManifest): TableInfo | null {
  const info = m.entryLocaleTimes;
  return info && typeof info.file === 'string' ? info : null;
}

/** The restore's operations for the times: delete those of the backup's collections here, then insert the backup's. */
export async function planEntryLocaleTimes(
  sequelize: Sequelize,
  m: BackupManifest,
  draft: { operations: DataOperation[]; warnings: PlanDraft['warnings'] },
): Promise<void> {
  if (!(await tableExists(sequelize, ENTRY_LOCALE_TIMES_TABLE))) return;
  const info = entryLocaleTimesOf(m);
  const collections = m.collections.map((c) => c.name);
  const now = await countEntryLocales(sequelize, collections, undefined, ENTRY_LOCALE_TIMES_TABLE);
  const target = "times the default locale's values last changed";
  if (now > 0)
    draft.operations.push({
      action: 'delete',
      type: 'entry-locale-time',
      target,
      count: now,
      payload: { kind: 'entry-locale-times-clear', collections } satisfies Payload,
    });
  if (info && info.rows > 0)
    draft.operations.push({
      action: 'create',
      type: 'entry-locale-time',
      target,
      count: info.rows,
      payload: { kind: 'entry-locale-times', file: info.file } satisfies Payload,
    });
}
