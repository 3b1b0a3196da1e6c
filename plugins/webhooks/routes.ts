/**
 * /api/webhooks (system:settings, per tenant): webhooks (the secret answered once, on creation), their
 * delivery log, a test delivery (`ping`) and redelivery. A URL on an internal address is 400
 * WEBHOOK_URL_FORBIDDEN unless CMS_OUTBOUND_ALLOW_PRIVATE=true.
 */
import { z } from 'zod';
import {
  checkOutboundUrl,
  defineRoute,
  OutboundAddressError,
  recordRequestAudit,
  type RouteContext,
  type RouteDefinition,
} from '../../kernel/sdk.js';
import { listLimit } from '../../lib/http/list-limit.js';
import { WebhookUrlForbiddenError } from './errors.js';
import { WEBHOOK_EVENTS } from './public.js';
import type { WebhooksService } from './webhooks-service.js';
import { viewOf } from './webhook-store.js';

const tags = ['webhooks'];
const at = (path: string) => ({ path: `/api/webhooks${path}`, permission: 'system:settings', tags });

const webhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && !u.hash;
    } catch {
      return false;
    }
  }, 'an http or https URL without credentials or fragment');
const fields = {
  name: z.string().trim().min(1).max(191),
  url: webhookUrl,
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .max(WEBHOOK_EVENTS.length * 2)
    .transform((events) => [...new Set(events)]),
  collections: z
    .array(z.string().min(1).max(64))
    .max(100)
    .nullable()
    .describe('Entry events of these collections only (null or absent: every collection); events without a collection are not filtered'),
  enabled: z.boolean(),
};
const webhookView = z
  .object({
    _id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    collections: z.array(z.string()).nullable(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });
const deliveryView = z
  .object({
    _id: z.string(),
    event: z.string(),
    status: z.enum(['pending', 'succeeded', 'retrying', 'failed']),
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    createdAt: z.string(),
    nextAttemptAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
const idParam = z.object({ id: z.string().min(1).max(36) });

/**
 * Where a webhook sends, as the audit trail keeps it: the origin only. A receiver's path or query may be a
 * credential itself (chat services' incoming-webhook URLs are), and the audit log is read by more people.
 */
const auditedUrl = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid)';
  }
};

/** What an audit entry says about a webhook: never its secret (only whether one was issued), its URL by origin. */
function auditedWebhook(w: { name?: string; url?: string; events?: string[]; collections?: string[] | null; enabled?: boolean }) {
  return {
    ...(w.name !== undefined ? { name: w.name } : {}),
    ...(w.url !== undefined ? { urlOrigin: auditedUrl(w.url) } : {}),
    ...(w.events !== undefined ? { events: w.events } : {}),
    ...(w.collections !== undefined ? { collections: w.collections } : {}),
    ...(w.enabled !== undefined ? { enabled: w.enabled } : {}),
  };
}

type Change = 'created' | 'changed' | 'deleted' | 'secret-issued' | 'tested' | 'redelivered';

/** Webhook changes, the issue of a signing secret, test sends and redeliveries are recorded in the audit trail (webhook.<change>). */
function audited(ctx: RouteContext['ctx'], change: Change, id: string, message: string, details: Record<string, unknown>): Promise<void> {
  return recordRequestAudit(ctx, {
    domain: 'webhooks',
    operation: `webhook-${change}`,
    action: `webhook.${change}`,
    outcome: 'success',
    level: change === 'secret-issued' || change === 'deleted' ? 'medium' : 'low',
    message,
    target: { type: 'webhook', id },
    details,
  });
}

/** Refuses a URL on an internal address (again at each send). */
async function assertUrlAllowed(url: string, allowPrivate: boolean): Promise<void> {
  await checkOutboundUrl(url, allowPrivate).catch((err: unknown) => {
    throw err instanceof OutboundAddressError ? new WebhookUrlForbiddenError(err.host) : err;
  });
}

/** The fields of `view` a PATCH sent. */
function pick<T extends object>(view: T, sent: object): Partial<T> {
  return Object.fromEntries(Object.keys(sent).map((k) => [k, (view as Record<string, unknown>)[k]])) as Partial<T>;
}

/** DELETE /api/webhooks/:id. */
function removeRoute(service: () => WebhooksService): RouteDefinition {
  return defineRoute({
    method: 'DELETE',
    ...at('/:id'),
    request: { params: idParam },
    summary: 'Deletes a webhook and its delivery log (pending deliveries are not sent); 404 WEBHOOK_NOT_FOUND',
    response: z.object({ deleted: z.literal(true) }),
    async handler({ ctx, identity, params }) {
      const gone = await service().webhooks.get(identity.tenantId, params.id);
      await service().remove(identity.tenantId, params.id);
      await audited(ctx, 'deleted', gone._id, `Webhook '${gone.name}' deleted`, auditedWebhook(gone));
      return { deleted: true as const };
    },
  });
}

function webhookRoutes(service: () => WebhooksService, allowPrivate: boolean): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      ...at(''),
      request: {},
      summary: "The tenant's webhooks (never their secrets)",
      response: z.array(webhookView),
      async handler({ identity }) {
        return (await service().webhooks.list(identity.tenantId)).map(viewOf);
      },
    }),
    defineRoute({
      method: 'POST',
      ...at(''),
      status: 201,
      request: { body: z.strictObject({ ...fields, collections: fields.collections.optional(), enabled: fields.enabled.optional() }) },
      summary: 'Creates a webhook; the answer carries its signing secret, the only time it is answered',
      description:
        'The secret keys the HMAC-SHA256 of X-CMS-Signature. A URL whose host is or resolves to a loopback, link-local, private or unique-local address is 400 WEBHOOK_URL_FORBIDDEN unless the operator set CMS_OUTBOUND_ALLOW_PRIVATE=true.',
      response: webhookView.extend({ secret: z.string() }),
      async handler({ ctx, identity, body }) {
        await assertUrlAllowed(body.url, allowPrivate);
        const { tenantId: _tenant, ...created } = await service().create(identity.tenantId, body, identity.userId);
        await audited(ctx, 'created', created._id, `Webhook '${created.name}' created`, auditedWebhook(created));
        // The secret itself is never recorded: only that one was issued (answered once, in this answer).
        await audited(ctx, 'secret-issued', created._id, `Signing secret of webhook '${created.name}' issued`, { name: created.name });
        return created;
      },
    }),
    defineRoute({
      method: 'GET',
      ...at('/:id'),
      request: { params: idParam },
      summary: 'One webhook (never its secret); 404 WEBHOOK_NOT_FOUND',
      response: webhookView,
      async handler({ identity, params }) {
        return viewOf(await service().webhooks.get(identity.tenantId, params.id));
      },
    }),
    defineRoute({
      method: 'PATCH',
      ...at('/:id'),
      request: {
        params: idParam,
        body: z
          .strictObject({
            name: fields.name.optional(),
            url: fields.url.optional(),
            events: fields.events.optional(),
            collections: fields.collections.optional(),
            enabled: fields.enabled.optional(),
          })
          .refine((b) => Object.keys(b).length > 0, 'at least one field'),
      },
      summary: 'Changes a webhook (the fields sent; the secret stays); 404 WEBHOOK_NOT_FOUND, 400 WEBHOOK_URL_FORBIDDEN',
      response: webhookView,
      async handler({ ctx, identity, params, body }) {
        if (body.url !== undefined) await assertUrlAllowed(body.url, allowPrivate);
        const before = await service().webhooks.get(identity.tenantId, params.id);
        const after = await service().update(identity.tenantId, params.id, body);
        await audited(ctx, 'changed', after._id, `Webhook '${after.name}' changed`, {
          before: auditedWebhook(pick(before, body)),
          after: auditedWebhook(pick(after, body)),
        });
        return viewOf(after);
      },
    }),
    removeRoute(service),
  ];
}

function deliveryRoutes(service: () => WebhooksService): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      ...at('/:id/test'),
      request: { params: idParam },
      summary: 'Sends a `ping` delivery now (also to a disabled webhook) and answers it after the attempt',
      description: 'The ping is a delivery like the others (logged, retried when it fails). Its data: {webhook: {_id, name}}.',
      response: deliveryView,
      async handler({ ctx, identity, params }) {
        const ping = await service().test(identity.tenantId, params.id);
        await audited(ctx, 'tested', params.id, `Test delivery sent to webhook ${params.id}`, { delivery: ping._id, status: ping.status });
        return ping;
      },
    }),
    defineRoute({
      method: 'GET',
      ...at('/:id/deliveries'),
      request: {
        params: idParam,
        query: z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1), limit: listLimit() }),
      },
      summary: "A webhook's delivery log, newest first; 404 WEBHOOK_NOT_FOUND",
      response: z.object({ items: z.array(deliveryView), total: z.number().int(), page: z.number().int(), limit: z.number().int() }),
      async handler({ identity, params, query }) {
        await service().webhooks.get(identity.tenantId, params.id);
        const { items, total } = await service().deliveries.list(identity.tenantId, params.id, query.page, query.limit);
        return { items, total, page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'POST',
      ...at('/:id/deliveries/:deliveryId/redeliver'),
      request: { params: idParam.extend({ deliveryId: z.string().min(1).max(36) }) },
      summary: 'Sends a delivery again now (same id and body: a new attempt) and answers it after the attempt',
      description: '404 WEBHOOK_NOT_FOUND or WEBHOOK_DELIVERY_NOT_FOUND.',
      response: deliveryView,
      async handler({ ctx, identity, params }) {
        const again = await service().redeliver(identity.tenantId, params.id, params.deliveryId);
        await audited(ctx, 'redelivered', params.id, `Delivery ${again._id} of webhook ${params.id} sent again`, {
          delivery: again._id,
          event: again.event,
          status: again.status,
        });
        return again;
      },
    }),
  ];
}

export const routes = (service: () => WebhooksService, allowPrivate: boolean): RouteDefinition[] => [
  ...webhookRoutes(service, allowPrivate),
  ...deliveryRoutes(service),
];
