/**
 * Turns events into deliveries. Each webhook event published on this instance (the bus also delivers the
 * other instances' events here, through Redis: those are skipped, their own instance enqueued them, so
 * an event is enqueued once) becomes one delivery row per enabled webhook of its tenant that subscribes
 * to it (and, for an event about a collection's entries, whose `collections` filter holds it). The
 * tenants' webhooks are a copy kept per tenant, dropped on WEBHOOKS_CHANGED from any instance.
 */
import type { BusEvent, EventBus, FollowedEach, Logger } from '../../kernel/sdk.js';
import type { DeliveryStore, NewDelivery } from './delivery-store.js';
import { WEBHOOK_EVENTS } from './public.js';
import type { WebhookTarget } from './webhook-store.js';

/** The body's `data` of an event: its payload without the tenant (in the body's `tenantId`) and the acting user's id. */
export function dataOf(payload: Record<string, unknown>): Record<string, unknown> {
  const { tenantId: _tenant, userId: _user, ...data } = payload;
  return data;
}

/** The deliveries of one event for the given webhooks of its tenant. */
export function deliveriesFor(event: BusEvent, hooks: WebhookTarget[]): NewDelivery[] {
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  const tenantId = payload.tenantId;
  if (typeof tenantId !== 'string') return [];
  const collection = typeof payload.collection === 'string' ? payload.collection : null;
  return hooks
    .filter((w) => w.enabled && w.events.includes(event.name as never))
    .filter((w) => !collection || !w.collections || w.collections.includes(collection))
    .map((w) => ({ webhookId: w._id, tenantId, event: event.name, data: dataOf(payload) }));
}

export interface EnqueueDeps {
  events: EventBus;
  deliveries: DeliveryStore;
  /** The enabled webhooks of a tenant (a copy per tenant). */
  hooks: FollowedEach<string, WebhookTarget[]>;
  logger: Logger;
  /** Called after rows were written: the dispatcher of this instance sends them at once. */
  enqueued(): void;
}

/** Subscribes to the webhook events; answers the unsubscribe function. */
export function subscribeEvents(deps: EnqueueDeps): () => void {
  const handler = async (event: BusEvent) => {
    if (event.origin !== deps.events.instanceId) return; // another instance's event: enqueued there
    const tenantId = (event.payload as { tenantId?: unknown } | null)?.tenantId;
    if (typeof tenantId !== 'string') return;
    const rows = deliveriesFor(event, await deps.hooks.get(tenantId));
    if (!rows.length) return;
    try {
      await deps.deliveries.enqueue(rows);
    } catch (err) {
      deps.logger.error({ err, event: event.name, tenantId, webhooks: rows.length }, 'webhooks: deliveries could not be written');
      return;
    }
    deps.enqueued();
  };
  const offs = WEBHOOK_EVENTS.map((name) => deps.events.subscribe(name, handler));
  return () => offs.forEach((off) => off());
}
