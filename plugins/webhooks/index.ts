import { definePlugin, type ContainerServices } from '../../kernel/sdk.js';
import { DeliveryStore } from './delivery-store.js';
import { Dispatcher } from './dispatcher.js';
import { Enqueuer } from './enqueue.js';
import { WEBHOOK_MIGRATIONS } from './migrations.js';
import { webhookOptionsSchema, type WebhookOptions } from './options.js';
import { WEBHOOKS_CHANGED } from './public.js';
import { routes } from './routes.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { WebhookStore, type WebhookTarget } from './webhook-store.js';
import { WebhooksService } from './webhooks-service.js';

/**
 * Webhooks: /api/webhooks, deliveries written per event on the instance that published it, and on every
 * instance a dispatcher that claims due deliveries with a lease and sends them (docs/features/webhooks.md).
 */
export default definePlugin(() => {
  let service: WebhooksService | null = null;
  let options: WebhookOptions | null = null;
  const booted = () => {
    if (!service) throw new Error('webhooks are used before their plugin booted');
    return service;
  };
  return {
    options: webhookOptionsSchema,
    register(ctx) {
      options = ctx.options;
      for (const m of WEBHOOK_MIGRATIONS) ctx.migrations.add(m);
      for (const route of routes(booted, ctx.config.outbound.allowPrivate)) ctx.routes.add(route);
    },
    async boot({ container, every, followEach, onClose, config, logger }) {
      const cradle: ContainerServices & Record<string, any> = container.cradle;
      const sequelize = () => cradle.sequelize;
      const webhooks = new WebhookStore(sequelize, new WebhookSecrets(sequelize, config.secrets?.encryptionKey));
      const opts = options!;
      const deliveries = new DeliveryStore(sequelize, opts.clock ?? Date.now);
      const dispatcher = new Dispatcher({
        deliveries,
        webhooks,
        options: opts,
        allowPrivate: config.outbound.allowPrivate,
        logger,
        owner: cradle.events.instanceId,
      });
      service = new WebhooksService(webhooks, deliveries, dispatcher, cradle.events);
      const hooks = followEach<string, WebhookTarget[]>({
        name: 'webhooks',
        load: (tenantId) => webhooks.enabled(tenantId),
        on: [WEBHOOKS_CHANGED],
        keysOf: (event) => [(event.payload as { tenantId: string }).tenantId],
        maxAgeMs: 60_000,
        max: 10_000,
      });
      const enqueuer = new Enqueuer({
        events: cradle.events,
        deliveries,
        hooks,
        subscribers: (event) => webhooks.subscribers(event),
        logger,
        enqueued: () => void dispatcher.kick(),
      });
      // Last added, first run at shutdown: no new deliveries, then the sends in progress finish.
      onClose(() => {
        service = null;
      });
      const timer = every({ name: 'webhooks: sending due deliveries', everyMs: opts.pollMs, run: () => dispatcher.kick() });
      onClose(async () => {
        await enqueuer.close();
        await timer.close();
        await dispatcher.stop();
      });
      void dispatcher.kick(); // what was due before this instance started
    },
  };
});
