/**
 * Plan step of a restore: per collection `delete N` (the current rows) then `create M` (the backup's
 * rows); the config tables (roles, themes replaced; public settings upserted); media records and missing
 * media files when the backup has media. A collection of the backup missing here is planned as
 * `create collection` (outsideTransaction, schema from the backup's config.json, relation targets first)
 * followed by its rows. A damaged backup (checksums) blocks the plan.
 */
import type { Sequelize } from 'sequelize';
import { creationOrder, relationTargets, type FieldDefinition, type LoadedCollection as Collection } from '../content/public.js';
import type { DataOperation, DomainContext, PlanDraft } from '../data-ops/public.js';
import type { BackupManifest } from './format.js';
import { restoreKey } from './restore-input.js';
import { CONFIG_TABLES, type DomainDeps, type Payload, type RestoreInput } from './restore-types.js';
import { tableChecksum, tableExists, type Row } from './tables.js';
import { planComponents, savedComponents } from './restore-components.js';
import { planLocales, savedLocales } from './restore-locales.js';
import { planEntryLocales } from './entry-locales.js';
import { planEntryDrafts } from './entry-drafts.js';
import { planEntryLocaleTimes } from './entry-locale-times.js';
import { planLaterRevisions } from './restore-revisions.js';

/** What the plan collects while its steps run. */
interface Draft {
  operations: DataOperation[];
  warnings: PlanDraft['warnings'];
  blockedReasons: string[];
}

type Missing = Map<string, { saved: Row; fields: FieldDefinition[] }>;

/** Integrity only (the key was checked in validate): every file against the manifest, the MAC unless foreign. */
async function checkIntegrity(d: DomainDeps, input: RestoreInput, draft: Draft): Promise<void> {
  const check = await d.service().validate(input.backupId, undefined, { trustForeign: input.foreign === true, decrypt: false });
  for (const p of check.problems) if (!/give its passphrase/.test(p)) draft.blockedReasons.push(`Backup damaged: ${p}`);
}

/** The collection schemas of the backup's config.json (none, and a blocked plan, when it cannot be read). */
async function savedConfig(
  d: DomainDeps,
  m: BackupManifest,
  input: RestoreInput,
  draft: Draft,
): Promise<{ schemas: Row[]; components: Row[]; locales: Row[] }> {
  const key = restoreKey(d, input);
  try {
    const config = await d.service().readConfig(m, key);
    return { schemas: config.collections, components: config.components ?? [], locales: config.locales ?? [] };
  } catch {
    draft.blockedReasons.push('config.json could not be read (damaged, or the key does not decrypt it)');
    return { schemas: [], components: [], locales: [] };
  }
}

function savedFields(saved: Row | undefined): FieldDefinition[] | null {
  try {
    const raw: unknown = typeof saved?.fields === 'string' ? JSON.parse(saved.fields) : saved?.fields;
    return Array.isArray(raw) ? (raw as FieldDefinition[]) : null;
  } catch {
    return null;
  }
}

/** The backup's collections that do not exist here, with their saved schema; a missing schema or relation target blocks the plan. */
function missingCollections(m: BackupManifest, here: Map<string, Collection>, schemas: Row[], draft: Draft): Missing {
  const missing: Missing = new Map();
  for (const c of m.collections) {
    if (here.has(c.name)) continue;
    const saved = schemas.find((s) => s.name === c.name);
    const fields = savedFields(saved);
    if (!saved || !fields) {
      draft.blockedReasons.push(
        `Collection '${c.name}' of the backup does not exist on this instance and its schema is not in the backup's config.json: create it (same fields) first`,
      );
      continue;
    }
    missing.set(c.name, { saved, fields });
  }
  for (const [name, { fields }] of missing)
    for (const target of relationTargets(fields))
      if (target !== name && !here.has(target) && !missing.has(target))
        draft.blockedReasons.push(
          `Collection '${name}' of the backup relates to '${target}', which exists neither on this instance nor in the backup`,
        );
  return missing;
}

/** Collections of the backup missing here are created first (DDL: outside the transaction, with an undo that drops them again), relation targets first. */
function planCreateCollections(missing: Missing, draft: Draft): void {
  for (const name of creationOrder(new Map([...missing].map(([n, x]) => [n, relationTargets(x.fields)])))) {
    const { saved, fields } = missing.get(name)!;
    draft.operations.push({
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
}

/** Replace the rows of one table: delete the current ones (when there are), create the backup's (when it has). */
function planReplaceRows(draft: Draft, type: string, target: string, now: number, rows: number, clear: Payload, insert: Payload): void {
  if (now > 0) draft.operations.push({ action: 'delete', type, target, count: now, payload: clear });
  if (rows > 0) draft.operations.push({ action: 'create', type, target, count: rows, payload: insert });
}

/** Each collection's rows: replaced where it exists, created where the restore creates it; a collection only here is left. */
async function planCollectionRows(
  d: DomainDeps,
  m: BackupManifest,
  here: Map<string, Collection>,
  schemas: Row[],
  missing: Missing,
  draft: Draft,
): Promise<void> {
  for (const c of m.collections) {
    const current = here.get(c.name);
    if (!current) {
      const rows = { kind: 'rows', table: c.table, file: c.file, collection: c.name } satisfies Payload;
      if (missing.has(c.name) && c.rows > 0)
        draft.operations.push({ action: 'create', type: 'entry', target: c.name, count: c.rows, payload: rows });
      continue;
    }
    const saved = schemas.find((s) => s.name === c.name);
    if (saved && typeof saved.fields === 'string' && JSON.stringify(JSON.parse(saved.fields)) !== JSON.stringify(current.fields)) {
      draft.warnings.push({
        message: `Collection '${c.name}' has other fields than in the backup: values of fields missing here are dropped`,
        item: c.name,
      });
    }
    const now = await tableChecksum(d.sequelize(), current.table, d.pageSize).then((s) => s.rows);
    planReplaceRows(
      draft,
      'entry',
      c.name,
      now,
      c.rows,
      { kind: 'clear', table: current.table, collection: c.name },
      { kind: 'rows', table: current.table, file: c.file, collection: c.name },
    );
    await planLaterRevisions(d.sequelize(), m, c.name, current.table, draft.operations);
  }
  for (const name of here.keys())
    if (!m.collections.some((c) => c.name === name))
      draft.warnings.push({ message: `Collection '${name}' is not in the backup: left as it is`, item: name });
}

async function planConfig(sequelize: Sequelize, m: BackupManifest, draft: Draft): Promise<void> {
  for (const [part, table] of Object.entries(CONFIG_TABLES) as Array<[keyof typeof CONFIG_TABLES, string]>) {
    const n = m.config[part];
    if (!n || !(await tableExists(sequelize, table))) continue;
    draft.operations.push({
      action: 'update',
      type: 'config',
      target: part,
      count: n,
      payload: { kind: 'config', part, table } satisfies Payload,
    });
  }
}

async function planMedia(d: DomainDeps, m: BackupManifest, draft: Draft): Promise<void> {
  if (!m.includesMedia) {
    draft.warnings.push({ message: 'The backup holds no media files: media records and files are left as they are' });
    return;
  }
  const sequelize = d.sequelize();
  for (const t of [m.media.folders, m.media.items]) {
    if (!t || !(await tableExists(sequelize, t.table))) continue;
    const now = (await tableChecksum(sequelize, t.table, d.pageSize)).rows;
    planReplaceRows(
      draft,
      'media-record',
      t.table,
      now,
      t.rows,
      { kind: 'clear', table: t.table },
      { kind: 'rows', table: t.table, file: t.file },
    );
  }
  if (m.media.files > 0)
    draft.operations.push({
      action: 'create',
      type: 'media-file',
      target: 'media files',
      count: m.media.files,
      payload: { kind: 'media-files' } satisfies Payload,
    });
  if (!d.mediaStorage()) draft.blockedReasons.push("Media storage is not available: the backup's media files cannot be put back");
  if (m.media.missingFiles.length)
    draft.warnings.push({ message: `${m.media.missingFiles.length} media file(s) were missing when the backup was made` });
}

export async function planRestore(
  d: DomainDeps,
  input: RestoreInput,
  ctx: DomainContext,
  snapshot: (input: RestoreInput, ctx: DomainContext) => Promise<string>,
): Promise<PlanDraft> {
  const sequelize = d.sequelize();
  const m = await d.service().manifest(input.backupId);
  const draft: Draft = { operations: [], warnings: [], blockedReasons: [] };
  await checkIntegrity(d, input, draft);
  const { schemas, components, locales } = await savedConfig(d, m, input, draft);
  const here = new Map(
    d
      .collections()
      .list()
      .map((c) => [c.name, c]),
  );
  const missing = missingCollections(m, here, schemas, draft);
  // Locales, then components first: the collections created next (and the rows restored) may use them.
  planLocales(savedLocales(locales), d.locales(), draft);
  planComponents(savedComponents(components), d.components(), draft);
  planCreateCollections(missing, draft);
  await planCollectionRows(d, m, here, schemas, missing, draft);
  // The entries' versions in other locales, after the rows they belong to.
  await planEntryLocales(sequelize, m, draft);
  await planEntryDrafts(sequelize, m, draft);
  await planEntryLocaleTimes(sequelize, m, draft);
  await planConfig(sequelize, m, draft);
  await planMedia(d, m, draft);
  if (m.db.dialect !== sequelize.getDialect())
    draft.warnings.push({ message: `The backup was made on ${m.db.dialect}; this instance runs ${sequelize.getDialect()}` });
  ctx.logger.debug({ backupId: m.backupId, operations: draft.operations.length }, 'backup restore planned');
  const { operations, warnings, blockedReasons } = draft;
  return { operations, warnings, blockedReasons, targetHash: await snapshot(input, ctx), risk: 'destructive' };
}
