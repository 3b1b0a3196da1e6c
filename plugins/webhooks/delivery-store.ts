/**
 * The deliveries (table cms_webhook_deliveries): one row per event and webhook, written when the event
 * is published (never across a network call), claimed by one instance with a lease before it is sent.
 * A claim is an UPDATE of a due row whose lease is free or expired: the instance whose UPDATE changed the
 * row sends it; a killed sender's lease expires and another instance sends the same row (same id) again.
 */
import { randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { WebhookDeliveryNotFoundError } from './errors.js';
import type { DeliveryView } from './public.js';

let lastStamp = 0n;
/**
 * A delivery id: a UUID (version 7 layout) whose first 64 bits (milliseconds, version, a 12-bit counter) rise on this instance (milliseconds and a
 * counter), so that deliveries written in one millisecond still sort in the order their events came (due
 * rows with the same time are sent by id), followed by random bits.
 */
export function deliveryId(): string {
  const ms = BigInt(Date.now());
  let stamp = ms << 12n;
  if (stamp <= lastStamp) stamp = lastStamp + 1n; // a counter in the low 12 bits; its overflow borrows the next millisecond
  lastStamp = stamp;
  const hi = stamp >> 12n; // 48 bits of milliseconds
  const seq = Number(stamp & 0xfffn); // 12 bits of counter under the version nibble
  const rand = randomBytes(8);
  rand[0] = (rand[0]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = hi.toString(16).padStart(12, '0') + (0x7000 | seq).toString(16) + rand.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface NewDelivery {
  webhookId: string;
  tenantId: string;
  event: string;
  /** The body's `data`. */
  data: unknown;
}

/** An attempt's outcome, as recorded. */
export interface Outcome {
  status: DeliveryView['status'];
  responseStatus: number | null;
  durationMs: number | null;
  nextAttemptAt: number | null;
}

/** A claimed delivery: what the dispatcher sends. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  event: string;
  body: string;
  attempts: number;
}

interface Row {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  status: DeliveryView['status'];
  attempts: number | string;
  response_status: number | null;
  duration_ms: number | null;
  created_at: number | string;
  next_attempt_at: number | string | null;
}

const VIEW_COLUMNS = 'id, webhook_id, event, status, attempts, response_status, duration_ms, created_at, next_attempt_at';
const viewOf = (r: Row): DeliveryView => ({
  _id: r.id,
  event: r.event,
  status: r.status,
  attempts: Number(r.attempts),
  responseStatus: r.response_status === null ? null : Number(r.response_status),
  durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
  createdAt: new Date(Number(r.created_at)).toISOString(),
  nextAttemptAt: r.next_attempt_at === null ? null : new Date(Number(r.next_attempt_at)).toISOString(),
});
/** Rows changed by a raw UPDATE run as QueryTypes.UPDATE: the second item of the result on both dialects. */
const affected = (meta: unknown): number => {
  if (typeof meta === 'number') return meta;
  const m = meta as { changes?: number; affectedRows?: number } | null | undefined;
  return Number(m?.changes ?? m?.affectedRows ?? 0);
};

export class DeliveryStore {
  constructor(
    private readonly sequelize: () => Sequelize,
    /** The clock deliveries go by (options.clock; Date.now). */
    readonly now: () => number = Date.now,
  ) {}

  /** Inserts one pending row per delivery, due now; answers their ids. */
  async enqueue(deliveries: NewDelivery[], at = this.now()): Promise<string[]> {
    if (!deliveries.length) return [];
    const ids: string[] = [];
    const values: unknown[] = [];
    for (const d of deliveries) {
      const id = deliveryId();
      ids.push(id);
      const body = JSON.stringify({ id, event: d.event, createdAt: new Date(at).toISOString(), tenantId: d.tenantId, data: d.data });
      values.push(id, d.webhookId, d.tenantId, d.event, body, 'pending', 0, at, at);
    }
    await this.sequelize().query(
      `INSERT INTO cms_webhook_deliveries (id, webhook_id, tenant_id, event, body, status, attempts, created_at, next_attempt_at) VALUES ${deliveries
        .map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .join(', ')}`,
      { replacements: values },
    );
    return ids;
  }

  async list(tenantId: string, webhookId: string, page: number, limit: number): Promise<{ items: DeliveryView[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.sequelize().query<Row>(
        `SELECT ${VIEW_COLUMNS} FROM cms_webhook_deliveries WHERE tenant_id = ? AND webhook_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        { replacements: [tenantId, webhookId, limit, (page - 1) * limit], type: QueryTypes.SELECT },
      ),
      this.sequelize().query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM cms_webhook_deliveries WHERE tenant_id = ? AND webhook_id = ?',
        {
          replacements: [tenantId, webhookId],
          type: QueryTypes.SELECT,
        },
      ),
    ]);
    return { items: rows.map(viewOf), total: Number(count[0]?.n ?? 0) };
  }

  async get(tenantId: string, webhookId: string, id: string): Promise<DeliveryView> {
    const rows =
      id.length <= 36
        ? await this.sequelize().query<Row>(
            `SELECT ${VIEW_COLUMNS} FROM cms_webhook_deliveries WHERE tenant_id = ? AND webhook_id = ? AND id = ?`,
            {
              replacements: [tenantId, webhookId, id],
              type: QueryTypes.SELECT,
            },
          )
        : [];
    if (!rows[0]) throw new WebhookDeliveryNotFoundError(id);
    return viewOf(rows[0]);
  }

  /** Makes a delivery due now again (same id, same body): a new attempt. */
  async redeliver(tenantId: string, webhookId: string, id: string): Promise<void> {
    await this.get(tenantId, webhookId, id);
    await this.sequelize().query(
      "UPDATE cms_webhook_deliveries SET status = 'pending', next_attempt_at = ? WHERE tenant_id = ? AND webhook_id = ? AND id = ?",
      { replacements: [this.now(), tenantId, webhookId, id] },
    );
  }

  private lastLeaseUntil = 0;
  /** A lease end later than every other this instance gave: a claim's rows are those of its owner and lease end. */
  private leaseUntil(at: number): number {
    this.lastLeaseUntil = Math.max(at, this.lastLeaseUntil + 1);
    return this.lastLeaseUntil;
  }

  /** The ids of due deliveries of enabled webhooks whose lease is free (candidates: claim() decides). */
  async due(limit: number, now = this.now(), transaction?: Transaction): Promise<string[]> {
    const rows = await this.sequelize().query<{ id: string }>(
      `SELECT d.id FROM cms_webhook_deliveries d JOIN cms_webhooks w ON w.id = d.webhook_id
       WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?) AND w.enabled = 1
       ORDER BY d.next_attempt_at, d.created_at, d.id LIMIT ?`,
      { replacements: [now, now, limit], type: QueryTypes.SELECT, transaction },
    );
    return rows.map((r) => r.id);
  }

  /**
   * One turn of the writer per dispatcher round: records the outcomes of the last claim (finishMany), then finds and
   * claims the next due deliveries (due, claimMany), in one transaction of database statements only (nothing waits on
   * the network inside it). Answers the new claim.
   */
  async finishAndClaim(
    owner: string,
    outcomes: Array<{ id: string; outcome: Outcome }>,
    limit: number,
    leaseMs: number,
  ): Promise<ClaimedDelivery[]> {
    return this.sequelize().transaction(async (transaction) => {
      await this.finishMany(owner, outcomes, transaction);
      const now = this.now();
      return this.claimMany(await this.due(limit, now, transaction), owner, leaseMs, now, transaction);
    });
  }

  /** Takes the lease of one delivery for `owner` until `leaseMs` from now; null when another instance holds it or it is no longer due. */
  async claim(id: string, owner: string, leaseMs: number, now = this.now()): Promise<ClaimedDelivery | null> {
    const result = await this.sequelize().query(
      `UPDATE cms_webhook_deliveries SET lease_until = ?, lease_owner = ?
       WHERE id = ? AND status IN ('pending', 'retrying') AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)`,
      { replacements: [this.leaseUntil(now + leaseMs), owner, id, now, now], type: QueryTypes.UPDATE },
    );
    if (affected(result[1]) !== 1) return null;
    const rows = await this.sequelize().query<Row>(
      'SELECT id, webhook_id, event, body, attempts FROM cms_webhook_deliveries WHERE id = ? AND lease_owner = ?',
      {
        replacements: [id, owner],
        type: QueryTypes.SELECT,
      },
    );
    const r = rows[0];
    return r ? { id: r.id, webhookId: r.webhook_id, event: r.event, body: r.body, attempts: Number(r.attempts) } : null;
  }

  /**
   * Takes the leases of several due deliveries at once for `owner` until `leaseMs` from now: one UPDATE for
   * the batch; answers those this instance got, in the order of `ids`.
   */
  async claimMany(ids: string[], owner: string, leaseMs: number, now = this.now(), transaction?: Transaction): Promise<ClaimedDelivery[]> {
    if (!ids.length) return [];
    const marks = ids.map(() => '?').join(', ');
    const until = this.leaseUntil(now + leaseMs);
    await this.sequelize().query(
      `UPDATE cms_webhook_deliveries SET lease_until = ?, lease_owner = ?
       WHERE id IN (${marks}) AND status IN ('pending', 'retrying') AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)`,
      { replacements: [until, owner, ...ids, now, now], type: QueryTypes.UPDATE, transaction },
    );
    // The owner and this claim's lease end (unique on this instance) name the rows this UPDATE took.
    const rows = await this.sequelize().query<Row>(
      `SELECT id, webhook_id, event, body, attempts FROM cms_webhook_deliveries WHERE lease_owner = ? AND lease_until = ? AND id IN (${marks})`,
      { replacements: [owner, until, ...ids], type: QueryTypes.SELECT, transaction },
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      return r ? [{ id: r.id, webhookId: r.webhook_id, event: r.event, body: r.body, attempts: Number(r.attempts) }] : [];
    });
  }

  /** Records an attempt's outcome and lets the lease go (only the holder's outcome counts). */
  async finish(id: string, owner: string, outcome: Outcome, transaction?: Transaction): Promise<void> {
    await this.sequelize().query(
      `UPDATE cms_webhook_deliveries SET status = ?, attempts = attempts + 1, response_status = ?, duration_ms = ?, next_attempt_at = ?,
       lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?`,
      { replacements: [outcome.status, outcome.responseStatus, outcome.durationMs, outcome.nextAttemptAt, id, owner], transaction },
    );
  }

  /**
   * Records the outcomes of several attempts of one claim at once: one UPDATE (one turn of the SQLite writer
   * instead of one per delivery); as finish(), only the lease holder's outcomes count.
   */
  async finishMany(owner: string, outcomes: Array<{ id: string; outcome: Outcome }>, transaction?: Transaction): Promise<void> {
    if (!outcomes.length) return;
    if (outcomes.length === 1) return this.finish(outcomes[0]!.id, owner, outcomes[0]!.outcome, transaction);
    const cases = (pick: (o: Outcome) => unknown) => {
      const replacements: unknown[] = [];
      for (const { id, outcome } of outcomes) replacements.push(id, pick(outcome));
      return { sql: `CASE id ${outcomes.map(() => 'WHEN ? THEN ?').join(' ')} END`, replacements };
    };
    const columns = [
      ['status', cases((o) => o.status)],
      ['response_status', cases((o) => o.responseStatus)],
      ['duration_ms', cases((o) => o.durationMs)],
      ['next_attempt_at', cases((o) => o.nextAttemptAt)],
    ] as const;
    const ids = outcomes.map((o) => o.id);
    await this.sequelize().query(
      `UPDATE cms_webhook_deliveries SET ${columns.map(([column, c]) => `${column} = ${c.sql}`).join(', ')}, attempts = attempts + 1,
       lease_until = NULL, lease_owner = NULL WHERE id IN (${ids.map(() => '?').join(', ')}) AND lease_owner = ?`,
      { replacements: [...columns.flatMap(([, c]) => c.replacements), ...ids, owner], transaction },
    );
  }

  /** Drops a delivery whose webhook is gone. */
  async drop(id: string): Promise<void> {
    await this.sequelize().query('DELETE FROM cms_webhook_deliveries WHERE id = ?', { replacements: [id] });
  }
}
