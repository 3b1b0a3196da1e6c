/**
 * The `backup` data domain (restore): mode replace only, always inline, transactional. The engine
 * (plugins/data-ops) runs Validate -> Snapshot -> Plan -> Confirm -> Lock -> Apply -> Audit -> Verify.
 *
 * - validate: the backup exists; for an encrypted one the passphrase derives the right key. The key is
 *   kept in this instance's memory under a random `keyRef` (expiring); the stored plan input holds only
 *   `{backupId, keyRef, encrypted}`, never the passphrase or the key.
 * - snapshot: a hash of the current checksums (count + order-independent row hash) of every table the
 *   restore replaces.
 * - plan: per collection `delete N` (the current rows) then `create M` (the backup's rows); the config
 *   tables (roles, themes replaced; public settings upserted); media records and missing media files
 *   when the backup has media. A damaged backup (checksums) or a collection missing here blocks the plan.
 * - apply: deletes and inserts in batches inside the engine's transaction (on SQLite this holds the
 *   write gate for the whole restore: acceptable, restore is maintenance). Media files are written
 *   through the storage driver outside the transaction, with an Undo that removes the files it added.
 * - verify: each restored table's row count and checksum equal the backup's.
 */
import { createHash, randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { z } from 'zod';
import { ValidationError } from '../../kernel/errors.js';
import type { CollectionsService, EntriesService } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import type { DataDomainDefinition, DataOperation, DomainContext, PlanDraft, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import type { BackupsService } from './backups-service.js';
import { BACKUP_ID, type BackupManifest } from './format.js';
import { columnsOf, fromJsonRow, quote, tableChecksum, tableExists, type Row } from './tables.js';

export interface RestoreInput {
  backupId: string;
  keyRef: string | null;
  encrypted: boolean;
}

type Payload =
  | { kind: 'clear'; table: string; collection?: string }
  | { kind: 'rows'; table: string; file: string; collection?: string }
  | { kind: 'config'; part: 'roles' | 'themes' | 'settings'; table: string }
  | { kind: 'media-files' };

const CONFIG_TABLES = { roles: 'auth_roles', themes: 'themes', settings: 'cms_settings' } as const;

const inputSchema = z.object({
  backupId: z.string().regex(BACKUP_ID, 'a backup id from GET /api/backups'),
  passphrase: z.string().min(1).max(1024).optional(),
  keyRef: z.string().uuid().nullable().optional(),
  encrypted: z.boolean().optional(),
});

export interface DomainDeps {
  service: () => BackupsService;
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  mediaStorage: () => MediaStorage | undefined;
  entries: () => EntriesService | undefined;
  pageSize: number;
}

export function backupDomain(d: DomainDeps): DataDomainDefinition<RestoreInput> & {
  keyOf(input: RestoreInput): Buffer | null;
  forget(input: RestoreInput): void;
  invalidateLists(planId: string, backupId: string): Promise<void>;
} {
  /** Tenants whose rows a restore touched, per plan: their collection list caches are cleared after it. */
  const touched = new Map<string, Set<string>>();
  const touch = (planId: string, tenants: Iterable<string>) => {
    let set = touched.get(planId);
    if (!set) touched.set(planId, (set = new Set()));
    for (const t of tenants) set.add(t);
  };

  const keyOf = (input: RestoreInput): Buffer | null => {
    if (!input.encrypted) return null;
    const held = input.keyRef ? d.service().keys.get(`restore:${input.keyRef}`) : null;
    if (!held)
      throw new ValidationError(
        'The passphrase of this encrypted backup is no longer held (it expired, the instance restarted, or another instance made the plan): plan the restore again with the passphrase',
      );
    return held.key;
  };

  /** Every table the restore replaces, with whether it has an `id` key (paged) or is a small config table. */
  const affected = async (m: BackupManifest): Promise<Array<{ table: string; hasId: boolean }>> => {
    const sequelize = d.sequelize();
    const out: Array<{ table: string; hasId: boolean }> = [];
    for (const c of m.collections) if (await tableExists(sequelize, c.table)) out.push({ table: c.table, hasId: true });
    for (const t of Object.values(CONFIG_TABLES)) if (await tableExists(sequelize, t)) out.push({ table: t, hasId: t === 'themes' });
    if (m.includesMedia)
      for (const t of [m.media.items, m.media.folders])
        if (t && (await tableExists(sequelize, t.table))) out.push({ table: t.table, hasId: true });
    return out;
  };

  const distinctTenants = async (table: string, transaction?: Transaction): Promise<string[]> => {
    const sequelize = d.sequelize();
    const rows = await sequelize.query<{ t: string }>(
      `SELECT DISTINCT ${quote(sequelize, 'tenant_id')} AS t FROM ${quote(sequelize, table)}`,
      { type: QueryTypes.SELECT, transaction },
    );
    return rows.map((r) => r.t);
  };

  const insertRows = async (
    table: string,
    rows: AsyncIterable<Row> | Row[],
    ctx: DomainContext,
    planId: string,
    tenantsOf: boolean,
  ): Promise<number> => {
    const sequelize = d.sequelize();
    const columns = new Set(await columnsOf(sequelize, table, ctx.transaction));
    const qi = sequelize.getQueryInterface();
    let batch: Row[] = [];
    let n = 0;
    const tenants = new Set<string>();
    const flush = async () => {
      if (!batch.length) return;
      await qi.bulkInsert(table, batch, { transaction: ctx.transaction });
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
    touch(planId, tenants);
    return n;
  };

  return {
    id: 'backup',
    auditDomain: 'backup',
    modes: ['replace'],
    defaultMode: 'replace',
    inlineThreshold: Number.POSITIVE_INFINITY,
    transactional: true,

    async validate(raw: unknown): Promise<RestoreInput> {
      const parsed = inputSchema.safeParse(raw);
      if (!parsed.success) {
        throw new ValidationError(
          'Invalid restore input',
          parsed.error.issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message })),
        );
      }
      const { backupId, passphrase, keyRef } = parsed.data;
      const m = await d.service().manifest(backupId);
      // Already normalised (the engine validating a stored plan's input again): the key must still be held.
      if (keyRef !== undefined && passphrase === undefined) {
        const input = { backupId, keyRef: keyRef ?? null, encrypted: m.encrypted };
        keyOf(input);
        return input;
      }
      const key = await d.service().keyOf(m, passphrase);
      if (!key) return { backupId, keyRef: null, encrypted: false };
      const ref = randomUUID();
      d.service().keys.put(`restore:${ref}`, key);
      return { backupId, keyRef: ref, encrypted: true };
    },

    async snapshot(input: RestoreInput): Promise<string> {
      const m = await d.service().manifest(input.backupId);
      const hash = createHash('sha256');
      for (const { table, hasId } of await affected(m)) {
        const s = await tableChecksum(d.sequelize(), table, d.pageSize, hasId);
        hash.update(`${table}:${s.rows}:${s.checksum}\n`);
      }
      return hash.digest('hex');
    },

    async plan(input: RestoreInput, _mode, ctx: DomainContext): Promise<PlanDraft> {
      const service = d.service();
      const sequelize = d.sequelize();
      const m = await service.manifest(input.backupId);
      const operations: DataOperation[] = [];
      const warnings: PlanDraft['warnings'] = [];
      const blockedReasons: string[] = [];
      const check = await service.validate(input.backupId);
      for (const p of check.problems) if (!/give its passphrase/.test(p)) blockedReasons.push(`Backup damaged: ${p}`);
      const key = keyOf(input);
      let schemas: Row[] = [];
      try {
        schemas = (await service.readConfig(m, key)).collections;
      } catch {
        blockedReasons.push('config.json could not be read (damaged, or the key does not decrypt it)');
      }
      const here = new Map(
        d
          .collections()
          .list()
          .map((c) => [c.name, c]),
      );
      for (const c of m.collections) {
        const current = here.get(c.name);
        if (!current) {
          blockedReasons.push(`Collection '${c.name}' of the backup does not exist on this instance: create it (same fields) first`);
          continue;
        }
        const saved = schemas.find((s) => s.name === c.name);
        if (saved && typeof saved.fields === 'string' && JSON.stringify(JSON.parse(saved.fields)) !== JSON.stringify(current.fields)) {
          warnings.push({
            message: `Collection '${c.name}' has other fields than in the backup: values of fields missing here are dropped`,
            item: c.name,
          });
        }
        const now = await tableChecksum(sequelize, current.table, d.pageSize).then((s) => s.rows);
        if (now > 0)
          operations.push({
            action: 'delete',
            type: 'entry',
            target: c.name,
            count: now,
            payload: { kind: 'clear', table: current.table, collection: c.name } satisfies Payload,
          });
        if (c.rows > 0)
          operations.push({
            action: 'create',
            type: 'entry',
            target: c.name,
            count: c.rows,
            payload: { kind: 'rows', table: current.table, file: c.file, collection: c.name } satisfies Payload,
          });
      }
      for (const name of here.keys())
        if (!m.collections.some((c) => c.name === name))
          warnings.push({ message: `Collection '${name}' is not in the backup: left as it is`, item: name });
      for (const [part, table] of Object.entries(CONFIG_TABLES) as Array<[keyof typeof CONFIG_TABLES, string]>) {
        const n = m.config[part];
        if (!n || !(await tableExists(sequelize, table))) continue;
        operations.push({
          action: 'update',
          type: 'config',
          target: part,
          count: n,
          payload: { kind: 'config', part, table } satisfies Payload,
        });
      }
      if (m.includesMedia) {
        for (const t of [m.media.folders, m.media.items]) {
          if (!t || !(await tableExists(sequelize, t.table))) continue;
          const now = (await tableChecksum(sequelize, t.table, d.pageSize)).rows;
          if (now > 0)
            operations.push({
              action: 'delete',
              type: 'media-record',
              target: t.table,
              count: now,
              payload: { kind: 'clear', table: t.table } satisfies Payload,
            });
          if (t.rows > 0)
            operations.push({
              action: 'create',
              type: 'media-record',
              target: t.table,
              count: t.rows,
              payload: { kind: 'rows', table: t.table, file: t.file } satisfies Payload,
            });
        }
        if (m.media.files > 0)
          operations.push({
            action: 'create',
            type: 'media-file',
            target: 'media files',
            count: m.media.files,
            payload: { kind: 'media-files' } satisfies Payload,
          });
        if (!d.mediaStorage()) blockedReasons.push("Media storage is not available: the backup's media files cannot be put back");
        if (m.media.missingFiles.length)
          warnings.push({ message: `${m.media.missingFiles.length} media file(s) were missing when the backup was made` });
      } else {
        warnings.push({ message: 'The backup holds no media files: media records and files are left as they are' });
      }
      if (m.db.dialect !== sequelize.getDialect())
        warnings.push({ message: `The backup was made on ${m.db.dialect}; this instance runs ${sequelize.getDialect()}` });
      ctx.logger.debug({ backupId: m.backupId, operations: operations.length }, 'backup restore planned');
      return { operations, warnings, blockedReasons, targetHash: await this.snapshot(input, ctx), risk: 'destructive' };
    },

    async apply(operation: DataOperation, ctx: DomainContext & { plan: StoredPlan }): Promise<Undo | void> {
      const input = ctx.plan.input as RestoreInput;
      const p = operation.payload as Payload;
      const sequelize = d.sequelize();
      const service = d.service();
      const m = await service.manifest(input.backupId);
      const key = keyOf(input);
      const t = ctx.transaction;
      if (p.kind === 'clear') {
        if (p.collection) touch(ctx.plan.planId, await distinctTenants(p.table, t));
        await sequelize.query(`DELETE FROM ${quote(sequelize, p.table)}`, { transaction: t });
        return;
      }
      if (p.kind === 'rows') {
        await insertRows(p.table, service.rows(m, p.file, key), ctx, ctx.plan.planId, Boolean(p.collection));
        return;
      }
      if (p.kind === 'config') {
        const config = await service.readConfig(m, key);
        const rows = config[p.part] ?? [];
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
        await insertRows(p.table, rows, ctx, ctx.plan.planId, false);
        return;
      }
      // Media files: put back the ones the storage does not have (outside the transaction; undone by deleting them).
      const storage = d.mediaStorage();
      if (!storage) throw new Error('Media storage is not available');
      const added: string[] = [];
      for (const f of m.files) {
        if (!f.path.startsWith('media/files/')) continue;
        const path = f.path.slice('media/files/'.length);
        if (await storage.head(path).catch(() => null)) continue;
        await storage.put(path, service.fileStream(m, f.path, key));
        added.push(path);
      }
      return async () => {
        for (const path of added.reverse()) await storage.delete(path).catch(() => undefined);
      };
    },

    async verify(plan: StoredPlan): Promise<VerifyResult> {
      const input = plan.input as RestoreInput;
      const m = await d.service().manifest(input.backupId);
      const sequelize = d.sequelize();
      const discrepancies: string[] = [];
      const tables: Array<{ label: string; table: string; rows: number; checksum: string }> = m.collections.map((c) => ({
        label: `collection '${c.name}'`,
        ...c,
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
      return { ok: discrepancies.length === 0, discrepancies };
    },

    keyOf,
    forget(input: RestoreInput) {
      if (input.keyRef) d.service().keys.delete(`restore:${input.keyRef}`);
    },

    /** Clears the collection list caches (every filtered/sorted variant, by prefix) of every tenant the restore touched. */
    async invalidateLists(planId: string, backupId: string): Promise<void> {
      const entries = d.entries();
      const tenants = touched.get(planId) ?? new Set<string>();
      touched.delete(planId);
      tenants.add('default');
      if (!entries) return;
      const m = await d.service().manifest(backupId);
      for (const c of m.collections) {
        for (const tenant of tenants) await entries.invalidateLists(tenant, c.name).catch(() => undefined);
      }
    },
  };
}
