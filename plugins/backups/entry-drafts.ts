/**
 * Working drafts in a backup (docs/features/drafts.md): every row of content_entry_drafts of the backed-up collections
 * (the content plugin's table of drafts beside published entries, keyed as content_entry_locales is) goes into
 * `content-drafts/entries.ndjson`, written, checksummed, restored and verified as the entries' versions in other
 * locales are (entry-locales.ts, whose page reader, count, clear and checksum take the table). The manifest names it in
 * `entryDrafts`; a backup made before drafts were carried restores as before and leaves the drafts here as they are.
 */
import type { Sequelize } from 'sequelize';
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import { countEntryLocales } from './entry-locales.js';
import type { BackupManifest, TableInfo } from './format.js';
import type { Payload } from './restore-types.js';
import { tableExists } from './tables.js';

export const ENTRY_DRAFTS_TABLE = 'content_entry_drafts';
export const ENTRY_DRAFTS_FILE = 'content-drafts/entries.ndjson';

/** The manifest's record of the file, when the backup carries one. */
export function entryDraftsOf(m: BackupManifest): TableInfo | null {
  const info = m.entryDrafts;
  return info && typeof info.file === 'string' ? info : null;
}

/** The restore's operations for the drafts: delete those of the backup's collections here, then insert the backup's. */
export async function planEntryDrafts(
  sequelize: Sequelize,
  m: BackupManifest,
  draft: { operations: DataOperation[]; warnings: PlanDraft['warnings'] },
): Promise<void> {
  const info = entryDraftsOf(m);
  if (!info) return;
  if (!(await tableExists(sequelize, ENTRY_DRAFTS_TABLE))) {
    if (info.rows > 0)
      draft.warnings.push({ message: 'The backup holds working drafts but this instance has no table for them: they are left out' });
    return;
  }
  const collections = m.collections.map((c) => c.name);
  const now = await countEntryLocales(sequelize, collections, undefined, ENTRY_DRAFTS_TABLE);
  const target = 'working drafts';
  if (now > 0)
    draft.operations.push({
      action: 'delete',
      type: 'entry-draft',
      target,
      count: now,
      payload: { kind: 'entry-drafts-clear', collections } satisfies Payload,
    });
  if (info.rows > 0)
    draft.operations.push({
      action: 'create',
      type: 'entry-draft',
      target,
      count: info.rows,
      payload: { kind: 'entry-drafts', file: info.file } satisfies Payload,
    });
}
