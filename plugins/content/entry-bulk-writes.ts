import { randomUUID } from 'node:crypto';
import { Op, QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize';
import { ValidationError, type Identity } from '../../kernel/sdk.js';
import { insertRows } from '../../lib/db/insert-rows.js';
import type { LoadedCollection } from './collections-service.js';
import { createEvents } from './entry-announcer.js';
import { checkEntryInput, type CheckedInput } from './entry-input.js';
import { BULK_CHUNK, toEntry, type Entry } from './entry-shape.js';
import { slugBase } from './entry-slugs.js';
import { EntryWrites } from './entry-writes.js';
import { writeActions } from './entry-access.js';
import { columnName } from './field-types.js';
import type { PreparedRow } from './prepared-row.js';
import { presanitize } from './rich-text-pool.js';
import { holdForDefaultMove } from './locale-move-guard.js';

/** A batch of rows prepared off the event loop, with the schema version and fields they were checked against. */
export interface PreparedBatch {
  version: number;
  fields: string[];
  rows: PreparedRow[];
}

/** The caller's own writes inside insertPrepared's transaction (e.g. the import ledger). */
export interface PreparedHooks {
  inTransaction?: (transaction: Transaction, entries: Entry[]) => Promise<void>;
}

/** The columns of an entry's row before its fields, in the order insertPrepared writes them. */
const ROW_COLUMNS = ['id', 'tenant_id', 'sync_id', 'status', 'version', 'slug', 'created_by', 'updated_by', 'created_at', 'updated_at'];

/** The row of a new entry of createMany, its slug still the base. */
function newRow(c: LoadedCollection, input: CheckedInput, identity: Identity, now: number) {
  const id = randomUUID();
  return {
    id,
    tenant_id: identity.tenantId,
    sync_id: randomUUID(),
    status: input.status ?? 'draft',
    version: 1,
    slug: slugBase(c, input, id),
    created_by: identity.userId,
    updated_by: identity.userId,
    created_at: now,
    updated_at: now,
    ...input.columns,
  };
}

/** A prepared row as the entry it reads back as (version 1, just written). */
function preparedEntry(r: PreparedRow, at: string, userId: string | null): Entry {
  return Object.assign({ _id: r.id }, r.entry, {
    slug: r.slug,
    status: r.status,
    syncId: r.syncId,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: userId ?? null,
    updatedBy: userId ?? null,
  }) as unknown as Entry;
}

/**
 * Writes of many new entries in one transaction: createMany (bodies from a request, one multi-row insert
 * when their slugs are free, else one by one) and insertPrepared (rows the importers prepared off the
 * event loop, plain multi-row INSERTs). Free slugs for the batch are picked before the insert. The writes of
 * one entry are inherited: the one-by-one path and the checks are theirs.
 */
export class EntryBulkWrites extends EntryWrites {
  /** See EntriesService.createMany. */
  async createMany(name: string, raw: unknown[], identity: Identity, locale?: string): Promise<Entry[]> {
    const code = this.writeLocale(locale);
    let own: string | undefined;
    const entries = await this.withSchema(name, async (c) => {
      // The caller's rules (entry-access.ts): each entry's fields and locale, and the new entries must meet a `where`.
      const checks = raw.map((body) => this.writeAccess(c, identity, writeActions(body, true), body, code));
      const bodies = await presanitize(c, raw, this.richText);
      own = this.ownLocale(c, code);
      // In a non-default locale each entry is created in it as a single create does (one by one, in one transaction).
      const made = await this.sequelize.transaction(async (transaction) => {
        await holdForDefaultMove(this.sequelize, c, transaction);
        const out: Entry[] = [];
        if (!own) out.push(...(await this.createManyIn(c, bodies, identity, transaction)));
        else
          for (const [i, body] of bodies.entries()) out.push(await this.created(c, body, identity, `body.entries.${i}`, transaction, own));
        for (const [i, entry] of out.entries()) await checks[i]!([entry._id], transaction);
        return out;
      });
      await this.localised?.localise(c, made, identity.tenantId, code);
      await this.hooks?.decorate(name, identity, made);
      return made;
    });
    await this.announcer.announceSafely(name, identity.tenantId, createEvents(name, entries, identity, own));
    return entries;
  }

  private async createManyIn(c: LoadedCollection, bodies: unknown[], identity: Identity, transaction: Transaction): Promise<Entry[]> {
    const inputs = bodies.map((body, i) => checkEntryInput(c, body, 'create', `body.entries.${i}`));
    if (inputs.some((input) => input.status === 'published')) await this.guardPublish(c, identity.tenantId, null, transaction);
    for (const [i, input] of inputs.entries()) await this.checkRelations(c, input, identity.tenantId, `body.entries.${i}`, transaction);
    const now = Date.now();
    const rows = inputs.map((input) => newRow(c, input, identity, now));
    const bulk = await this.insertWithFreeSlugs(c, rows, identity.tenantId, transaction);
    const out: Array<Entry | undefined> = [];
    if (bulk.size) await this.readBackInserted(c, rows, bulk, out, identity, now, transaction);
    for (const [i, body] of bodies.entries())
      if (!bulk.has(i)) out[i] = await this.created(c, body, identity, `body.entries.${i}`, transaction);
    return out as Entry[];
  }

  /**
   * Free slugs for the whole batch, then one multi-row insert inside a savepoint. Returns the indexes of
   * the rows it inserted: all of them, or none when a unique field collides (the one-by-one path names it).
   */
  private async insertWithFreeSlugs(
    c: LoadedCollection,
    rows: Array<{ id: string; slug: string }>,
    tenantId: string,
    transaction: Transaction,
  ): Promise<Set<number>> {
    const taken = new Set(
      (
        await c.model.findAll({
          attributes: ['slug'],
          where: { tenant_id: tenantId, slug: { [Op.in]: [...new Set(rows.map((r) => r.slug))] } },
          transaction,
        })
      ).map((r) => String(r.get('slug'))),
    );
    const suffixes = await this.slugs.assignBatch(c, tenantId, rows, taken, transaction);
    const bulk = new Set<number>(rows.map((_, i) => i));
    if (bulk.size) {
      try {
        await this.sequelize.transaction({ transaction }, (savepoint) =>
          c.model.bulkCreate(
            rows.filter((_, i) => bulk.has(i)),
            { transaction: savepoint },
          ),
        );
        this.slugs.noteSuffixes(c, tenantId, suffixes);
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
        bulk.clear(); // a unique field collides: the one-by-one path names it
      }
    }
    return bulk;
  }

  /** The inserted rows read back as entries (into `out` at their indexes), and their revisions. */
  private async readBackInserted(
    c: LoadedCollection,
    rows: Array<{ id: string }>,
    bulk: Set<number>,
    out: Array<Entry | undefined>,
    identity: Identity,
    now: number,
    transaction: Transaction,
  ): Promise<void> {
    const made = await c.model.findAll({
      where: { tenant_id: identity.tenantId, id: { [Op.in]: rows.filter((_, i) => bulk.has(i)).map((r) => r.id) } },
      transaction,
    });
    const byId = new Map(made.map((m) => [String(m.get('id')), toEntry(c, m)]));
    for (const i of bulk) out[i] = byId.get(rows[i]!.id);
    const batch = { collection: c.name, tenantId: identity.tenantId, userId: identity.userId, transaction };
    await this.revisionLog.recordCreated(
      batch,
      [...bulk].map((i) => out[i]!),
      now,
    );
  }

  /** See EntriesService.insertPrepared. */
  async insertPrepared(name: string, batch: PreparedBatch, identity: Identity, hooks: PreparedHooks = {}): Promise<Entry[]> {
    const c = await this.collections.get(name);
    if (c.version !== batch.version || c.fields.length !== batch.fields.length || c.fields.some((f, i) => f.name !== batch.fields[i]))
      throw new ValidationError(`The fields of ${name} changed while the rows were prepared`);
    if (!batch.rows.length) return [];
    const tenantId = identity.tenantId;
    const userId = identity.userId;
    const now = Date.now();
    const rows = batch.rows.map((r) => ({ ...r, slug: r.slug || r.id.slice(0, 8) }));
    let suffixes = new Map<string, number>();
    const entries = await this.sequelize.transaction(async (transaction) => {
      await holdForDefaultMove(this.sequelize, c, transaction);
      if (rows.some((r) => r.status === 'published')) await this.guardPublish(c, tenantId, null, transaction);
      const taken = await this.takenSlugs(c, tenantId, rows, transaction);
      suffixes = await this.slugs.assignBatch(c, tenantId, rows, taken, transaction);
      await this.insertPreparedRows(c, rows, identity, now, transaction);
      const at = new Date(now).toISOString();
      const made = rows.map((r) => preparedEntry(r, at, userId));
      await this.revisionLog.insertCreated({ collection: c.name, tenantId, userId, transaction }, made, now);
      await hooks.inTransaction?.(transaction, made);
      return made;
    });
    this.slugs.noteSuffixes(c, tenantId, suffixes);
    await this.announcer.invalidateListsSafely(tenantId, name);
    await this.announcer.announceChanges(
      tenantId,
      userId,
      entries.map((entry) => ({ event: 'create', collection: name, entry })),
    );
    return entries;
  }

  /** Which slugs of the rows are in use in the tenant: plain queries, BULK_CHUNK slugs each. */
  private async takenSlugs(c: LoadedCollection, tenantId: string, rows: PreparedRow[], transaction: Transaction): Promise<Set<string>> {
    const table = this.sequelize.getQueryInterface().quoteIdentifier(c.table);
    const taken = new Set<string>();
    const bases = [...new Set(rows.map((r) => r.slug))];
    for (let i = 0; i < bases.length; i += BULK_CHUNK) {
      const chunk = bases.slice(i, i + BULK_CHUNK);
      const found = await this.sequelize.query<{ slug: string }>(
        `SELECT slug FROM ${table} WHERE tenant_id = ? AND slug IN (${chunk.map(() => '?').join(',')})`,
        { replacements: [tenantId, ...chunk], type: QueryTypes.SELECT, transaction },
      );
      for (const f of found) taken.add(String(f.slug));
    }
    return taken;
  }

  /** The prepared rows (slugs free) as multi-row INSERTs into the collection's table, no model instances. */
  private async insertPreparedRows(c: LoadedCollection, rows: PreparedRow[], identity: Identity, now: number, transaction: Transaction) {
    const { tenantId, userId } = identity;
    await insertRows(
      this.sequelize,
      this.sequelize.getQueryInterface().quoteIdentifier(c.table),
      ROW_COLUMNS.concat(c.fields.map(columnName)),
      rows.map((r) => [r.id, tenantId, r.syncId, r.status, 1, r.slug, userId, userId, now, now, ...r.columns]),
      transaction,
    );
  }
}
