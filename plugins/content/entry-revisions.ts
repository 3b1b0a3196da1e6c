import { Op, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { insertRows } from '../../lib/db/insert-rows.js';
import { BULK_CHUNK, type Entry } from './entry-shape.js';
import type { Revision } from './models/revision.js';

/** The row of a revision: the entry as toEntry returns it, after the write. */
function revisionRow(
  collection: string,
  entry: Entry,
  tenantId: string,
  action: string,
  userId: string | null,
  now: number,
  locale: string | null = null,
) {
  return {
    tenant_id: tenantId,
    collection,
    entry_id: entry._id,
    version: entry.version,
    data: JSON.stringify(entry),
    action,
    created_by: userId,
    created_at: now,
    locale,
  };
}

/** See EntryRevisions.observer. */
export interface RevisionObserver {
  written(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void>;
  removed(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void>;
}

/** Whose batch of entries of one collection is written, and the transaction that writes it. */
export interface RevisionBatch {
  collection: string;
  tenantId: string;
  userId: string | null;
  transaction: Transaction;
}

/**
 * The revisions of entries: one after each write (the entry as written, its version and the action), inside
 * the write's transaction so a rollback takes it with it; read back as an entry's history, deleted with it.
 */
export class EntryRevisions {
  /**
   * Told of every write a revision records and of every removal, inside the write's transaction (the search index,
   * search-engine.ts, keeps in step with entries this way: a rollback takes its change with it).
   */
  observer?: RevisionObserver;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly model: typeof Revision,
  ) {}

  private async written(collection: string, tenantId: string, ids: string[], transaction?: Transaction) {
    if (this.observer && ids.length) await this.observer.written(collection, tenantId, ids, transaction);
  }

  /**
   * `locale`: a write of an entry's version in a non-default locale (entry-locales.ts): the revision says so, and `entry`
   * is the entry as answered in that locale; null (the default): the entry's row.
   */
  async record(
    collection: string,
    entry: Entry,
    tenantId: string,
    action: string,
    userId: string | null,
    transaction?: Transaction,
    locale: string | null = null,
  ) {
    await this.model.create(revisionRow(collection, entry, tenantId, action, userId, Date.now(), locale), { transaction });
    await this.written(collection, tenantId, [entry._id], transaction);
  }

  /** The 'create' revisions of a batch of new entries, one bulk insert through the model. */
  async recordCreated(batch: RevisionBatch, entries: Entry[], now: number) {
    const { collection, tenantId, userId, transaction } = batch;
    await this.model.bulkCreate(
      entries.map((entry) => revisionRow(collection, entry, tenantId, 'create', userId, now)),
      { transaction },
    );
    await this.written(
      collection,
      tenantId,
      entries.map((e) => e._id),
      transaction,
    );
  }

  /** The 'create' revisions of prepared rows (version 1): multi-row INSERTs, no model instances. */
  async insertCreated(batch: RevisionBatch, entries: Entry[], now: number) {
    const { collection, tenantId, userId, transaction } = batch;
    const qi = this.sequelize.getQueryInterface();
    await insertRows(
      this.sequelize,
      qi.quoteIdentifier(this.model.getTableName() as string),
      ['tenant_id', 'collection', 'entry_id', 'version', 'data', 'action', 'created_by', 'created_at'],
      entries.map((entry) => [tenantId, collection, entry._id, 1, JSON.stringify(entry), 'create', userId, now]),
      transaction,
    );
    await this.written(
      collection,
      tenantId,
      entries.map((e) => e._id),
      transaction,
    );
  }

  /** See EntriesService.recordRevisions. */
  async recordMany(batch: RevisionBatch, entries: Entry[], action: string): Promise<void> {
    const { collection, tenantId, userId, transaction } = batch;
    const now = Date.now();
    // One multi-row INSERT per chunk of plain rows (no model instances: this runs for every imported entry).
    const qi = this.sequelize.getQueryInterface();
    for (let i = 0; i < entries.length; i += BULK_CHUNK)
      await qi.bulkInsert(
        this.model.getTableName() as string,
        entries.slice(i, i + BULK_CHUNK).map((entry) => revisionRow(collection, entry, tenantId, action, userId, now)),
        { transaction },
      );
    await this.written(
      collection,
      tenantId,
      entries.map((e) => e._id),
      transaction,
    );
  }

  /** See EntriesService.moveRevisions. */
  async move(tenantId: string, from: string, to: string, ids: string[], transaction: Transaction): Promise<void> {
    if (!ids.length) return;
    await this.model.update(
      { collection: to },
      { where: { collection: from, entry_id: { [Op.in]: ids }, tenant_id: tenantId }, transaction },
    );
    await this.observer?.removed(from, tenantId, ids, transaction);
    await this.written(to, tenantId, ids, transaction);
  }

  async removeFor(collection: string, ids: string[], tenantId: string, transaction: Transaction): Promise<void> {
    await this.model.destroy({
      where: { collection, entry_id: { [Op.in]: ids }, tenant_id: tenantId },
      transaction,
    });
    await this.observer?.removed(collection, tenantId, ids, transaction);
  }

  /** One revision of an entry by its version (with its stored locale: null for the row), or null. */
  async one(collection: string, id: string, tenantId: string, version: number) {
    const r = await this.model.findOne({ where: { collection, entry_id: id, tenant_id: tenantId, version } });
    return r ? { locale: r.locale, data: JSON.parse(r.data) as Entry } : null;
  }

  /**
   * An entry's revisions, newest first, each with its locale (a revision of the entry's row, stored without one, is the
   * default locale's: the row's values are the default's, also after the default changed). `only`: one locale's.
   */
  async history(collection: string, id: string, tenantId: string, defaultCode: string, only?: string) {
    const where: WhereOptions = { collection, entry_id: id, tenant_id: tenantId };
    if (only !== undefined) Object.assign(where, { locale: only === defaultCode ? { [Op.is]: null } : only });
    const rows = await this.model.findAll({ where, order: [['version', 'DESC']] });
    return rows.map((r) => ({
      version: r.version,
      action: r.action,
      locale: r.locale ?? defaultCode,
      data: JSON.parse(r.data) as Entry,
      createdAt: new Date(Number(r.created_at)).toISOString(),
      createdBy: r.created_by,
    }));
  }
}
