/**
 * Turns events into deliveries. Each webhook event published on this instance (the bus also delivers the
 * other instances' events here, through Redis: those are skipped, their own instance enqueued them, so
 * an event is enqueued once) becomes one delivery row per enabled webhook of its tenant that subscribes
 * to it (and, for an event about a collection's entries, whose `collections` filter holds it). The
 * tenants' webhooks are a copy kept per tenant, dropped on WEBHOOKS_CHANGED from any instance.
 */
import { AsyncResource } from 'node:async_hooks';
import type { BusEvent, EventBus, FollowedEach, Logger } from '../../kernel/sdk.js';
import type { DeliveryStore, NewDelivery } from './delivery-store.js';
import { INSTALLATION_EVENTS, WEBHOOK_EVENTS } from './public.js';
import type { WebhookTarget } from './webhook-store.js';

/**
 * The body's `data` of an event: its payload without the tenant (in the body's `tenantId`), the acting user's id and a
 * deleted entry's versions in other locales (content's ContentEvent.versions, for in-process subscribers: API decisions
 * fix an entry event's data as `{collection, entry, locale?, previousStatus?}`).
 */
export function dataOf(payload: Record<string, unknown>): Record<string, unknown> {
  const { tenantId: _tenant, userId: _user, versions: _versions, ...data } = payload;
  return data;
}

/**
 * The deliveries of one event for the given webhooks: those enabled and subscribed to it and, for an event
 * about a collection (its entries, or itself), whose `collections` filter holds that collection. Each
 * delivery is for its webhook's tenant (for a tenant's event: that tenant).
 */
export function deliveriesFor(event: BusEvent, hooks: WebhookTarget[]): NewDelivery[] {
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  const collection = typeof payload.collection === 'string' ? payload.collection : null;
  return hooks
    .filter((w) => w.enabled && w.events.includes(event.name as never))
    .filter((w) => !collection || !w.collections || w.collections.includes(collection))
    .map((w) => ({ webhookId: w._id, tenantId: w.tenantId, event: event.name, data: dataOf(payload) }));
}

export interface EnqueueDeps {
  events: EventBus;
  deliveries: DeliveryStore;
  /** The enabled webhooks of a tenant (a copy per tenant). */
  hooks: FollowedEach<string, WebhookTarget[]>;
  /** The enabled webhooks of every tenant that subscribe to an event (installation events are rare: read each time). */
  subscribers(event: string): Promise<WebhookTarget[]>;
  logger: Logger;
  /** Called after rows were written: the dispatcher of this instance sends them at once. */
  enqueued(): void;
}

/** Delivery rows per INSERT (9 values each: well under SQLite's and MariaDB's placeholder limits). */
const INSERT_CHUNK = 100;

/**
 * Subscribes to the webhook events and writes their deliveries. The rows are written in the enqueuer's own
 * async context (the one it was created in, at boot), after the publisher's code has gone on, a batch at a
 * time: never inside the transaction of the write that published the event, and never holding it. On SQLite
 * a publisher that announces in an afterCommit hook (content-packages' import does) still holds the one
 * writer when the event arrives; an INSERT from that async context would be refused as a nested write (and
 * the delivery lost), or would make the writer wait on the webhooks. Here it queues behind that transaction
 * instead. A write that rolls back publishes nothing (content announces after its commit), so enqueues nothing.
 */
export class Enqueuer {
  private pending: NewDelivery[] = [];
  private scheduled = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly offs: Array<() => void>;
  /** The context the writes run in: the boot's, outside any request and transaction. */
  private readonly outside = new AsyncResource('webhooks-enqueue');

  constructor(private readonly deps: EnqueueDeps) {
    this.offs = WEBHOOK_EVENTS.map((name) =>
      deps.events.subscribe(name, (event) => {
        const taking = this.take(event).finally(() => this.taking.delete(taking));
        this.taking.add(taking);
        return taking;
      }),
    );
  }

  /** Events whose webhooks are being read: close() waits for them. */
  private readonly taking = new Set<Promise<void>>();

  /** An event's deliveries join the next batch (another instance's events were enqueued there). */
  private async take(event: BusEvent): Promise<void> {
    if (event.origin !== this.deps.events.instanceId) return;
    if (INSTALLATION_EVENTS.includes(event.name)) {
      this.add(deliveriesFor(event, await this.deps.subscribers(event.name)));
      return;
    }
    const tenantId = (event.payload as { tenantId?: unknown } | null)?.tenantId;
    if (typeof tenantId !== 'string') return;
    this.add(
      deliveriesFor(
        event,
        (await this.deps.hooks.get(tenantId)).filter((w) => w.tenantId === tenantId),
      ),
    );
  }

  /** Queues rows for the next batch (written shortly, in the enqueuer's context). */
  add(rows: NewDelivery[]): void {
    if (!rows.length) return;
    this.pending.push(...rows);
    if (this.scheduled) return;
    this.scheduled = true;
    this.outside.runInAsyncScope(() => setImmediate(() => void this.flush()));
  }

  /** Writes what is queued (one batch after the other); resolves when it is written. */
  flush(): Promise<void> {
    this.scheduled = false;
    this.chain = this.outside.runInAsyncScope(() => this.chain.then(() => this.write()));
    return this.chain;
  }

  private async write(): Promise<void> {
    const rows = this.pending.splice(0);
    let written = 0;
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      try {
        await this.deps.deliveries.enqueue(chunk);
        written += chunk.length;
      } catch (err) {
        const events = [...new Set(chunk.map((r) => r.event))];
        this.deps.logger.error({ err, events, deliveries: chunk.length }, 'webhooks: deliveries could not be written');
      }
    }
    if (written) this.deps.enqueued();
  }

  /** Stops taking events and writes what was taken. */
  async close(): Promise<void> {
    this.offs.forEach((off) => off());
    await Promise.allSettled([...this.taking]);
    await this.flush();
  }
}
