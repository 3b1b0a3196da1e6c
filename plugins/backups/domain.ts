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
 *   when the backup has media. A collection of the backup missing here is planned as `create collection`
 *   (outsideTransaction, schema from the backup's config.json, relation targets first) followed by its
 *   rows. A damaged backup (checksums) blocks the plan.
 * - apply: missing collections are created through the content plugin's CollectionsService before the
 *   transaction opens (DDL), each with an Undo that drops it again. Deletes and inserts run in batches
 *   inside the engine's transaction (on SQLite this holds the write gate for the whole restore:
 *   acceptable, restore is maintenance). Media files are written through the storage driver outside the
 *   transaction, with an Undo that removes the files it added. After the commit, the cached sessions of
 *   users holding a role the restore changed are dropped (sessions.forgetUser) and the themes' cache of
 *   every tenant with themes (themes.changed); settings are not cached (SettingsService reads the table).
 * - verify: each restored table's row count and checksum equal the backup's.
 */
import { createHash, randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import type { CollectionsService, EntriesService, FieldDefinition } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import type { DataDomainDefinition, DataOperation, DomainContext, PlanDraft, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import type { BackupsService } from './backups-service.js';
import { BACKUP_ID, type BackupManifest } from './format.js';
import { allRows, columnsOf, fromJsonRow, quote, tableChecksum, tableExists, type Row } from './tables.js';

export interface RestoreInput {
  backupId: string;
  keyRef: string | null;
  encrypted: boolean;
  /** An installation administrator took a backup whose manifest MAC is not this installation's (restore-plan foreign: true). */
  foreign?: boolean;
}

type Payload =
  | { kind: 'clear'; table: string; collection?: string }
  | { kind: 'rows'; table: string; file: string; collection?: string }
  | { kind: 'config'; part: 'roles' | 'themes' | 'settings'; table: string }
  | { kind: 'media-files' }
  | { kind: 'collection'; name: string; label?: string; singular?: string; fields: FieldDefinition[] };

/** Caches dropped after the commit: sessions of users holding a changed role, the themes' branding per tenant. */
interface Pending {
  roles: Map<string, Set<string>>;
  themes: Set<string>;
}

const CONFIG_TABLES = { roles: 'auth_roles', themes: 'themes', settings: 'cms_settings' } as const;

const inputSchema = z.object({
  backupId: z.string().regex(BACKUP_ID, 'a backup id from GET /api/backups'),
  passphrase: z.string().min(1).max(1024).optional(),
  keyRef: z.string().uuid().nullable().optional(),
  encrypted: z.boolean().optional(),
  foreign: z.boolean().optional(),
});

export interface DomainDeps {
  service: () => BackupsService;
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  mediaStorage: () => MediaStorage | undefined;
  entries: () => EntriesService | undefined;
  /** The auth plugin's sessions (their cached role permissions are dropped for users of a restored role). */
  sessions: () => { forgetUser(userId: string): Promise<void> } | undefined;
  /** The auth plugin's API keys and website tokens (cached with their creator's role permissions, dropped the same way). */
  tokens: () => { userChanged(userId: string): Promise<void> } | undefined;
  /** The themes plugin (its cached public branding is dropped per tenant after themes are restored). */
  themes: () => { changed(tenantId: string): Promise<void> } | undefined;
  logger: () => { warn(obj: object, msg: string): void } | undefined;
  pageSize: number;
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

/** The collections of `wanted` (name -> relation targets) in an order where each comes after the ones it relates to. */
function creationOrder(wanted: Map<string, string[]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (seen.has(name) || path.has(name)) return;
    path.add(name);
    for (const target of wanted.get(name) ?? []) if (wanted.has(target)) visit(target, path);
    path.delete(name);
    seen.add(name);
    out.push(name);
  };
  for (const name of wanted.keys()) visit(name, new Set());
  return out;
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

  /** A collection's entry table here (a collection created by the restore gets the content plugin's name). */
  const tableOf = (collection: string, fallback: string): string =>
    d
      .collections()
      .list()
      .find((c) => c.name === collection)?.table ?? fallback;

  /** Caches to drop once the restore's transaction commits, per plan. */
  const pending = new Map<string, Pending>();
  const pendingOf = (planId: string, t: Transaction | undefined): Pending => {
    let p = pending.get(planId);
    if (!p) {
      pending.set(planId, (p = { roles: new Map(), themes: new Set() }));
      if (t) t.afterCommit(() => dropCaches(planId));
    }
    return p;
  };
  /** After commit: every user holding a changed role re-reads it on the next request; the themes' branding is read again. Never throws. */
  const dropCaches = async (planId: string): Promise<void> => {
    const p = pending.get(planId);
    pending.delete(planId);
    if (!p) return;
    const sequelize = d.sequelize();
    const sessions = d.sessions();
    const tokens = d.tokens();
    try {
      if ((sessions || tokens) && p.roles.size && (await tableExists(sequelize, 'auth_users'))) {
        for (const [tenant, names] of p.roles) {
          if (!names.size) continue;
          const users = await sequelize.query<{ id: unknown }>(
            `SELECT ${quote(sequelize, 'id')} AS id FROM ${quote(sequelize, 'auth_users')} WHERE ${quote(sequelize, 'tenant_id')} = :t AND ${quote(sequelize, 'role')} IN (:names)`,
            { type: QueryTypes.SELECT, replacements: { t: tenant, names: [...names] } },
          );
          for (const u of users) {
            await sessions?.forgetUser(String(u.id));
            await tokens?.userChanged(String(u.id));
          }
        }
      }
    } catch (err) {
      d.logger()?.warn({ err, planId }, 'backup restore: dropping the cached sessions of changed roles failed');
    }
    const themes = d.themes();
    for (const tenant of p.themes) {
      try {
        await themes?.changed(tenant);
      } catch (err) {
        d.logger()?.warn({ err, planId, tenantId: tenant }, 'backup restore: dropping the themes cache failed');
      }
    }
  };
  const sig = (r: Row) => JSON.stringify([r.description ?? null, r.permissions == null ? null : String(r.permissions)]);
  /** Roles whose row the restore adds, removes or changes (per tenant): their users' cached sessions are dropped after commit. */
  const noteChangedRoles = async (planId: string, table: string, restored: Row[], t: Transaction | undefined) => {
    const key = (r: Row) => `${String(r.tenant_id)}\u0000${String(r.name)}`;
    const before = new Map((await allRows(d.sequelize(), table, t)).map((r) => [key(r), r]));
    const after = new Map(restored.map((r) => [key(r), r]));
    const p = pendingOf(planId, t);
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      const a = before.get(k);
      const b = after.get(k);
      if (a && b && sig(a) === sig(b)) continue;
      const r = (a ?? b)!;
      const tenant = String(r.tenant_id);
      let names = p.roles.get(tenant);
      if (!names) p.roles.set(tenant, (names = new Set()));
      names.add(String(r.name));
    }
  };
  /** Every tenant with themes before or after the restore: its cached branding is dropped after commit. */
  const noteThemeTenants = async (planId: string, table: string, restored: Row[], t: Transaction | undefined) => {
    const p = pendingOf(planId, t);
    for (const r of [...(await allRows(d.sequelize(), table, t)), ...restored])
      if (typeof r.tenant_id === 'string') p.themes.add(r.tenant_id);
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
      const foreign = parsed.data.foreign === true;
      const m = await d.service().manifest(backupId);
      // The manifest must carry this installation's MAC (nobody changed it), unless taken as foreign.
      await d.service().requireTrusted(m, foreign);
      const extra = foreign ? { foreign: true } : {};
      // Already normalised (the engine validating a stored plan's input again): the key must still be held.
      if (keyRef !== undefined && passphrase === undefined) {
        const input = { backupId, keyRef: keyRef ?? null, encrypted: m.encrypted, ...extra };
        keyOf(input);
        return input;
      }
      const key = await d.service().keyOf(m, passphrase);
      if (!key) return { backupId, keyRef: null, encrypted: false, ...extra };
      const ref = randomUUID();
      d.service().keys.put(`restore:${ref}`, key);
      return { backupId, keyRef: ref, encrypted: true, ...extra };
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
      // Integrity only (the key was checked in validate): every file against the manifest, the MAC unless foreign.
      const check = await service.validate(input.backupId, undefined, { trustForeign: input.foreign === true, decrypt: false });
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
      // Collections of the backup missing here are created first (DDL: outside the transaction, with an undo
      // that drops them again), from the schema in the backup's config snapshot, relation targets first.
      const missing = new Map<string, { saved: Row; fields: FieldDefinition[] }>();
      for (const c of m.collections) {
        if (here.has(c.name)) continue;
        const saved = schemas.find((s) => s.name === c.name);
        let fields: FieldDefinition[] | null = null;
        try {
          const raw: unknown = typeof saved?.fields === 'string' ? JSON.parse(saved.fields) : saved?.fields;
          if (Array.isArray(raw)) fields = raw as FieldDefinition[];
        } catch {
          fields = null;
        }
        if (!saved || !fields) {
          blockedReasons.push(
            `Collection '${c.name}' of the backup does not exist on this instance and its schema is not in the backup's config.json: create it (same fields) first`,
          );
          continue;
        }
        missing.set(c.name, { saved, fields });
      }
      const targetsOf = (fields: FieldDefinition[]) =>
        fields.filter((f) => f.type === 'relation' && typeof f.collection === 'string').map((f) => f.collection as string);
      for (const [name, { fields }] of missing)
        for (const target of targetsOf(fields))
          if (target !== name && !here.has(target) && !missing.has(target))
            blockedReasons.push(
              `Collection '${name}' of the backup relates to '${target}', which exists neither on this instance nor in the backup`,
            );
      for (const name of creationOrder(new Map([...missing].map(([n, x]) => [n, targetsOf(x.fields)])))) {
        const { saved, fields } = missing.get(name)!;
        operations.push({
          action: 'create',
          type: 'collection',
          target: name,
          count: 1,
          outsideTransaction: true,
          payload: {
            kind: 'collection',
            name,
            ...(typeof saved.label === 'string' ? { label: saved.label } : {}),
            ...(typeof saved.singular === 'string' ? { singular: saved.singular } : {}),
            fields,
          } satisfies Payload,
        });
      }
      for (const c of m.collections) {
        const current = here.get(c.name);
        if (!current) {
          if (missing.has(c.name) && c.rows > 0)
            operations.push({
              action: 'create',
              type: 'entry',
              target: c.name,
              count: c.rows,
              payload: { kind: 'rows', table: c.table, file: c.file, collection: c.name } satisfies Payload,
            });
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
      if (p.kind === 'collection') {
        // Outside the transaction (DDL): through the content plugin's collections service; the undo drops it.
        const collections = d.collections();
        await collections.create({ name: p.name, label: p.label, singular: p.singular, fields: p.fields } as Parameters<
          CollectionsService['create']
        >[0]);
        return async () => {
          await collections.remove(p.name);
        };
      }
      if (p.kind === 'rows') {
        // A collection created by this restore may have another table name than the backup's.
        const table = p.collection ? tableOf(p.collection, p.table) : p.table;
        await insertRows(table, service.rows(m, p.file, key), ctx, ctx.plan.planId, Boolean(p.collection));
        return;
      }
      if (p.kind === 'config') {
        const config = await service.readConfig(m, key);
        const rows = config[p.part] ?? [];
        if (p.part === 'roles') await noteChangedRoles(ctx.plan.planId, p.table, rows, t);
        if (p.part === 'themes') await noteThemeTenants(ctx.plan.planId, p.table, rows, t);
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
        table: tableOf(c.name, c.table),
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
      pending.delete(planId);
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
