import { DataTypes, Op, type Sequelize } from 'sequelize';
import {
  ANCHOR_LEVEL,
  AuditRow,
  counts,
  GENESIS_HASH,
  hashEntry,
  parseInput,
  toEntry,
  type AuditEntry,
  type AuditInput,
  type AuditObserver,
  type AuditPruneResult,
  type AuditVerifyResult,
  type ParsedInput,
} from './audit-entry.js';
import type { DbLock } from './db/lock.js';
import { ValidationError } from './errors.js';
import { likeContains } from './text/like-contains.js';

export {
  auditInputSchema,
  GENESIS_HASH,
  hashEntry,
  type AuditEntry,
  type AuditInput,
  type AuditObserver,
  type AuditPruneResult,
  type AuditVerifyResult,
} from './audit-entry.js';

/** record(): entries per write, how long an entry may wait for its batch, and the queue's bound. */
const BATCH = 200;
const FLUSH_DELAY_MS = 50;
const MAX_QUEUE = 10000;

/**
 * The audit log: append-only, every entry chained to the previous one by SHA-256
 * (previousHash/currentHash). Appends from all instances are serialised by a database lock so the
 * chain stays linear; verify() walks the chain and names the first entry that was altered. prune()
 * removes old entries and leaves an anchor the walk starts from, so the rest still verifies.
 */
export class AuditLog {
  private readonly model: typeof AuditRow;

  constructor(
    sequelize: Sequelize,
    private readonly lock: DbLock,
  ) {
    this.model = class extends AuditRow {};
    this.model.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        timestamp: DataTypes.STRING(32),
        tenant_id: DataTypes.STRING(64),
        domain: DataTypes.STRING(64),
        operation: DataTypes.STRING(64),
        plan_id: DataTypes.STRING(64),
        mode: DataTypes.STRING(16),
        actor: DataTypes.TEXT,
        outcome: DataTypes.STRING(16),
        summary: DataTypes.TEXT,
        duration_ms: DataTypes.INTEGER,
        level: DataTypes.STRING(16),
        action: DataTypes.STRING(191),
        message: DataTypes.TEXT,
        details: DataTypes.TEXT,
        previous_hash: DataTypes.STRING(64),
        current_hash: DataTypes.STRING(64),
      },
      { sequelize, tableName: 'cms_audit_log', modelName: 'CmsAuditEntry', timestamps: false },
    );
  }

  private readonly observers = new Set<AuditObserver>();

  /**
   * Calls `observer` for every entry this instance is given (append or record), as it is given, before
   * it is written; synchronous, so it must be cheap. Returns the unsubscribe function.
   */
  observe(observer: AuditObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  private notify(parsed: ParsedInput): void {
    for (const observer of this.observers) {
      try {
        observer({
          action: parsed.action ?? `${parsed.domain}.${parsed.operation}`,
          outcome: parsed.outcome,
          tenantId: parsed.actor.tenantId,
        });
      } catch {
        // An observer's failure never loses an entry.
      }
    }
  }

  /** Appends one entry now and returns it (chained). For request paths that must not wait, use record(). */
  async append(input: AuditInput): Promise<AuditEntry> {
    const parsed = parseInput(input);
    this.notify(parsed);
    const [entry] = await this.appendParsed([parsed]);
    return entry!;
  }

  /**
   * Queues an entry without waiting: entries are written in batches (one lock, one multi-row insert)
   * shortly after, so a sign-in never waits on the chain. Invalid input throws at once; a full queue
   * (MAX_QUEUE) drops the entry and counts it in `dropped`. flush() writes what is queued.
   */
  record(input: AuditInput): void {
    const parsed = parseInput(input);
    this.notify(parsed);
    if (this.queue.length >= MAX_QUEUE) {
      this.dropped++;
      return;
    }
    this.queue.push({ ...parsed, timestamp: new Date().toISOString() });
    this.flushTimer ??= setTimeout(() => void this.flush().catch(() => undefined), FLUSH_DELAY_MS);
  }

  /** Entries dropped because the queue was full (a database that stopped answering). */
  dropped = 0;

  /** Writes every queued entry; resolves when they are in the chain. Called at shutdown too. */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flushing = this.flushing.then(async () => {
      while (this.queue.length) {
        const batch = this.queue.splice(0, BATCH);
        try {
          await this.appendParsed(batch);
        } catch (err) {
          this.queue.unshift(...batch.slice(0, MAX_QUEUE - this.queue.length));
          throw err;
        }
      }
    });
    const done = this.flushing;
    this.flushing = done.catch(() => undefined);
    return done;
  }

  private queue: Array<ParsedInput & { timestamp: string }> = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private appendParsed(batch: Array<ParsedInput & { timestamp?: string }>): Promise<AuditEntry[]> {
    return this.lock.withLock('audit-chain', () => this.appendLocked(batch), { ttlMs: 15000, waitMs: 15000 });
  }

  /** Writes a batch chained to the last row; the caller holds the 'audit-chain' lock. */
  private async appendLocked(batch: Array<ParsedInput & { timestamp?: string }>): Promise<AuditEntry[]> {
    const last = await this.model.findOne({ order: [['id', 'DESC']], attributes: ['current_hash'] });
    let previousHash = last?.current_hash ?? GENESIS_HASH;
    const entries = batch.map((e) => {
      const entry: Omit<AuditEntry, 'id' | 'currentHash'> = {
        timestamp: e.timestamp ?? new Date().toISOString(),
        domain: e.domain,
        operation: e.operation,
        planId: e.planId ?? null,
        mode: e.mode ?? null,
        actor: e.actor,
        outcome: e.outcome,
        summary: e.summary,
        durationMs: e.durationMs,
        level: e.level,
        action: e.action ?? `${e.domain}.${e.operation}`,
        message: e.message,
        details: e.details ?? null,
        previousHash,
      };
      const currentHash = hashEntry(entry);
      previousHash = currentHash;
      return { ...entry, currentHash };
    });
    const rows = await this.model.sequelize!.transaction(async (transaction) => {
      const created: AuditRow[] = [];
      for (const entry of entries)
        created.push(
          await this.model.create(
            {
              timestamp: entry.timestamp,
              tenant_id: entry.actor.tenantId,
              domain: entry.domain,
              operation: entry.operation,
              plan_id: entry.planId,
              mode: entry.mode,
              actor: JSON.stringify(entry.actor),
              outcome: entry.outcome,
              summary: JSON.stringify(entry.summary),
              duration_ms: entry.durationMs,
              level: entry.level,
              action: entry.action,
              message: entry.message,
              details: entry.details ? JSON.stringify(entry.details) : null,
              previous_hash: entry.previousHash,
              current_hash: entry.currentHash,
            },
            { transaction },
          ),
        );
      return created;
    });
    return entries.map((entry, i) => ({ ...entry, id: rows[i]!.id }));
  }

  /**
   * Audit retention: deletes the entries older than `before` and keeps verify() valid. The entries go as
   * a prefix of the chain (up to the first entry at or after the cutoff: an older entry written late,
   * after a newer one, stays until a later prune).
   *
   * How the chain survives: the newest pruned entry is not deleted but rewritten into the anchor row
   * (level 'anchor', which no appended entry can have), keeping its id and its currentHash. The first
   * kept entry already links to that hash (its previousHash), so verify() starts the walk from the
   * anchor's hash instead of the genesis hash and checks every entry after it as before: an entry
   * altered, removed or inserted after the anchor still fails (and an anchor row anywhere but first is
   * a hash-mismatch). What came before the anchor can no longer be checked; the prune itself is the next
   * entry of the chain (`audit.prune`: cutoff, count, anchor id and hash, who), so removing that record
   * breaks the chain or takes another prune, which records itself. A later prune replaces the anchor. Runs under the 'audit-chain' lock
   * that appends take, in one transaction: no append sees half a prune, and entries still queued by
   * record() are written after it, chained to the last row.
   */
  async prune(options: { before: Date; actor?: { userId: string | null; tenantId?: string } }): Promise<AuditPruneResult> {
    const cutoff = options.before;
    if (!(cutoff instanceof Date) || Number.isNaN(cutoff.getTime())) {
      throw new ValidationError('Invalid audit prune cutoff', [{ path: 'before', message: 'a valid date' }]);
    }
    const actor = { userId: options.actor?.userId ?? null, tenantId: options.actor?.tenantId ?? 'default' };
    return this.lock.withLock(
      'audit-chain',
      async () => {
        const notAnchor = { level: { [Op.ne]: ANCHOR_LEVEL } };
        const firstKept = await this.model.findOne({
          where: { ...notAnchor, timestamp: { [Op.gte]: cutoff.toISOString() } },
          order: [['id', 'ASC']],
          attributes: ['id'],
        });
        const newest = await this.model.findOne({
          where: { ...notAnchor, ...(firstKept ? { id: { [Op.lt]: firstKept.id } } : {}) },
          order: [['id', 'DESC']],
          attributes: ['id', 'timestamp', 'current_hash'],
        });
        if (!newest) return { deleted: 0, anchor: null };
        const anchor = { id: newest.id, hash: newest.current_hash };
        const deleted = await this.model.count({ where: { ...notAnchor, id: { [Op.lte]: newest.id } } });
        await this.model.sequelize!.transaction(async (transaction) => {
          await this.model.destroy({ where: { id: { [Op.lt]: newest.id } }, transaction });
          await this.model.update(
            {
              tenant_id: 'default',
              domain: 'audit',
              operation: 'anchor',
              plan_id: null,
              mode: null,
              actor: JSON.stringify({ userId: null, tenantId: 'default' }),
              outcome: 'success',
              summary: JSON.stringify(counts.parse({})),
              duration_ms: 0,
              level: ANCHOR_LEVEL,
              action: 'audit.anchor',
              message: 'Chain anchor: older entries were pruned; verification starts from this hash',
              details: JSON.stringify({ prunedBefore: cutoff.toISOString(), prunedAt: new Date().toISOString() }),
              previous_hash: GENESIS_HASH,
            },
            { where: { id: newest.id }, transaction },
          );
        });
        await this.appendLocked([
          parseInput({
            domain: 'audit',
            operation: 'prune',
            actor,
            outcome: 'success',
            summary: { deleted },
            level: 'medium',
            message: `Pruned ${deleted} audit entries older than ${cutoff.toISOString()}; the chain is anchored at entry ${anchor.id}`,
            details: { before: cutoff.toISOString(), anchorId: anchor.id, anchorHash: anchor.hash },
          }),
        ]);
        return { deleted, anchor };
      },
      { ttlMs: 60000, waitMs: 30000 },
    );
  }

  async list(
    filter: { limit?: number; offset?: number; level?: string; search?: string; tenantId?: string; action?: string } = {},
  ): Promise<{ items: AuditEntry[]; total: number }> {
    const where: Record<string | symbol, unknown> = {};
    // The anchor row left by prune() is not an event: listed only when asked for by its level.
    where.level = filter.level ? filter.level : { [Op.ne]: ANCHOR_LEVEL };
    if (filter.tenantId) where.tenant_id = filter.tenantId;
    if (filter.action) where.action = filter.action;
    if (filter.search) {
      const db = this.model.sequelize!;
      where[Op.or] = [likeContains(db, 'message', filter.search), likeContains(db, 'action', filter.search)];
    }
    const { rows, count } = await this.model.findAndCountAll({
      where,
      order: [['id', 'DESC']],
      limit: Math.min(filter.limit ?? 50, 100),
      offset: filter.offset ?? 0,
    });
    return { items: rows.map(toEntry), total: count };
  }

  /** Walks the chain from the genesis hash, or from the anchor a prune left (see prune()). */
  async verify(): Promise<AuditVerifyResult> {
    let previous = GENESIS_HASH;
    let checked = 0;
    let lastId = 0;
    let anchor: AuditVerifyResult['anchor'];
    const first = await this.model.findOne({ order: [['id', 'ASC']], attributes: ['id', 'level', 'current_hash'] });
    if (first?.level === ANCHOR_LEVEL) {
      anchor = { id: first.id, hash: first.current_hash };
      previous = first.current_hash;
      lastId = first.id;
    }
    const result = (r: AuditVerifyResult): AuditVerifyResult => (anchor ? { ...r, anchor } : r);
    for (;;) {
      const rows = await this.model.findAll({ where: { id: { [Op.gt]: lastId } }, order: [['id', 'ASC']], limit: 500 });
      if (!rows.length) return result({ valid: true, checked });
      for (const row of rows) {
        const entry = toEntry(row);
        if (entry.previousHash !== previous)
          return result({ valid: false, checked, firstInvalid: { id: entry.id, reason: 'chain-broken' } });
        const { id: _id, currentHash, ...rest } = entry;
        if (hashEntry(rest) !== currentHash)
          return result({ valid: false, checked, firstInvalid: { id: entry.id, reason: 'hash-mismatch' } });
        previous = currentHash;
        checked++;
        lastId = entry.id;
      }
    }
  }
}
