/**
 * Apply step of a restore, one function per kind of planned operation. Missing collections are created
 * through the content plugin's CollectionsService before the transaction opens (DDL), each with an Undo
 * that drops it again. Deletes and inserts run in batches inside the engine's transaction (on SQLite this
 * holds the write gate for the whole restore: acceptable, restore is maintenance). Media files are written
 * through the storage driver outside the transaction, with an Undo that removes the files it added.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { CollectionsService } from '../content/public.js';
import type { DataOperation, DomainContext, StoredPlan, Undo } from '../data-ops/public.js';
import type { BackupManifest } from './format.js';
import type { RestoreCaches } from './restore-caches.js';
import { restoreKey } from './restore-input.js';
import { tableOf, type DomainDeps, type Payload, type RestoreInput } from './restore-types.js';
import { columnsOf, fromJsonRow, quote, type Row } from './tables.js';
import { restoreComponent } from './restore-components.js';
import { restoreLocales } from './restore-locales.js';
import { clearEntryLocales, ENTRY_LOCALES_TABLE } from './entry-locales.js';
import { ENTRY_DRAFTS_TABLE } from './entry-drafts.js';
import { ENTRY_LOCALE_TIMES_TABLE } from './entry-locale-times.js';
import { dropLaterRevisions } from './restore-revisions.js';

type ApplyContext = DomainContext & { plan: StoredPlan };

/** What every apply function reads: the deps, the caches to note, the backup and its key. */
interface Step {
  d: DomainDeps;
  caches: RestoreCaches;
  m: BackupManifest;
  key: Buffer | null;
  ctx: ApplyContext;
}

/** Bound parameters per INSERT statement, under SQLite's limit (32766) and MariaDB's (65535). */
const MAX_BOUND = 30_000;

/**
 * Inserts rows with bound parameters: values reach the database as the driver's typed values, never as
 * SQL text. A double written as a literal is parsed again by the database, and SQLite's parser can land
 * one unit in the last place off (0.1886462 came back as 0.18864619999999999); bound, it is stored
 * bit for bit.
 */
async function insertBound(sequelize: Sequelize, table: string, rows: Row[], transaction: Transaction | undefined): Promise<void> {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!columns.length) return;
  const perStatement = Math.max(1, Math.floor(MAX_BOUND / columns.length));
  const head = `INSERT INTO ${quote(sequelize, table)} (${columns.map((c) => quote(sequelize, c)).join(', ')}) VALUES `;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const bind: unknown[] = [];
    const tuples = chunk.map((r) => `(${columns.map((c) => `$${bind.push(r[c] === undefined ? null : r[c])}`).join(', ')})`);
    await sequelize.query(head + tuples.join(', '), { bind, transaction });
  }
}

/** Inserts the rows in batches of the page size (reporting progress), noting the tenants they belong to when `tenantsOf`. */
async function insertRows(s: Step, table: string, rows: AsyncIterable<Row> | Row[], tenantsOf: boolean): Promise<number> {
  const { d, ctx } = s;
  const sequelize = d.sequelize();
  const columns = new Set(await columnsOf(sequelize, table, ctx.transaction));
  let batch: Row[] = [];
  let n = 0;
  const tenants = new Set<string>();
  const flush = async () => {
    if (!batch.length) return;
    await insertBound(sequelize, table, batch, ctx.transaction);
    n += batch.length;
    batch = [];
    ctx.progress?.(n, n);
  };
  for await (const row of rows) {
    if (ctx.signal?.aborted) throw new Error('Restore interrupted: the instance is stopping');
    const r = fromJsonRow(row, columns);
    if (tenantsOf && typeof r.tenant_id === 'string') tenants.add(r.tenant_id);
    batch.push(r);
    if (batch.length >= d.pageSize) await flush();
  }
  await flush();
  s.caches.touch(ctx.plan.planId, tenants);
  return n;
}

async function distinctTenants(sequelize: Sequelize, table: string, transaction?: Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ t: string }>(
    `SELECT DISTINCT ${quote(sequelize, 'tenant_id')} AS t FROM ${quote(sequelize, table)}`,
    {
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return rows.map((r) => r.t);
}

async function clearTable(s: Step, p: Extract<Payload, { kind: 'clear' }>): Promise<void> {
  const sequelize = s.d.sequelize();
  const t = s.ctx.transaction;
  if (p.collection) s.caches.touch(s.ctx.plan.planId, await distinctTenants(sequelize, p.table, t));
  await sequelize.query(`DELETE FROM ${quote(sequelize, p.table)}`, { transaction: t });
}

/** Outside the transaction (DDL): through the content plugin's collections service; the undo drops it. */
async function createCollection(s: Step, p: Extract<Payload, { kind: 'collection' }>): Promise<Undo> {
  const collections = s.d.collections();
  await collections.create({ name: p.name, label: p.label, singular: p.singular, fields: p.fields } as Parameters<
    CollectionsService['create']
  >[0]);
  return async () => {
    await collections.remove(p.name);
  };
}

async function restoreRows(s: Step, p: Extract<Payload, { kind: 'rows' }>): Promise<void> {
  // A collection created by this restore may have another table name than the backup's.
  const table = p.collection ? tableOf(s.d, p.collection, p.table) : p.table;
  await insertRows(s, table, s.d.service().rows(s.m, p.file, s.key), Boolean(p.collection));
}

async function restoreConfig(s: Step, p: Extract<Payload, { kind: 'config' }>): Promise<void> {
  const sequelize = s.d.sequelize();
  const t = s.ctx.transaction;
  const planId = s.ctx.plan.planId;
  const config = await s.d.service().readConfig(s.m, s.key);
  const rows = config[p.part] ?? [];
  if (p.part === 'roles') await s.caches.noteChangedRoles(planId, p.table, rows, t);
  if (p.part === 'themes') await s.caches.noteThemeTenants(planId, p.table, rows, t);
  if (p.part === 'settings') {
    // Upsert the backed-up public settings; private and secret settings stay as they are.
    for (const r of rows) {
      await sequelize.query(
        `DELETE FROM ${quote(sequelize, p.table)} WHERE ${quote(sequelize, 'tenant_id')} = :t AND ${quote(sequelize, 'key')} = :k`,
        {
          replacements: { t: r.tenant_id, k: r.key },
          transaction: t,
        },
      );
    }
  } else {
    await sequelize.query(`DELETE FROM ${quote(sequelize, p.table)}`, { transaction: t });
  }
  await insertRows(s, p.table, rows, false);
}

/** Media files: put back the ones the storage does not have (outside the transaction; undone by deleting them). */
async function restoreMediaFiles(s: Step): Promise<Undo> {
  const storage = s.d.mediaStorage();
  if (!storage) throw new Error('Media storage is not available');
  const added: string[] = [];
  for (const f of s.m.files) {
    if (!f.path.startsWith('media/files/')) continue;
    const path = f.path.slice('media/files/'.length);
    if (await storage.head(path).catch(() => null)) continue;
    await storage.put(path, s.d.service().fileStream(s.m, f.path, s.key));
    added.push(path);
  }
  return async () => {
    for (const path of added.reverse()) await storage.delete(path).catch(() => undefined);
  };
}

export async function applyRestoreOperation(
  d: DomainDeps,
  caches: RestoreCaches,
  operation: DataOperation,
  ctx: ApplyContext,
): Promise<Undo | void> {
  const input = ctx.plan.input as RestoreInput;
  const p = operation.payload as Payload;
  const m = await d.service().manifest(input.backupId);
  const s: Step = { d, caches, m, key: restoreKey(d, input), ctx };
  switch (p.kind) {
    case 'clear':
      return clearTable(s, p);
    case 'collection':
      return createCollection(s, p);
    case 'rows':
      return restoreRows(s, p);
    case 'config':
      return restoreConfig(s, p);
    case 'component':
      return restoreComponent(d.components(), p);
    case 'locales':
      return restoreLocales(d.locales(), p.locales);
    case 'entry-locales-clear':
      caches.touch(ctx.plan.planId, await clearEntryLocales(d.sequelize(), p.collections, ctx.transaction));
      return;
    case 'entry-locales':
      await insertRows(s, ENTRY_LOCALES_TABLE, d.service().rows(m, p.file, s.key), true);
      return;
    case 'entry-drafts-clear':
      caches.touch(ctx.plan.planId, await clearEntryLocales(d.sequelize(), p.collections, ctx.transaction, ENTRY_DRAFTS_TABLE));
      return;
    case 'entry-drafts':
      await insertRows(s, ENTRY_DRAFTS_TABLE, d.service().rows(m, p.file, s.key), true);
      return;
    case 'entry-locale-times-clear':
      caches.touch(ctx.plan.planId, await clearEntryLocales(d.sequelize(), p.collections, ctx.transaction, ENTRY_LOCALE_TIMES_TABLE));
      return;
    case 'later-revisions':
      return dropLaterRevisions(d.sequelize(), p, ctx.transaction);
    case 'entry-locale-times':
      await insertRows(s, ENTRY_LOCALE_TIMES_TABLE, d.service().rows(m, p.file, s.key), true);
      return;
    default:
      return restoreMediaFiles(s);
  }
}
