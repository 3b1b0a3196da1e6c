/**
 * The `backup` data domain (restore): mode replace only, always inline, transactional. The engine
 * (plugins/data-ops) runs Validate -> Snapshot -> Plan -> Confirm -> Lock -> Apply -> Audit -> Verify.
 * Each step has its module:
 *
 * - validate: restore-input.ts (the backup, its key held under a `keyRef`, never stored);
 * - snapshot: here, a hash of the current checksums (count + order-independent row hash) of every table
 *   the restore replaces;
 * - plan: restore-plan.ts;
 * - apply: restore-apply.ts. After the commit, the cached sessions of users holding a role the restore
 *   changed are dropped (sessions.forgetUser) and the themes' cache of every tenant with themes
 *   (themes.changed): restore-caches.ts;
 * - verify: here, each restored table's row count and checksum equal the backup's.
 */
import { createHash } from 'node:crypto';
import type { DataDomainDefinition, StoredPlan, VerifyResult } from '../data-ops/public.js';
import type { BackupManifest, TableInfo } from './format.js';
import { applyRestoreOperation } from './restore-apply.js';
import { RestoreCaches } from './restore-caches.js';
import { forgetRestoreKey, restoreKey, validateRestoreInput } from './restore-input.js';
import { planRestore } from './restore-plan.js';
import { CONFIG_TABLES, tableOf, type DomainDeps, type RestoreInput } from './restore-types.js';
import { tableChecksum, tableExists } from './tables.js';
import { ENTRY_LOCALES_TABLE, entryLocalesChecksum, entryLocalesOf } from './entry-locales.js';
import { ENTRY_DRAFTS_TABLE, entryDraftsOf } from './entry-drafts.js';
import { ENTRY_LOCALE_TIMES_TABLE, entryLocaleTimesOf } from './entry-locale-times.js';

export type { DomainDeps, RestoreInput } from './restore-types.js';

/** Every table the restore replaces, with whether it has an `id` key (paged) or is a small config table. */
async function affectedTables(d: DomainDeps, m: BackupManifest): Promise<Array<{ table: string; hasId: boolean }>> {
  const sequelize = d.sequelize();
  const out: Array<{ table: string; hasId: boolean }> = [];
  for (const c of m.collections) if (await tableExists(sequelize, c.table)) out.push({ table: c.table, hasId: true });
  for (const t of Object.values(CONFIG_TABLES)) if (await tableExists(sequelize, t)) out.push({ table: t, hasId: t === 'themes' });
  if (m.includesMedia)
    for (const t of [m.media.items, m.media.folders])
      if (t && (await tableExists(sequelize, t.table))) out.push({ table: t.table, hasId: true });
  return out;
}

/** The content plugin's side tables the backup carries (entry-locales.ts, entry-drafts.ts, entry-locale-times.ts). */
function sideTablesOf(m: BackupManifest): Array<{ tag: string; table: string; label: string; info: TableInfo }> {
  const sides = [
    { tag: 'entry-locales', table: ENTRY_LOCALES_TABLE, label: "entries' versions in other locales", info: entryLocalesOf(m) },
    { tag: 'entry-drafts', table: ENTRY_DRAFTS_TABLE, label: 'working drafts', info: entryDraftsOf(m) },
    {
      tag: 'entry-locale-times',
      table: ENTRY_LOCALE_TIMES_TABLE,
      label: "times the default locale's values changed",
      info: entryLocaleTimesOf(m),
    },
  ];
  return sides.filter((x): x is typeof x & { info: TableInfo } => x.info !== null);
}

async function restoreSnapshot(d: DomainDeps, input: RestoreInput): Promise<string> {
  const m = await d.service().manifest(input.backupId);
  const hash = createHash('sha256');
  for (const { table, hasId } of await affectedTables(d, m)) {
    const s = await tableChecksum(d.sequelize(), table, d.pageSize, hasId);
    hash.update(`${table}:${s.rows}:${s.checksum}\n`);
  }
  for (const side of sideTablesOf(m)) {
    const s = await entryLocalesChecksum(
      d.sequelize(),
      m.collections.map((c) => c.name),
      d.pageSize,
      side.table,
    );
    hash.update(`${side.tag}:${s.rows}:${s.checksum}\n`);
  }
  return hash.digest('hex');
}

async function verifyRestore(d: DomainDeps, plan: StoredPlan): Promise<VerifyResult> {
  const input = plan.input as RestoreInput;
  const m = await d.service().manifest(input.backupId);
  const sequelize = d.sequelize();
  const discrepancies: string[] = [];
  const tables: Array<{ label: string; table: string; rows: number; checksum: string }> = m.collections.map((c) => ({
    label: `collection '${c.name}'`,
    ...c,
    table: tableOf(d, c.name, c.table),
  }));
  if (m.includesMedia) for (const t of [m.media.items, m.media.folders]) if (t) tables.push({ label: `table ${t.table}`, ...t });
  for (const t of tables) {
    if (!(await tableExists(sequelize, t.table))) {
      discrepancies.push(`${t.label}: table ${t.table} is missing`);
      continue;
    }
    const now = await tableChecksum(sequelize, t.table, d.pageSize);
    if (now.rows !== t.rows) discrepancies.push(`${t.label}: ${now.rows} rows, the backup has ${t.rows}`);
    else if (now.checksum !== t.checksum) discrepancies.push(`${t.label}: row checksum differs from the backup's`);
  }
  for (const side of sideTablesOf(m)) {
    const now = await entryLocalesChecksum(
      sequelize,
      m.collections.map((c) => c.name),
      d.pageSize,
      side.table,
    );
    if (now.rows !== side.info.rows) discrepancies.push(`${side.label}: ${now.rows} rows, the backup has ${side.info.rows}`);
    else if (now.checksum !== side.info.checksum) discrepancies.push(`${side.label}: row checksum differs from the backup's`);
  }
  return { ok: discrepancies.length === 0, discrepancies };
}

export interface BackupDomain extends DataDomainDefinition<RestoreInput> {
  keyOf(input: RestoreInput): Buffer | null;
  forget(input: RestoreInput): void;
  invalidateLists(planId: string, backupId: string): Promise<void>;
}

export function backupDomain(d: DomainDeps): BackupDomain {
  const caches = new RestoreCaches(d);
  const snapshot = (input: RestoreInput) => restoreSnapshot(d, input);
  return {
    id: 'backup',
    auditDomain: 'backup',
    modes: ['replace'],
    defaultMode: 'replace',
    inlineThreshold: Number.POSITIVE_INFINITY,
    transactional: true,
    validate: (raw) => validateRestoreInput(d, raw),
    snapshot,
    plan: (input, _mode, ctx) => planRestore(d, input, ctx, snapshot),
    apply: (operation, ctx) => applyRestoreOperation(d, caches, operation, ctx),
    verify: (plan) => verifyRestore(d, plan),
    keyOf: (input) => restoreKey(d, input),
    forget: (input) => forgetRestoreKey(d, input),
    /** Clears the collection list caches (every filtered/sorted variant, by prefix) of every tenant the restore touched. */
    invalidateLists: (planId, backupId) => caches.invalidateLists(planId, backupId),
  };
}
