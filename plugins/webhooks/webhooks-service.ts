/**
 * The webhooks plugin's parts on one instance: the stores, the dispatcher, and the changes that other
 * instances must hear of (WEBHOOKS_CHANGED drops their copies of the tenant's webhooks).
 */
import type { EventBus } from '../../kernel/sdk.js';
import type { DeliveryStore } from './delivery-store.js';
import type { Dispatcher } from './dispatcher.js';
import { WEBHOOKS_CHANGED, type DeliveryView } from './public.js';
import type { WebhookInput, WebhookStore, WebhookTarget } from './webhook-store.js';

export class WebhooksService {
  constructor(
    readonly webhooks: WebhookStore,
    readonly deliveries: DeliveryStore,
    readonly dispatcher: Dispatcher,
    private readonly events: EventBus,
  ) {}

  private changed(tenantId: string): Promise<void> {
    return this.events.publish(WEBHOOKS_CHANGED, { tenantId });
  }

  async create(tenantId: string, input: WebhookInput, createdBy: string | null): Promise<WebhookTarget & { secret: string }> {
    const created = await this.webhooks.create(tenantId, input, createdBy);
    await this.changed(tenantId);
    return created;
  }

  async update(tenantId: string, id: string, input: Partial<WebhookInput>): Promise<WebhookTarget> {
    const updated = await this.webhooks.update(tenantId, id, input);
    await this.changed(tenantId);
    if (updated.enabled) void this.dispatcher.kick(); // re-enabled: what waited is due
    return updated;
  }

  async remove(tenantId: string, id: string): Promise<void> {
    await this.webhooks.remove(tenantId, id);
    await this.changed(tenantId);
  }

  /** Enqueues a `ping` and sends it now on this instance; answers the delivery after the attempt. */
  async test(tenantId: string, id: string): Promise<DeliveryView> {
    const webhook = await this.webhooks.get(tenantId, id);
    const [deliveryId] = await this.deliveries.enqueue([
      { webhookId: id, tenantId, event: 'ping', data: { webhook: { _id: id, name: webhook.name } } },
    ]);
    await this.dispatcher.sendOne(deliveryId!);
    return this.deliveries.get(tenantId, id, deliveryId!);
  }

  /** Makes a delivery due again and sends it now (unless another instance holds it); answers it after the attempt. */
  async redeliver(tenantId: string, id: string, deliveryId: string): Promise<DeliveryView> {
    await this.webhooks.get(tenantId, id);
    await this.deliveries.redeliver(tenantId, id, deliveryId);
    await this.dispatcher.sendOne(deliveryId);
    return this.deliveries.get(tenantId, id, deliveryId);
  }
}
